-- drain's own state. One writer per list: drain claims a list here (fetch
-- keeps its lock on the lists row, so the two stages never wait for each
-- other). And the thread links drain repairs roots from: every Message-ID a
-- drained message names as an ancestor, in header order, so the messages
-- that wait for a parent are found when that parent arrives.

CREATE TABLE drain_locks (
  list_id         INTEGER PRIMARY KEY REFERENCES lists(id) ON DELETE CASCADE,
  locked_at       TEXT,
  locked_pid      INTEGER,
  locked_boot_id  TEXT,
  locked_host     TEXT
);

CREATE TABLE thread_links (
  list_id       INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  message_key   TEXT NOT NULL,                 -- the drained message
  position      INTEGER NOT NULL,              -- 0 = oldest: References order, then In-Reply-To
  ancestor_id   TEXT NOT NULL,                 -- a Message-ID it names as an ancestor
  PRIMARY KEY (list_id, message_key, position)
);
CREATE INDEX thread_links_ancestor ON thread_links (list_id, ancestor_id);

-- drain reads a list's classified mail in id order, batch after batch; this
-- keeps each batch an index range, however much of the list is still waiting.
CREATE INDEX staged_messages_drain ON staged_messages (list_id, status, id);
