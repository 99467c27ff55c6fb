import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { createTestStore, type TestStore } from './databases.js';

export interface RecordingStore {
  store(): TestStore;
  /** The SQL of every statement prepared since the test began, in order. */
  prepared(): string[];
  /** The query plan SQLite makes for the statement, one line per step, its `?` bound to `value`. */
  plan(sql: string, value?: string | number): Promise<string>;
}

/**
 * A fresh SQLite store per test of the calling describe, recording the SQL
 * better-sqlite3 prepares: tests of query plans take the statements the
 * store really runs, not copies of them.
 */
export function sqliteStoreRecordingStatements(): RecordingStore {
  let store: TestStore | undefined;
  let prepared: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called with .call(this) in its place
  const prepare = Database.prototype.prepare;

  beforeEach(async () => {
    store = await createTestStore('sqlite');
    prepared = [];
    Database.prototype.prepare = function (this: Database.Database, sql: string) {
      prepared.push(sql);
      return prepare.call(this, sql);
    } as typeof prepare;
  });

  afterEach(async () => {
    Database.prototype.prepare = prepare;
    await store?.dropDatabase();
  });

  return {
    store: () => store!,
    prepared: () => prepared,
    plan: async (sql, value = 1) => {
      const parameters = Array((sql.match(/\?/g) ?? []).length).fill(value);
      return (await store!.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, parameters))
        .map((row) => row.detail)
        .join(' | ');
    },
  };
}
