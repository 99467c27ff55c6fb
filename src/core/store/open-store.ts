import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseDbTarget, type StoreTimeouts } from '../db-target.js';
import { InputError } from '../errors.js';
import { migrate } from './migrate.js';
import type { SqlDriver } from './sql-driver.js';
import { Store } from './store.js';

export interface OpenStoreOptions extends StoreTimeouts {
  /** Postgres schema to work in (tests give each suite its own). */
  schema?: string;
}

/**
 * The one place that picks a driver; each engine's folder (sqlite/,
 * postgres/) is imported only when chosen. Each engine turns its own failures
 * (a locked, full, read-only or unreachable database) into sentences (its
 * errors module); this refuses what is wrong in the address itself. It
 * applies no migration (openStore does).
 */
export async function openDriver(value: string, options: OpenStoreOptions = {}): Promise<SqlDriver> {
  const target = parseDbTarget(value);
  switch (target.kind) {
    case 'sqlite': {
      if (target.path !== ':memory:' && !existsSync(dirname(target.path))) {
        throw new InputError(
          `Cannot create the SQLite database ${target.path}: the folder ${dirname(target.path)} does not exist.`,
          'Create the folder or choose another --db path.',
        );
      }
      if (statSync(target.path, { throwIfNoEntry: false })?.isDirectory()) {
        throw new InputError(
          `${target.path} is a folder, not a database file.`,
          `Give a file path, for example ${target.path.replace(/\/+$/, '')}/listminer.db.`,
        );
      }
      const { SqliteDriver } = await import('./sqlite/sqlite-driver.js');
      return new SqliteDriver(target.path, { busyTimeoutMs: options.busyTimeoutMs });
    }
    case 'postgres': {
      const { PostgresDriver } = await import('./postgres/postgres-driver.js');
      return PostgresDriver.connect(target.url, {
        schema: options.schema,
        connectTimeoutMs: options.connectTimeoutMs,
        queryTimeoutMs: options.queryTimeoutMs,
      });
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
    throw error;
  }
  return new Store(driver);
}

/**
 * Opens the store, runs fn, and closes the store however fn ends. A SQLite
 * file this call created is removed again when fn refuses the user's input
 * before anything was registered, so a mistyped command leaves no empty
 * database behind; but not when another process opened the file meanwhile
 * (two commands started at once on a new path), which would lose that
 * process's run.
 */
export async function withStore<T>(
  value: string,
  fn: (store: Store) => Promise<T>,
  options: OpenStoreOptions = {},
): Promise<T> {
  const target = parseDbTarget(value);
  const created =
    target.kind === 'sqlite' && target.path !== ':memory:' && !existsSync(target.path) ? target.path : undefined;
  const store = await openStore(value, options);
  let refused = false;
  try {
    return await fn(store);
  } catch (error) {
    refused = created !== undefined && error instanceof InputError && (await holdsNothing(store));
    throw error;
  } finally {
    await store.close();
    if (refused && !openElsewhere(created!))
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${created}${suffix}`, { force: true });
  }
}

/**
 * Whether another connection still has the SQLite file open, once this
 * process closed its own: in WAL mode the last connection to close removes
 * the -wal and -shm files, so their being there says another one is open.
 */
function openElsewhere(path: string): boolean {
  return existsSync(`${path}-wal`) || existsSync(`${path}-shm`);
}

async function holdsNothing(store: Store): Promise<boolean> {
  for (const table of ['lists', 'repos', 'staged_messages']) {
    if (await store.db.get(`SELECT 1 AS found FROM ${table} LIMIT 1`)) return false;
  }
  return true;
}
