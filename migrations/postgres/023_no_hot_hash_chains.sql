-- A PostgreSQL hash index puts every row of one value in one bucket, and an
-- insert walks that bucket's chain of pages from its first page to the one
-- with room: writing the n-th row of a value costs in proportion to n.
-- email_messages repeats its values: the tracker and the GitHub mirror send
-- much of an Apache dev list's mail from one address each (jira@apache.org
-- and git@apache.org, a fifth of it each in the benchmark's Kafka-like
-- archive), and most signaled mail names the list's own repository. Measured on one table: 100,000 rows of one address
-- took 2.1 s, the next 100,000 7.8 s, the next 15.4 s; into a btree 0.3 s
-- each. At 1,000,000 messages drain, project and each people merge (which
-- rewrites a sender's rows) spent most of their server time there
-- (docs/performance.md). Hash indexes stay where values are one row each
-- (contributors, repos, issues, identities: docs/store.md, "Bounded index keys").
--
-- No query needs email_messages by from_address: a merge re-points mail by
-- sender_id, whose btree index it reads. A signaled repository URL is looked
-- up only while no registered repo resolves it (`repos add` ties that mail,
-- `stats` lists those URLs): a partial btree of those rows, keyed by id, is
-- all the lookup reads, and mail whose repo is registered is not in it.
-- SQLite has no such chains, but names the same indexes (and writes two fewer).
DROP INDEX IF EXISTS email_messages_from_address;
DROP INDEX IF EXISTS email_messages_signaled;
CREATE INDEX email_messages_unresolved_signal ON email_messages (id)
  WHERE signaled_repo_url IS NOT NULL AND signaled_repo_id IS NULL;
