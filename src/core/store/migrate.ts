import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OperationError } from '../errors.js';
import type { SqlDriver } from './sql-driver.js';

const MIGRATIONS_ROOT = fileURLToPath(new URL('../../../migrations/', import.meta.url));

export interface Migration {
  name: string;
  checksum: string;
  sql: string;
}

export function readMigrations(dialect: SqlDriver['dialect'], root = MIGRATIONS_ROOT): Migration[] {
  const folder = `${root}${dialect}/`;
  return readdirSync(folder)
    .filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(folder + name, 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies what is missing, each migration in its own transaction with its
 * record. A database whose applied migration differs from the file, or that
 * knows a migration this version does not, is refused: running on a schema
 * the code does not expect is how data gets quietly damaged.
 */
export async function migrate(driver: SqlDriver, migrations = readMigrations(driver.dialect)): Promise<string[]> {
  const create =
    'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)';
  const lock = driver.capabilities.migrationLockSql;
  if (lock) {
    // Two processes opening a new PostgreSQL database at once both create the
    // table, and one fails on the catalog's unique index: the lock orders them.
    await driver.transaction(async (tx) => {
      await tx.exec(lock);
      await tx.exec(create);
    });
  } else {
    await driver.exec(create);
  }
  const applied: string[] = [];
  // Read first: when nothing is missing (the usual case) no write transaction
  // is taken, so opening never waits behind another process's writes.
  const recorded = new Map(
    (await driver.all<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations')).map((r) => [
      r.name,
      r.checksum,
    ]),
  );
  for (const migration of migrations) {
    if (recorded.has(migration.name)) {
      if (recorded.get(migration.name) !== migration.checksum) throw changedMigration(driver, migration.name);
      continue;
    }
    const done = await driver.transaction(async (tx) => {
      if (lock) await tx.exec(lock);
      const row = await tx.get<{ checksum: string }>('SELECT checksum FROM schema_migrations WHERE name = ?', [
        migration.name,
      ]);
      if (row) {
        if (row.checksum !== migration.checksum) throw changedMigration(driver, migration.name);
        return false;
      }
      await tx.exec(migration.sql);
      await tx.run('INSERT INTO schema_migrations (name, checksum, applied_at) VALUES (?, ?, ?)', [
        migration.name,
        migration.checksum,
        new Date().toISOString(),
      ]);
      return true;
    });
    if (done) applied.push(migration.name);
  }
  const known = new Set(migrations.map((m) => m.name));
  const rows = await driver.all<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
  const unknown = rows.map((r) => r.name).filter((name) => !known.has(name));
  if (unknown.length) {
    throw new OperationError(
      `The database ${driver.displayName} has migration ${unknown[0]} that this listminer does not know.`,
      'It was written by a newer listminer; upgrade listminer to use it.',
    );
  }
  return applied;
}

function changedMigration(driver: SqlDriver, name: string): OperationError {
  return new OperationError(
    `The database ${driver.displayName} applied migration ${name} with different contents than this listminer has.`,
    'Use a database made by this version of listminer, or a new one.',
  );
}
