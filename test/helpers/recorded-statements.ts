import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { createTestStore, type TestStore } from './databases.js';

export interface PlanStep {
  id: number;
  parent: number;
  detail: string;
}

export interface RecordingStore {
  store(): TestStore;
  /** The SQL of every statement prepared since the test began, in order. */
  prepared(): string[];
  /** The query plan SQLite makes for the statement, one line per step, its `?` bound to `value`. */
  plan(sql: string, value?: string | number): Promise<string>;
  /** The same plan's steps, each with its id and its parent's (a step after another under one parent loops inside it). */
  planSteps(sql: string, value?: string | number): Promise<PlanStep[]>;
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

  const planSteps = (sql: string, value: string | number = 1) =>
    store!.db.all<PlanStep>(`EXPLAIN QUERY PLAN ${sql}`, Array((sql.match(/\?/g) ?? []).length).fill(value));

  return {
    store: () => store!,
    prepared: () => prepared,
    plan: async (sql, value) => (await planSteps(sql, value)).map((step) => step.detail).join(' | '),
    planSteps,
  };
}
