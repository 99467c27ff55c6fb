-- PostgreSQL's 015 indexes values of unbounded length (addresses, series
-- keys, repository urls, tracker keys) through hash indexes,
-- because a btree entry there holds at most about 2,700 bytes (docs/store.md,
-- "Bounded index keys"). SQLite keeps long keys on overflow pages and needs
-- no change to its UNIQUE constraints; it only gains the lookup index that
-- PostgreSQL's series key needs now that its uniqueness is an exclusion
-- constraint (SQLite's UNIQUE (list_id, series_key) would serve alone, the
-- index keeps the two schemas one).
CREATE INDEX patch_series_key ON patch_series (series_key);
