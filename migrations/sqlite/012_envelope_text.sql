-- PostgreSQL's 012 keeps the envelope as JSON text, not jsonb. SQLite has
-- kept it as TEXT since 010: nothing to change here.
SELECT 1;
