import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, postgresSkipReason, type TestStore } from '../helpers/databases.js';

/**
 * A PostgreSQL hash index keeps every row of one value in one bucket, and an
 * insert walks the bucket's pages from the first to one with room: the n-th
 * row of a value costs in proportion to n. On a column mail repeats (a From
 * address such as jira@apache.org, the repository a list's mail names) that
 * made drain, project and people merges slower with every message stored
 * (migrations/postgres/023_no_hot_hash_chains.sql, docs/store.md). A hash
 * index belongs only on a column whose values are one row each.
 */
const ONE_ROW_PER_VALUE: Record<string, string> = {
  contributors: 'one row per address (a unique exclusion constraint)',
  repos: 'one row per URL (a unique exclusion constraint)',
  issues: 'one issue per key of a repo',
  patch_series: 'one series per key of a list',
  identities: 'an address or login is one identity; a name is one per address it was seen with',
  person_merges: 'an evidence key merges once',
};

if (postgresSkipReason) console.warn(`skipping the hash index check: ${postgresSkipReason}`);

describe.skipIf(Boolean(postgresSkipReason))('hash indexes on PostgreSQL', () => {
  let store: TestStore;
  let hashed: Array<{ table_name: string; name: string }>;
  beforeAll(async () => {
    store = await createTestStore('postgres');
    hashed = await store.db.all<{ table_name: string; name: string }>(
      `SELECT t.relname AS table_name, c.relname AS name
       FROM pg_index i
       JOIN pg_class c ON c.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_am a ON a.oid = c.relam
       JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE n.nspname = current_schema() AND a.amname = 'hash'
       ORDER BY t.relname, c.relname`,
    );
  });
  afterAll(async () => {
    await store.dropDatabase();
  });

  it('index only tables whose hashed values are one row each, never email_messages', () => {
    expect(hashed.filter((index) => !(index.table_name in ONE_ROW_PER_VALUE))).toEqual([]);
    // The bounded keys of long values are still there.
    expect(hashed.map((index) => index.table_name)).toEqual(expect.arrayContaining(Object.keys(ONE_ROW_PER_VALUE)));
  });
});
