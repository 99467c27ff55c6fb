-- A thread project cannot write (the database refuses one of its rows) must
-- not hold its list back forever. When a batch of threads fails, project
-- tries its threads one by one; a thread that still fails is recorded here
-- with the error, the rest of the list is projected, and every later run
-- tries the recorded threads again one by one. A thread projected leaves this
-- table (docs/project.md).
CREATE TABLE project_failures (
  list_id    BIGINT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  -- email_messages.id of the thread's root.
  root_id    BIGINT NOT NULL,
  error      TEXT NOT NULL,
  failed_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (list_id, root_id)
);
