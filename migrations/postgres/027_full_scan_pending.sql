-- A list's first scan asked for the whole history (fetch --full) and has not
-- checkpointed a month yet: a run stopped before that (a signal, the archive
-- index failing) leaves no checkpoint to resume from, so the next run reads
-- the whole history too rather than the recent window of a list never
-- fetched (docs/fetch.md, "Months"). Cleared when a scan reaches its end.
ALTER TABLE lists ADD COLUMN full_scan_pending BOOLEAN NOT NULL DEFAULT FALSE;
