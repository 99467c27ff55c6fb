-- Raw bytes and envelopes in tables of their own (docs/store.md, "Raw bytes
-- and envelopes"). classify and drain change a staged message's status and
-- labels several times; its bytes and its envelope kept in the same row were
-- rewritten with every change.

-- The raw bytes of each staged message, written once when fetched. raw_codec
-- says how raw holds them: NULL, as they came (every row staged before this
-- migration, and mail that does not shrink); 'deflate', raw DEFLATE (RFC 1951).
CREATE TABLE staged_message_raws (
  staged_message_id  INTEGER PRIMARY KEY REFERENCES staged_messages(id) ON DELETE CASCADE,
  raw                BLOB NOT NULL,
  raw_codec          TEXT
);
INSERT INTO staged_message_raws (staged_message_id, raw) SELECT id, raw FROM staged_messages;
ALTER TABLE staged_messages DROP COLUMN raw;

-- What classify read out of a message, until drain has copied it into
-- email_messages and message_bodies (the body a second time). Kept in the
-- staged row, it grew the row by the body and left its page two-thirds
-- empty once drain took it out again.
CREATE TABLE staged_envelopes (
  staged_message_id  INTEGER PRIMARY KEY REFERENCES staged_messages(id) ON DELETE CASCADE,
  envelope           TEXT NOT NULL             -- JSON
);
INSERT INTO staged_envelopes (staged_message_id, envelope)
  SELECT id, envelope FROM staged_messages WHERE envelope IS NOT NULL AND status <> 'drained';
ALTER TABLE staged_messages DROP COLUMN envelope;
