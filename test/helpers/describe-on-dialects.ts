import { afterAll, afterEach, beforeEach, describe, expect } from 'vitest';
import {
  copyTestDatabase,
  createTestDatabase,
  createTestStore,
  type Dialect,
  postgresSkipReason,
  type TestDatabase,
  type TestStore,
} from './databases.js';
import { e2eDialectSkip } from './postgres-sample.js';

/** Why a whole suite cannot run (e.g. the mail corpus is missing); undefined to run it. */
export interface DialectSuiteOptions {
  skip?: string;
  /** Run on these dialects only; the others are skipped with `onlyWhy` printed. */
  only?: readonly Dialect[];
  onlyWhy?: string;
  /** Run on both engines whatever the CLI suites' PostgreSQL sample (postgres-sample.ts); a suite with `only` is outside the sample too. */
  everyEngine?: boolean;
}

/** The databases of one dialect's run of a suite: each one `create()` makes is dropped after the suite. */
export interface DialectDatabases {
  dialect: Dialect;
  create(): Promise<TestDatabase>;
  /** A new database holding what `source` holds (copyTestDatabase), dropped with the others. */
  copy(source: TestDatabase): Promise<TestDatabase>;
}

/**
 * Declares the suite once per dialect. `title` takes `$dialect` as
 * describe.each does. The Postgres run is skipped, with the reason printed,
 * when the server cannot be reached (under CI=true databases.ts fails instead),
 * and a CLI suite's variant when this run leaves it out (postgres-sample.ts).
 */
function eachDialect(title: string, options: DialectSuiteOptions, body: (dialect: Dialect) => void): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const left =
      options.only && !options.only.includes(dialect)
        ? (options.onlyWhy ?? `the suite runs on ${options.only.join(', ')} only`)
        : undefined;
    const reason =
      options.skip ??
      left ??
      e2eDialectSkip(expect.getState().testPath, dialect, Boolean(options.everyEngine || options.only)) ??
      (dialect === 'postgres' ? postgresSkipReason : undefined);
    if (reason) console.warn(`skipping "${title.replace('$dialect', dialect)}": ${reason}`);
    describe.skipIf(Boolean(reason)).each([{ dialect }])(title, () => body(dialect));
  }
}

/**
 * A store suite on every dialect: each test gets a fresh store on a fresh
 * database (`getStore()` inside the test or its hooks), dropped after it.
 */
export function describeOnDialects(
  title: string,
  body: (getStore: () => TestStore, dialect: Dialect) => void,
  options: DialectSuiteOptions = {},
): void {
  eachDialect(title, options, (dialect) => {
    let store: TestStore | undefined;
    beforeEach(async () => {
      store = await createTestStore(dialect);
    });
    afterEach(async () => {
      await store?.dropDatabase();
      store = undefined;
    });
    body(() => {
      if (!store) throw new Error('getStore() is only available inside a test or its hooks');
      return store;
    }, dialect);
  });
}

/**
 * A suite that drives the CLI against database URLs, on every dialect. The
 * suite makes its databases with `databases.create()` (in beforeAll for one
 * shared by the suite, in a test for one of its own), or `databases.copy(db)`
 * for a store built once and handed to each test as it was built; all are
 * dropped after the suite.
 */
export function describeOnDialectDatabases(
  title: string,
  body: (databases: DialectDatabases) => void,
  options: DialectSuiteOptions = {},
): void {
  eachDialect(title, options, (dialect) => {
    const created: TestDatabase[] = [];
    afterAll(async () => {
      for (const database of created.splice(0)) await database.drop();
    });
    const kept = async (made: Promise<TestDatabase>) => {
      const database = await made;
      created.push(database);
      return database;
    };
    body({
      dialect,
      create: () => kept(createTestDatabase(dialect)),
      copy: (source) => kept(copyTestDatabase(source)),
    });
  });
}

/**
 * describeOnDialectDatabases for an end-to-end suite whose last test compares
 * what the two engines made (the same site, the same export): it runs on
 * both in every run, outside the PostgreSQL sample.
 */
export function describeAcrossEngines(title: string, body: (databases: DialectDatabases) => void): void {
  describeOnDialectDatabases(title, body, { everyEngine: true });
}
