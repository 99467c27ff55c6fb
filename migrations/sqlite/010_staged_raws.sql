-- A staged message's raw bytes live in a table of their own, written once
-- when fetched and never again. classify and drain move a message's status
-- and labels many times; with the bytes in the same row every such update
-- rewrote them (docs/store.md, "Raw bytes and envelopes").
CREATE TABLE staged_message_raws (
  staged_message_id  INTEGER PRIMARY KEY REFERENCES staged_messages(id) ON DELETE CASCADE,
  raw                BLOB NOT NULL
);
INSERT INTO staged_message_raws (staged_message_id, raw) SELECT id, raw FROM staged_messages;
ALTER TABLE staged_messages DROP COLUMN raw;

-- drain copies everything of an envelope into the research tables; the
-- envelope of a drained message is never read again (classify --reclassify
-- writes a new one from the raw bytes).
UPDATE staged_messages SET envelope = NULL WHERE status = 'drained';
