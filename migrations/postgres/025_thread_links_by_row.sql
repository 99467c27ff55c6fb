-- thread_links keyed by the drained row (email_messages.id) instead of by
-- (list, message key). The old key is a Message-ID, so each drained message
-- wrote its links into a random page of the key's index, and at a million
-- messages a batch of 512 changed a different page of it for nearly every
-- message. An id grows with each drained row: the links of a batch go to the
-- end of the key's index, onto a few pages (docs/performance.md). Ids of
-- drained rows never change (a row is only removed with its list), so the
-- links of a message are read by its id and the ancestor index still finds
-- the messages that wait for a parent. The links go with their message.
CREATE TABLE thread_links_by_row (
  email_message_id  BIGINT NOT NULL REFERENCES email_messages(id) ON DELETE CASCADE,
  position          INTEGER NOT NULL,          -- 0 = oldest: References order, then In-Reply-To
  list_id           BIGINT NOT NULL,           -- the message's list, for the ancestor index
  ancestor_id       TEXT NOT NULL,             -- a Message-ID it names as an ancestor
  CONSTRAINT thread_links_by_row_pkey PRIMARY KEY (email_message_id, position)
);
INSERT INTO thread_links_by_row (email_message_id, position, list_id, ancestor_id)
  SELECT m.id, t.position, t.list_id, t.ancestor_id
  FROM thread_links t JOIN email_messages m ON m.list_id = t.list_id AND m.message_key = t.message_key
  ORDER BY m.id, t.position;
DROP TABLE thread_links;
ALTER TABLE thread_links_by_row RENAME TO thread_links;
ALTER TABLE thread_links RENAME CONSTRAINT thread_links_by_row_pkey TO thread_links_pkey;
CREATE INDEX thread_links_ancestor ON thread_links (list_id, ancestor_id);
