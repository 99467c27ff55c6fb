-- People, not addresses (docs/people.md). A person is a contributors row
-- that no other absorbed (merged_into IS NULL); its identities (addresses,
-- names as seen with an address, GitHub logins and ids) are rows of
-- `identities`, each with where it came from and when. email_messages.sender_id
-- keeps pointing at a contributor: merging moves identities and re-points
-- sender_id and author_id; person_merges records each merge, its reason and
-- what it moved, so it can be undone.

ALTER TABLE contributors ADD COLUMN merged_into INTEGER REFERENCES contributors(id);

CREATE TABLE identities (
  id          INTEGER PRIMARY KEY,
  person_id   INTEGER NOT NULL REFERENCES contributors(id),
  kind        TEXT NOT NULL,                   -- email | name | github_login | github_id
  value       TEXT NOT NULL,                   -- email: normal form; github_login: lower-cased
  seen_with   TEXT NOT NULL DEFAULT '',        -- name: the address it was seen with
  origin_id   INTEGER NOT NULL REFERENCES contributors(id),  -- the contributor it was first recorded on
  source      TEXT NOT NULL,                   -- mail | trailer | mailmap | github-import | github-api | noreply | manual
  seen_at     TEXT NOT NULL,
  -- An address, a login or an id belongs to one person; a name may be seen with many addresses.
  UNIQUE (kind, value, seen_with)
);
CREATE INDEX identities_person ON identities (person_id);

CREATE TABLE person_merges (
  id          INTEGER PRIMARY KEY,
  kept_id     INTEGER NOT NULL REFERENCES contributors(id),
  merged_id   INTEGER NOT NULL REFERENCES contributors(id),
  rule        TEXT NOT NULL,                   -- manual | mailmap | trailer | noreply | github-api | split
  reason      TEXT NOT NULL,
  evidence    TEXT NOT NULL,                   -- one key per piece of evidence: the same evidence never merges twice
  moved       TEXT NOT NULL,                   -- JSON: the identity ids and author references moved
  merged_at   TEXT NOT NULL,
  undone_at   TEXT
);
CREATE INDEX person_merges_evidence ON person_merges (evidence);

-- GitHub's answer for an address: a login, or none until retry_after.
CREATE TABLE github_lookups (
  address       TEXT PRIMARY KEY,
  login         TEXT,
  github_id     INTEGER,
  looked_up_at  TEXT NOT NULL,
  retry_after   TEXT
);

-- How far `people resolve` has read email_messages for evidence (names, trailers).
CREATE TABLE people_progress (
  name          TEXT PRIMARY KEY,
  last_id       INTEGER NOT NULL
);

-- A merge re-points the mail of the person it absorbs, and of the addresses it moves.
CREATE INDEX email_messages_sender ON email_messages (sender_id) WHERE sender_id IS NOT NULL;
CREATE INDEX email_messages_from_address ON email_messages (from_address);
CREATE INDEX identities_value ON identities (value);

-- Every contributor so far is a person with the identities its row carries.
INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at)
SELECT id, 'email', email, '', id, CASE WHEN source = 'email' THEN 'mail' ELSE 'github-import' END, created_at FROM contributors WHERE email IS NOT NULL;
INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at)
SELECT id, 'github_login', lower(github_login), '', id, 'github-import', created_at FROM contributors WHERE github_login IS NOT NULL;
INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at)
SELECT id, 'name', name, COALESCE(email, ''), id, CASE WHEN source = 'email' THEN 'mail' ELSE 'github-import' END, created_at
FROM contributors WHERE name IS NOT NULL AND name <> '' AND email IS NOT NULL;

-- pr_equivalents counts people among a series' participants, not addresses; otherwise as before.
DROP VIEW pr_equivalents;

