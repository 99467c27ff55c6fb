-- pr_equivalents is redefined for PostgreSQL by its 011 (a per-series
-- subquery and CTEs its planner misjudged took minutes on a million
-- messages). SQLite's planner handles 009's definition well, in about a
-- second on the same store, while the PostgreSQL rewrite sent SQLite 3.51
-- into nested scans of whole CTEs; so SQLite keeps 009's view, restated
-- here so both engines carry the same migrations.

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
