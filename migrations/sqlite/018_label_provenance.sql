-- Which rules made a label (docs/systems.md, "Provenance"): the sha256 of the
-- systems file's text classify ran with and listminer's version. The rule's
-- name is the part of class_source before ':'. Labels written before this
-- migration have neither (NULL: not recorded).
ALTER TABLE staged_messages ADD COLUMN rules_hash TEXT;
ALTER TABLE staged_messages ADD COLUMN listminer_version TEXT;
ALTER TABLE email_messages ADD COLUMN rules_hash TEXT;
ALTER TABLE email_messages ADD COLUMN listminer_version TEXT;

-- A label classify --reclassify replaced: the current label is on the
-- message's row, each one before it here, so a figure made from older rules
-- can be traced. Written only when the class, the rule or the captures change.
CREATE TABLE label_history (
  id                     INTEGER PRIMARY KEY,
  list_id                INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  message_key            TEXT NOT NULL,
  old_class              TEXT NOT NULL,
  new_class              TEXT NOT NULL,
  old_class_source       TEXT,
  new_class_source       TEXT NOT NULL,
  old_captures           TEXT,               -- JSON
  new_captures           TEXT NOT NULL,      -- JSON
  old_rules_hash         TEXT,               -- NULL: labelled before provenance was recorded
  new_rules_hash         TEXT NOT NULL,
  old_listminer_version  TEXT,
  listminer_version      TEXT NOT NULL,      -- the listminer that replaced the label
  relabelled_at          TEXT NOT NULL
);
CREATE INDEX label_history_message ON label_history (list_id, message_key);
