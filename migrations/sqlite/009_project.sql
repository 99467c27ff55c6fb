-- project's state (docs/project.md). Links from mail to issues and pull
-- requests name who wrote the mail when it was a person (the bot's own
-- sender never is); patch threads of forge-less lists are grouped into
-- series; backfill-keys records the synthetic issues a native issue shadows;
-- pr_equivalents shows each patch series as a pull request would look.

ALTER TABLE issue_email_messages ADD COLUMN author_id INTEGER REFERENCES contributors(id);
ALTER TABLE pull_request_email_messages ADD COLUMN author_id INTEGER REFERENCES contributors(id);
CREATE INDEX issue_email_messages_message ON issue_email_messages (email_message_id);
CREATE INDEX pull_request_email_messages_message ON pull_request_email_messages (email_message_id);

-- project picks up a list's mail that has no outcome yet, batch after batch.
CREATE INDEX email_messages_unprojected ON email_messages (list_id, id) WHERE projected_kind IS NULL;

-- One patch series of a list: the same author and title, whatever its version.
CREATE TABLE patch_series (
  id              INTEGER PRIMARY KEY,
  list_id         INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  series_key      TEXT NOT NULL,               -- lower-cased author address, newline, lower-cased title
  title           TEXT NOT NULL,               -- the root's subject without [PATCH vN m/n] and reply prefixes
  author_address  TEXT,
  UNIQUE (list_id, series_key)
);
ALTER TABLE email_messages ADD COLUMN patch_series_id INTEGER REFERENCES patch_series(id) ON DELETE SET NULL;
CREATE INDEX email_messages_patch_series ON email_messages (patch_series_id) WHERE patch_series_id IS NOT NULL;

-- A synthetic issue whose key a native issue's title carries: the mail should have linked to the native one.
CREATE TABLE issue_key_shadows (
  synthetic_issue_id  INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  native_issue_id     INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  repo_id             INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  external_key        TEXT NOT NULL,
  found_at            TEXT NOT NULL,
  PRIMARY KEY (synthetic_issue_id, native_issue_id)
);

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
         -- People who posted or answered a patch; bots' notices are commit or tracker mail, whatever their sender looks like.
         COUNT(DISTINCT CASE WHEN is_bot = 0 AND msg_class IN ('patch_submission', 'review', 'discuss') THEN lower(from_address) END) AS participants,
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
