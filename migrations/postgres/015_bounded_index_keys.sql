-- A btree index entry holds at most about 2,700 bytes, and mail carries
-- values far longer: a From address, a patch series key, a repository url
-- read from a github.com link, a tracker key captured from a subject. One
-- such value failed its list's drain or project on every run. (Message ids
-- need nothing: at most 995 bytes read as Latin-1, under 2,000 in UTF-8.)
-- Values of unbounded length are indexed here through hash indexes, whose entries are
-- a 4-byte hash whatever the value (docs/store.md, "Bounded index keys"):
-- uniqueness is an exclusion constraint over a hash index, which compares
-- the values themselves on a hash match, so it is as exact as UNIQUE, and
-- equality lookups (`=`, `IN`) use the hash index as they used the btree.
-- Writes that relied on a UNIQUE name it no more: `ON CONFLICT DO NOTHING`
-- without a target meets an exclusion constraint too. SQLite has no such
-- limit and keeps UNIQUE (its 015 only adds patch_series_key, so the two
-- schemas name the same indexes); the SQL is the same.

ALTER TABLE contributors DROP CONSTRAINT IF EXISTS contributors_email_key;
ALTER TABLE contributors ADD CONSTRAINT contributors_email_unique EXCLUDE USING hash (email WITH =);

ALTER TABLE repos DROP CONSTRAINT IF EXISTS repos_url_key;
ALTER TABLE repos ADD CONSTRAINT repos_url_unique EXCLUDE USING hash (url WITH =);

-- A hash index has one column, so a pair is one value: the list id and the key.
ALTER TABLE patch_series DROP CONSTRAINT IF EXISTS patch_series_list_id_series_key_key;
ALTER TABLE patch_series ADD CONSTRAINT patch_series_list_key_unique EXCLUDE USING hash ((list_id::text || ' ' || series_key) WITH =);
CREATE INDEX patch_series_key ON patch_series USING hash (series_key);

DROP INDEX IF EXISTS issues_repo_external_key;
ALTER TABLE issues ADD CONSTRAINT issues_repo_external_key_unique
  EXCLUDE USING hash ((repo_id::text || ' ' || external_key) WITH =) WHERE (external_key IS NOT NULL AND external_key <> '');
CREATE INDEX issues_repo_external_key ON issues USING hash (external_key) WHERE external_key IS NOT NULL AND external_key <> '';

DROP INDEX IF EXISTS email_messages_signaled;
CREATE INDEX email_messages_signaled ON email_messages USING hash (signaled_repo_url) WHERE signaled_repo_url IS NOT NULL;
