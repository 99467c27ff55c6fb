-- project looks up, for every tracker key its mail names, the repo's native
-- issue whose title starts with "[KEY]" (a Jira issue carried over to
-- GitHub). Without an index each lookup read every issue of the repo,
-- synthetic ones included: on 1,000,000 messages of Apache list mail
-- (53,840 issues) project spent two minutes so. The lookup is a range on
-- the title in byte order (docs/project.md), which SQLite's own order is.
CREATE INDEX issues_native_title ON issues (repo_id, title) WHERE is_synthetic = FALSE;
