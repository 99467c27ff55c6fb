-- The mirror handling (config `mirror_handling`: full, metadata_only, skip)
-- the list's drained mail was last brought to. When the setting changes,
-- the next drain finds the list's mirror mail whose stored body, captures or
-- signaled repo disagree with it, drains it again from its raw bytes and
-- records the new handling here; NULL: not recorded yet (lists drained before
-- this column), checked on the next drain (docs/drain.md).
ALTER TABLE lists ADD COLUMN mirror_handling TEXT;
