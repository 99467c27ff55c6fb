-- Raw bytes and envelopes in tables of their own (docs/store.md, "Raw bytes
-- and envelopes"). classify and drain change a staged message's status and
-- labels several times; its bytes and its envelope kept in the same row were
-- copied into every new version of it.

-- The raw bytes of each staged message, written once when fetched. raw_codec
-- says how raw holds them: NULL, as they came (every row staged before this
-- migration, and mail that does not shrink); 'deflate', raw DEFLATE (RFC 1951).
CREATE TABLE staged_message_raws (
  staged_message_id  BIGINT PRIMARY KEY REFERENCES staged_messages(id) ON DELETE CASCADE,
  raw                BYTEA NOT NULL,
  raw_codec          TEXT
);
-- Compressed already: TOAST would spend CPU compressing it again for nothing.
ALTER TABLE staged_message_raws ALTER COLUMN raw SET STORAGE EXTERNAL;
INSERT INTO staged_message_raws (staged_message_id, raw) SELECT id, raw FROM staged_messages;
ALTER TABLE staged_messages DROP COLUMN raw;

-- What classify read out of a message, until drain has copied it into
-- email_messages and message_bodies (the body a second time).
CREATE TABLE staged_envelopes (
  staged_message_id  BIGINT PRIMARY KEY REFERENCES staged_messages(id) ON DELETE CASCADE,
  envelope           JSONB NOT NULL
);
INSERT INTO staged_envelopes (staged_message_id, envelope)
  SELECT id, envelope FROM staged_messages WHERE envelope IS NOT NULL AND status <> 'drained';
ALTER TABLE staged_messages DROP COLUMN envelope;

-- lz4 compresses large values several times faster than the default pglz,
-- where the server has it (PostgreSQL 14 and later, built with lz4): with
-- pglz, classify spent a third of its time compressing envelopes.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    ALTER TABLE staged_envelopes ALTER COLUMN envelope SET COMPRESSION lz4;
    ALTER TABLE message_bodies ALTER COLUMN body_text SET COMPRESSION lz4;
  END IF;
END
$$;
