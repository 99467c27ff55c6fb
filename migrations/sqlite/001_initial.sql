-- listminer schema, SQLite. Mirrors migrations/postgres/001_initial.sql table
-- for table and column for column. Timestamps are ISO-8601 UTC text, booleans
-- 0/1, JSON is text.

CREATE TABLE repos (
  id            INTEGER PRIMARY KEY,
  url           TEXT NOT NULL UNIQUE,          -- normalized: https://github.com/apache/kafka
  host          TEXT NOT NULL,
  owner         TEXT,
  name          TEXT NOT NULL,
  github_id     INTEGER,                       -- set by an import, when known
  created_at    TEXT NOT NULL
);

CREATE TABLE lists (
  id                 INTEGER PRIMARY KEY,
  system             TEXT NOT NULL,            -- archive system from systems.yaml
  name               TEXT NOT NULL,            -- list address, inbox name, or absolute path of a local source
  list_address       TEXT,                     -- dev@kafka.apache.org
  list_id            TEXT,                     -- List-Id header value: dev.kafka.apache.org
  rules_system       TEXT,                     -- whose rules classify it; NULL: the system's own
  base_url           TEXT,                     -- overrides the system's base URL
  repo_url           TEXT,
  repo_id            INTEGER REFERENCES repos(id) ON DELETE SET NULL,
  created_at         TEXT NOT NULL,
  -- fetch state
  first_month        TEXT,                     -- YYYY-MM, oldest month the archive holds
  last_month         TEXT,                     -- YYYY-MM, last month checkpointed
  scan_complete      INTEGER NOT NULL DEFAULT 0, -- last scan reached the present with no transient error
  last_run_at        TEXT,
  failed_attempts    INTEGER NOT NULL DEFAULT 0,
  last_failure       TEXT,
  last_failure_at    TEXT,
  retry_after        TEXT,                     -- not claimed before this time
  sidelined_at       TEXT,                     -- set after too many consecutive failures
  locked_at          TEXT,
  locked_pid         INTEGER,
  locked_boot_id     TEXT,
  locked_host        TEXT,
  UNIQUE (system, name)
);

CREATE TABLE fetched_months (
  list_id          INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  month            TEXT NOT NULL,              -- YYYY-MM
  messages_seen    INTEGER NOT NULL,
  messages_staged  INTEGER NOT NULL,
  fetched_at       TEXT NOT NULL,
  PRIMARY KEY (list_id, month)
);

-- Every raw message an archive handed over, kept with its bytes for good:
-- classify and --reclassify read it from here, never from the network.
CREATE TABLE staged_messages (
  id              INTEGER PRIMARY KEY,
  list_id         INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  message_key     TEXT NOT NULL,               -- normalized Message-ID, or a key derived from the content
  message_id      TEXT,                        -- normalized Message-ID header, NULL when absent
  content_hash    TEXT NOT NULL,               -- sha256 of the message less its transport headers
  raw             BLOB NOT NULL,
  size            INTEGER NOT NULL,
  archive_month   TEXT,                        -- YYYY-MM the archive filed it under
  status          TEXT NOT NULL DEFAULT 'staged', -- staged | classified | drained | deferred | shunted
  msg_class       TEXT,
  class_source    TEXT,
  captures        TEXT,                        -- JSON
  envelope        TEXT,                        -- JSON
  error           TEXT,
  fetched_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  UNIQUE (list_id, message_key)
);
CREATE INDEX staged_messages_status ON staged_messages (status, list_id);

-- public-inbox "d" commits: the archive removed a message it had published.
CREATE TABLE archive_deletions (
  list_id         INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  message_key     TEXT NOT NULL,
  source_ref      TEXT NOT NULL,               -- commit id or other archive reference
  deleted_at      TEXT,
  recorded_at     TEXT NOT NULL,
  PRIMARY KEY (list_id, source_ref)
);

CREATE TABLE circuit_breakers (
  host                  TEXT PRIMARY KEY,
  consecutive_failures  INTEGER NOT NULL DEFAULT 0,
  open_until            TEXT,
  updated_at            TEXT NOT NULL
);

CREATE TABLE contributors (
  id            INTEGER PRIMARY KEY,
  name          TEXT,
  email         TEXT UNIQUE,                   -- lower-cased
  github_login  TEXT,
  source        TEXT NOT NULL,                 -- email | github
  created_at    TEXT NOT NULL
);