CREATE VIEW pr_equivalents AS
WITH patches AS (
  -- A patch without a version of its own takes its thread root's: `[PATCH 1/4]` under `[PATCH v3 0/4]` is v3.
  SELECT m.patch_series_id AS series_id, COALESCE(m.patch_version, root.patch_version, 1) AS version, m.patch_index, m.patch_total,
         m.thread_root_id, m.sender_id, m.sent_at, m.message_key
  FROM email_messages m LEFT JOIN email_messages root ON root.id = m.thread_root_id
  WHERE m.patch_series_id IS NOT NULL AND m.msg_class = 'patch_submission'
),
versions AS (
  SELECT series_id, MAX(version) AS version, COUNT(DISTINCT version) AS versions FROM patches GROUP BY series_id
),
latest AS (
  SELECT p.series_id,
         COUNT(DISTINCT CASE WHEN COALESCE(p.patch_index, 1) > 0 THEN COALESCE(p.patch_index, 1) END) AS patch_count,
         MAX(p.patch_total) AS patches_announced,
         MAX(CASE WHEN p.patch_index = 0 THEN 1 ELSE 0 END) AS has_cover_letter
  FROM patches p JOIN versions v ON v.series_id = p.series_id AND v.version = p.version
  GROUP BY p.series_id
),
activity AS (
  SELECT patch_series_id AS series_id,
         SUM(CASE WHEN msg_class = 'review' THEN 1 ELSE 0 END) AS reply_count,
         -- People (a contributor, else an address) who posted or answered a patch; bots' notices are commit or tracker mail, whatever their sender looks like.
         COUNT(DISTINCT CASE WHEN is_bot = 0 AND msg_class IN ('patch_submission', 'review', 'discuss') THEN COALESCE('p' || sender_id, 'a' || lower(from_address)) END) AS participants,
         MIN(sent_at) AS first_activity_at,
         MAX(sent_at) AS last_activity_at,
         MIN(CASE WHEN msg_class = 'commit_notify' THEN sent_at END) AS merged_at,
         MAX(CASE WHEN msg_class = 'commit_notify' THEN 1 ELSE 0 END) AS merged
  FROM email_messages WHERE patch_series_id IS NOT NULL GROUP BY patch_series_id
),
trailer_counts AS (
  SELECT m.patch_series_id AS series_id,
         SUM(CASE WHEN json_extract(t.value, '$.kind') = 'Reviewed-by' THEN 1 ELSE 0 END) AS reviewed_by,
         SUM(CASE WHEN json_extract(t.value, '$.kind') = 'Acked-by' THEN 1 ELSE 0 END) AS acked_by,
         SUM(CASE WHEN json_extract(t.value, '$.kind') = 'Tested-by' THEN 1 ELSE 0 END) AS tested_by
  FROM email_messages m, json_each(CASE WHEN json_type(m.trailers) = 'array' THEN m.trailers ELSE '[]' END) t
  WHERE m.patch_series_id IS NOT NULL AND m.msg_class = 'review'
  GROUP BY m.patch_series_id
)
SELECT
  s.id AS series_id,
  (SELECT p.thread_root_id FROM patches p WHERE p.series_id = s.id ORDER BY p.version, p.sent_at, p.message_key LIMIT 1) AS root_message_id,
  s.title AS title,
  s.author_address AS author_address,
  (SELECT p.sender_id FROM patches p WHERE p.series_id = s.id ORDER BY p.version, p.sent_at, p.message_key LIMIT 1) AS author_id,
  v.version AS version,
  v.versions AS versions,
  l.patch_count AS patch_count,
  l.patches_announced AS patches_announced,
  l.has_cover_letter = 1 AS has_cover_letter,
  a.reply_count AS reply_count,
  COALESCE(t.reviewed_by, 0) AS reviewed_by,
  COALESCE(t.acked_by, 0) AS acked_by,
  COALESCE(t.tested_by, 0) AS tested_by,
  a.participants AS participants,
  a.first_activity_at AS first_activity_at,
  a.last_activity_at AS last_activity_at,
  a.merged = 1 AS merged,
  a.merged_at AS merged_at,
  s.list_id AS list_id,
  lists.repo_id AS repo_id,
  'mailing_list' AS source
FROM patch_series s
JOIN versions v ON v.series_id = s.id
JOIN latest l ON l.series_id = s.id
JOIN activity a ON a.series_id = s.id
JOIN lists ON lists.id = s.list_id
LEFT JOIN trailer_counts t ON t.series_id = s.id;
