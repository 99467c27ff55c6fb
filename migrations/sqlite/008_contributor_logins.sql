-- People are found by GitHub login (repos import, and the actors project
-- reads from mirror mail): one contributor per login, whatever its case (GitHub
-- logins are case-insensitive), so an import run twice, or two processes at
-- once, never make two people of one login. Rows without a login stay apart.

CREATE UNIQUE INDEX contributors_github_login_unique ON contributors (lower(github_login)) WHERE github_login IS NOT NULL;
