-- One per-list writer lock for every stage that needs one (fetch, drain,
-- project), each stage's lock apart so fetching a list never waits for
-- draining it. The locks fetch kept on lists and drain kept in drain_locks
-- move here.

CREATE TABLE stage_locks (
  list_id         INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  stage           TEXT NOT NULL,
  locked_at       TEXT,
  locked_pid      INTEGER,
  locked_boot_id  TEXT,
  locked_host     TEXT,
  PRIMARY KEY (list_id, stage)
);

INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host)
  SELECT id, 'fetch', locked_at, locked_pid, locked_boot_id, locked_host FROM lists WHERE locked_at IS NOT NULL;
INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host)
  SELECT list_id, 'drain', locked_at, locked_pid, locked_boot_id, locked_host FROM drain_locks WHERE locked_at IS NOT NULL;

DROP TABLE drain_locks;
ALTER TABLE lists DROP COLUMN locked_at;
ALTER TABLE lists DROP COLUMN locked_pid;
ALTER TABLE lists DROP COLUMN locked_boot_id;
ALTER TABLE lists DROP COLUMN locked_host;