CREATE TABLE issues (
  id              INTEGER PRIMARY KEY,         -- negative: synthesized from mail
  repo_id         INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number          INTEGER,
  external_key    TEXT,                        -- KAFKA-20167
  title           TEXT,
  state           TEXT,
  author_id       INTEGER REFERENCES contributors(id),
  is_synthetic    INTEGER NOT NULL DEFAULT 0,
  comment_count   INTEGER NOT NULL DEFAULT 0,
  url             TEXT,
  created_at      TEXT,
  updated_at      TEXT
);
CREATE UNIQUE INDEX issues_repo_external_key ON issues (repo_id, external_key) WHERE external_key IS NOT NULL AND external_key <> '';
CREATE UNIQUE INDEX issues_repo_number ON issues (repo_id, number) WHERE number IS NOT NULL;

CREATE TABLE pull_requests (
  id              INTEGER PRIMARY KEY,
  repo_id         INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  number          INTEGER NOT NULL,
  title           TEXT,
  state           TEXT,
  author_id       INTEGER REFERENCES contributors(id),
  url             TEXT,
  created_at      TEXT,
  merged_at       TEXT,
  UNIQUE (repo_id, number)
);

-- Bodies, stored once per distinct text: a cross-post is two email_messages
-- rows sharing one body.
CREATE TABLE message_bodies (
  id              INTEGER PRIMARY KEY,
  content_hash    TEXT NOT NULL UNIQUE,        -- sha256 of body_text
  body_text       TEXT NOT NULL,
  created_at      TEXT NOT NULL
);

CREATE TABLE email_messages (
  id                  INTEGER PRIMARY KEY,
  list_id             INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  message_key         TEXT NOT NULL,
  message_id          TEXT,
  staged_message_id   INTEGER REFERENCES staged_messages(id) ON DELETE SET NULL,
  repo_id             INTEGER REFERENCES repos(id) ON DELETE SET NULL,
  sender_id           INTEGER REFERENCES contributors(id),  -- NULL for bots and relays
  from_name           TEXT,
  from_address        TEXT,
  is_bot              INTEGER NOT NULL DEFAULT 0,
  subject             TEXT,
  sent_at             TEXT,                    -- UTC
  sent_at_offset      INTEGER,                 -- the sender's UTC offset, minutes
  in_reply_to         TEXT,
  references_ids      TEXT,                    -- JSON array of Message-IDs
  thread_root_key     TEXT,                    -- message_key of the thread's root
  thread_root_id      INTEGER,                 -- email_messages.id of that root
  msg_class           TEXT NOT NULL,
  class_source        TEXT,
  captures            TEXT,                    -- JSON
  has_patch           INTEGER NOT NULL DEFAULT 0,
  patch_version       INTEGER,
  patch_index         INTEGER,
  patch_total         INTEGER,
  is_rfc              INTEGER NOT NULL DEFAULT 0,
  is_resend           INTEGER NOT NULL DEFAULT 0,
  trailers            TEXT,                    -- JSON array of {kind, name, address}
  size                INTEGER,
  body_stored         INTEGER NOT NULL DEFAULT 1,
  signaled_repo_url   TEXT,
  signaled_repo_id    INTEGER REFERENCES repos(id) ON DELETE SET NULL,
  projected_kind      TEXT,                    -- outcome of project: linked | created | inherited | mirror | none
  drained_at          TEXT NOT NULL,
  UNIQUE (list_id, message_key)
);
CREATE INDEX email_messages_thread ON email_messages (list_id, thread_root_id);
CREATE INDEX email_messages_message_id ON email_messages (message_id);
CREATE INDEX email_messages_signaled ON email_messages (signaled_repo_url) WHERE signaled_repo_url IS NOT NULL;

CREATE TABLE email_message_bodies (
  email_message_id  INTEGER PRIMARY KEY REFERENCES email_messages(id) ON DELETE CASCADE,
  body_id           INTEGER NOT NULL REFERENCES message_bodies(id)
);

CREATE TABLE issue_email_messages (
  issue_id          INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
  email_message_id  INTEGER NOT NULL REFERENCES email_messages(id) ON DELETE CASCADE,
  role              TEXT NOT NULL,             -- event | comment | mirror
  PRIMARY KEY (issue_id, email_message_id)
);

CREATE TABLE pull_request_email_messages (
  pull_request_id   INTEGER NOT NULL REFERENCES pull_requests(id) ON DELETE CASCADE,
  email_message_id  INTEGER NOT NULL REFERENCES email_messages(id) ON DELETE CASCADE,
  role              TEXT NOT NULL,
  PRIMARY KEY (pull_request_id, email_message_id)
);
