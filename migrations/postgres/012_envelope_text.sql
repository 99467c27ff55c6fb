-- The envelope as the JSON text classify wrote, not jsonb (docs/store.md,
-- "Raw bytes and envelopes"). Nothing queries into it: drain reads it whole
-- and deletes it. As jsonb the server parsed every envelope on the way in and
-- printed it again on the way out; on 100,000 messages that was about a
-- second of its CPU each way. SQLite has kept it as TEXT since 010.
ALTER TABLE staged_envelopes ALTER COLUMN envelope TYPE TEXT USING envelope::text;

-- A new type drops the column's compression: lz4 again where 010 set it.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE staged_envelopes ALTER COLUMN envelope SET COMPRESSION lz4;
  END IF;
END
$$;
