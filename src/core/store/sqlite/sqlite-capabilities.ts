import type { SqlCapabilities } from '../sql-driver.js';

/** What SQLite does its own way, for the SQL the store writes once (sql-driver.ts). */
export const sqliteCapabilities: SqlCapabilities = {
  // SQLite takes 32,766, but a prepared statement's program grows with its parameters (ten lengths of a
  // 512-row INSERT into email_messages, 35 columns a row, hold 3 MiB), and a run keeps its statements.
  maxParameters: 4_096,
  // BEGIN IMMEDIATE already holds the file's one write lock.
  migrationLockSql: '',
  jsonParameter: '?',
  idParameter: '?',
  newIdsSql: (table) =>
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT (SELECT COALESCE(MAX(id), 0) FROM ${table}) + i AS id FROM n`,
  // SQLite's default collation, BINARY, is the byte order of UTF-8.
  byteOrder: (column) => column,
  // Timestamps are ISO-8601 UTC text.
  utcMonth: (column) => `substr(${column}, 1, 7)`,
  // The store's queries are written so SQLite picks the right index without statistics.
  analyzeSql: () => '',
  reclaimSql: 'PRAGMA incremental_vacuum',
  concurrentTransactions: false,
};
