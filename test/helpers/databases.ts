import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { inject } from 'vitest';
import { migrate, readMigrations } from '../../src/core/store/migrate.js';
import { openDriver, openStore } from '../../src/core/store/open-store.js';
import type { SqlDriver } from '../../src/core/store/sql-driver.js';
import type { Store } from '../../src/core/store/store.js';

/**
 * Test databases for both dialects. Every call makes a fresh database (a temp
 * SQLite file, or a new database on the Postgres server) so suites run in
 * parallel without touching each other's rows.
 *
 * Postgres is at LISTMINER_TEST_PG (default postgres://postgres@127.0.0.1:5432/postgres).
 * Without a server the Postgres variants skip with the reason printed (see
 * describe-on-dialects.ts), except under CI=true, where a missing server fails the run.
 */
export const PG_ADMIN_URL = process.env.LISTMINER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type Dialect = 'sqlite' | 'postgres';

let pgAvailable: Promise<string | undefined> | undefined;

/** undefined when Postgres is usable, else why not. */
export function postgresUnavailable(): Promise<string | undefined> {
  pgAvailable ??= (async () => {
    const sql = postgres(PG_ADMIN_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
    try {
      await sql`SELECT 1`;
      return undefined;
    } catch (error) {
      return `PostgreSQL at ${PG_ADMIN_URL} is not reachable (${(error as Error).message})`;
    } finally {
      await sql.end({ timeout: 1 });
    }
  })();
  return pgAvailable;
}

/** Why the Postgres variants skip, or undefined when the server answers. */
export const postgresSkipReason = await postgresUnavailable();
if (postgresSkipReason && process.env.CI === 'true') {
  throw new Error(`${postgresSkipReason}; under CI=true the Postgres tests must run.`);
}

export interface TestDatabase {
  dialect: Dialect;
  /** What --db takes: a file path or a postgres:// URL. */
  url: string;
  drop(): Promise<void>;
}

/**
 * A Postgres database is left for the end of the run (postgres-teardown.ts drops
 * the run's databases together), so its drop() only closes what is connected to it.
 */
export function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  return makeTestDatabase(dialect);
}

/**
 * A new test database holding what `source` holds, for a suite that builds a
 * store once and hands each test its own: a copy of the SQLite file, or a
 * PostgreSQL database made with `source` as its template. Nothing may be
 * connected to `source` then (PostgreSQL waits a few seconds for sessions
 * still closing).
 */
export function copyTestDatabase(source: TestDatabase): Promise<TestDatabase> {
  return makeTestDatabase(source.dialect, source.url);
}

async function makeTestDatabase(dialect: Dialect, sourceUrl?: string): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-test-'));
    const url = join(dir, 'test.db');
    // The write-ahead log too, should a checkpoint not have emptied it.
    for (const suffix of sourceUrl ? ['', '-wal'] : [])
      if (existsSync(`${sourceUrl}${suffix}`)) copyFileSync(`${sourceUrl}${suffix}`, `${url}${suffix}`);
    return { dialect, url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `${inject('testDatabasePrefix')}${randomBytes(6).toString('hex')}`;
  const template = sourceUrl ? ` TEMPLATE ${new URL(sourceUrl).pathname.slice(1)}` : '';
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}${template}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    drop: async () => {
      const sql = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`;
      await sql.end();
    },
  };
}

/**
 * A new test database as an earlier listminer left it: the migrations before
 * `migration` applied, one list (id 1) of `list.system` tied to its
 * repository (id 1), and what `fill` writes through a driver that applies
 * no migration. The caller drops it.
 */
export async function createDatabaseBefore(
  dialect: Dialect,
  migration: string,
  list: { system: string; name: string; repoUrl: string },
  fill: (driver: SqlDriver, now: string) => Promise<void>,
): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  try {
    const driver = await openDriver(database.url);
    try {
      await migrate(
        driver,
        readMigrations(dialect).filter((m) => m.name < migration),
      );
      const now = new Date().toISOString();
      const [owner, name] = new URL(list.repoUrl).pathname.slice(1).split('/');
      await driver.run("INSERT INTO repos (url, host, owner, name, created_at) VALUES (?, 'github.com', ?, ?, ?)", [
        list.repoUrl,
        owner!,
        name!,
        now,
      ]);
      await driver.run('INSERT INTO lists (system, name, repo_url, repo_id, created_at) VALUES (?, ?, ?, 1, ?)', [
        list.system,
        list.name,
        list.repoUrl,
        now,
      ]);
      await fill(driver, now);
    } finally {
      await driver.close();
    }
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

export type TestStore = Store & { dropDatabase(): Promise<void>; url: string };

/** A fresh store on a fresh database; dropDatabase() closes the store and drops the database. */
export async function createTestStore(dialect: Dialect): Promise<TestStore> {
  const database = await createTestDatabase(dialect);
  const store = await openStore(database.url);
  return Object.assign(store, {
    url: database.url,
    dropDatabase: async () => {
      await store.close();
      await database.drop();
    },
  });
}

/** Opens the store at `url` (a test database the CLI writes), runs fn, and closes it however fn ends. */
export async function withStoreAt<T>(url: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The rows of one query against the store at `url`. */
export function queryAt<T>(url: string, sql: string, params: readonly string[] = []): Promise<T[]> {
  return withStoreAt(url, (store) => store.db.all<T>(sql, params));
}
