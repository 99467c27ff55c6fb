-- The rows that hold a Message-ID under a variant key (a second mail that
-- reused an id another mail held first), by the id. A copy that arrives
-- under a held id is compared with every mail held under it, not only the
-- first, so the same mail in two forms is stored once in any order
-- (docs/store.md, "Identity"). Only variant rows are in it: a handful in a
-- list, so staging the ordinary mail writes nothing more.
CREATE INDEX staged_messages_variants ON staged_messages (list_id, message_id) WHERE message_key <> message_id;
