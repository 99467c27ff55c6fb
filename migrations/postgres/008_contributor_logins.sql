-- repos import finds people by GitHub login: one contributor per login, so
-- an import run twice, or two at once, never makes two people of one login.
-- Rows without a login (NULL) stay apart, as unique indexes let NULLs be.

CREATE UNIQUE INDEX contributors_github_login ON contributors (github_login);
