import type { SqlCapabilities } from '../sql-driver.js';

/** What PostgreSQL does its own way, for the SQL the store writes once (sql-driver.ts). */
export const postgresCapabilities: SqlCapabilities = {
  maxParameters: 65_000,
  migrationLockSql: 'SELECT pg_advisory_xact_lock(4711204611)',
  jsonParameter: 'CAST(? AS JSONB)',
  idParameter: 'CAST(? AS BIGINT)',
  newIdsSql: (table) =>
    `SELECT nextval(pg_get_serial_sequence('${table}', 'id')) AS id FROM generate_series(1, CAST(? AS INTEGER))`,
  byteOrder: (column) => `(${column} COLLATE "C")`,
  // timestamptz as text follows the session's TimeZone; the month must not.
  utcMonth: (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM')`,
  analyzeSql: (tables) =>
    `ANALYZE ${tables.map(({ table, columns }) => (columns ? `${table} (${columns.join(', ')})` : table)).join(', ')}`,
  // Autovacuum makes the space of deleted rows reusable; a file never shrinks by itself.
  reclaimSql: '',
  concurrentTransactions: true,
};
