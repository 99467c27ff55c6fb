-- A month whose read keeps failing (an export cut short every time) must not
-- hold its list back forever. Each failing run of a month counts here; at the
-- third in a row the month becomes a gap (gap_since): the fetch goes on to
-- the months after it and tries the gap again on every later run. A month
-- read whole leaves this table (docs/fetch.md).
CREATE TABLE month_failures (
  list_id          INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
  month            TEXT NOT NULL,
  failures         INTEGER NOT NULL,
  last_error       TEXT NOT NULL,
  first_failed_at  TEXT NOT NULL,
  last_failed_at   TEXT NOT NULL,
  gap_since        TEXT,
  PRIMARY KEY (list_id, month)
);
