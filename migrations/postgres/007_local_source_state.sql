-- Local sources (mbox files, Maildirs) change after they were fetched. Each
-- checkpointed month keeps the fingerprint of what the source held for it, so
-- a month whose files changed is read again (docs/fetch.md). NULL: no
-- fingerprint (a remote archive, a month checkpointed before this column, or
-- a month whose read skipped an entry).
ALTER TABLE fetched_months ADD COLUMN source_fingerprint TEXT;

-- Entries of a local source that could not be read (a dangling symlink, a
-- FIFO, a file without permission), shown by `lists ls`. The rest of the
-- list is read; an entry leaves this table after a complete fetch no longer
-- meets it.
CREATE TABLE skipped_source_entries (
  list_id        BIGINT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  path           TEXT NOT NULL,
  reason         TEXT NOT NULL,
  first_seen_at  TIMESTAMPTZ NOT NULL,
  last_seen_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (list_id, path)
);
