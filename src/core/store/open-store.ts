import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseDbTarget } from '../db-target.js';
import { OperationError, ListminerError } from '../errors.js';
import { migrate } from './migrate.js';
import type { SqlDriver } from './sql-driver.js';
import { Store } from './store.js';

export interface OpenStoreOptions {
  /** Postgres schema to work in (tests give each suite its own). */
  schema?: string;
}

/** The one place that picks a driver; each is imported only when chosen. */
async function openDriver(value: string, options: OpenStoreOptions): Promise<SqlDriver> {
  const target = parseDbTarget(value);
  switch (target.kind) {
    case 'sqlite': {
      if (target.path !== ':memory:' && !existsSync(dirname(target.path))) {
        throw new OperationError(
          `Cannot create the SQLite database ${target.path}: the folder ${dirname(target.path)} does not exist.`,
          'Create the folder or choose another --db path.',
        );
      }
      const { SqliteDriver } = await import('./sqlite-driver.js');
      return new SqliteDriver(target.path);
    }
    case 'postgres': {
      const { PostgresDriver } = await import('./postgres-driver.js');
      return new PostgresDriver(target.url, options);
    }
    default: {
      const unknown: never = target;
      throw new Error(`unknown database kind ${JSON.stringify(unknown)}`);
    }
  }
}

/** Opens the database and brings its schema up to date. */
export async function openStore(value: string, options: OpenStoreOptions = {}): Promise<Store> {
  const driver = await openDriver(value, options);
  try {
    await migrate(driver);
  } catch (error) {
    await driver.close().catch(() => {});
    throw explainOpenError(error, driver.displayName);
  }
  return new Store(driver);
}

/** Opens the store, runs fn, and closes the store however fn ends. */
export async function withStore<T>(value: string, fn: (store: Store) => Promise<T>, options: OpenStoreOptions = {}): Promise<T> {
  const store = await openStore(value, options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function explainOpenError(error: unknown, where: string): unknown {
  if (error instanceof ListminerError) return error;
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT') {
    return new OperationError(`Cannot connect to the database ${where} (${code}).`, 'Is the PostgreSQL server running and reachable?');
  }
  if (code === '3D000' || code === '28P01' || code === '28000') {
    return new OperationError(`The database ${where} refused the connection: ${message}.`, 'Check the database name, user and password in the URL.');
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CANTOPEN') {
    return new OperationError(`Cannot open ${where} as a SQLite database: ${message}.`, 'Point --db at a listminer database file or a new path.');
  }
  return error;
}
