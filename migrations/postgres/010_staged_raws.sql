-- A staged message's raw bytes live in a table of their own, written once
-- when fetched and never again. classify and drain move a message's status
-- and labels many times; with the bytes in the same row every such update
-- copied them (docs/store.md, "Raw bytes and envelopes").
CREATE TABLE staged_message_raws (
  staged_message_id  BIGINT PRIMARY KEY REFERENCES staged_messages(id) ON DELETE CASCADE,
  raw                BYTEA NOT NULL
);
INSERT INTO staged_message_raws (staged_message_id, raw) SELECT id, raw FROM staged_messages;
ALTER TABLE staged_messages DROP COLUMN raw;

-- drain copies everything of an envelope into the research tables; the
-- envelope of a drained message is never read again (classify --reclassify
-- writes a new one from the raw bytes).
UPDATE staged_messages SET envelope = NULL WHERE status = 'drained';

-- lz4 compresses large values several times faster than the default pglz,
-- where the server has it (PostgreSQL 14 and later, built with lz4).
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE staged_messages ALTER COLUMN envelope SET COMPRESSION lz4;
    ALTER TABLE message_bodies ALTER COLUMN body_text SET COMPRESSION lz4;
  END IF;
END
$$;
