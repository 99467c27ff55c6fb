import { mkdir, rename, rm, stat } from 'node:fs/promises';
import type { DuckDBAppender, DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Cell, Column } from './export-columns.js';
import type { FormatWriter, TableWriter } from './format-writer.js';

/**
 * What DuckDB may hold in memory before it spills the staged rows to its
 * temp directory. Less fails the COPY of mail with large bodies: a row
 * group is at least 2,048 rows whatever ROW_GROUP_SIZE asks (docs/export.md).
 */
export const DUCKDB_MEMORY_LIMIT = '256MB';

/**
 * About how many bytes of cells one Parquet row group holds. DuckDB's
 * writer buffers a whole row group, several times its cells' size; its
 * default of 122,880 rows is 180 MB of cells of email_messages with bodies,
 * more than the memory limit allows.
 */
const ROW_GROUP_BYTES = 8 * 1024 * 1024;
/** DuckDB rounds a smaller ROW_GROUP_SIZE up to this. */
const MIN_ROW_GROUP_ROWS = 2048;
const MAX_ROW_GROUP_ROWS = 122_880;

const STAGING_TABLE = 'listminer_export';

/**
 * Parquet through DuckDB: each file's rows are appended batch by batch into
 * an in-memory DuckDB table of the declared schema, then `COPY … (FORMAT
 * parquet)` writes the file and the table is dropped. DuckDB keeps to
 * DUCKDB_MEMORY_LIMIT and spills to `tempDirectory` beyond it. The store is
 * never attached to DuckDB (its SQLite and Postgres scanners are extensions
 * it would download). The DuckDB module loads only when Parquet is asked for.
 */
export async function parquetFormat(tempDirectory: string): Promise<FormatWriter> {
  const duckdb = await import('@duckdb/node-api');
  await mkdir(tempDirectory, { recursive: true });
  const instance: DuckDBInstance = await duckdb.DuckDBInstance.create(':memory:', {
    memory_limit: DUCKDB_MEMORY_LIMIT,
    temp_directory: tempDirectory,
    preserve_insertion_order: 'true',
    // One thread: the writer buffers a row group per thread, and the export is bound by reading the store anyway.
    threads: '1',
  });
  const connection = await instance.connect();
  return {
    extension: 'parquet',
    open: (path, columns) => openParquetFile(connection, duckdb.timestampTZValue, path, columns),
    async close() {
      connection.closeSync();
      instance.closeSync();
      await rm(tempDirectory, { recursive: true, force: true });
    },
  };
}

type TimestampValue = Parameters<DuckDBAppender['appendTimestampTZ']>[0];

async function openParquetFile(
  connection: DuckDBConnection,
  timestampTZValue: (micros: bigint) => TimestampValue,
  path: string,
  columns: readonly Column[],
): Promise<TableWriter> {
  const partial = `${path}.partial`;
  await connection.run(`CREATE OR REPLACE TABLE ${STAGING_TABLE} (${columns.map((c) => `${quoteIdentifier(c.name)} ${c.type}`).join(', ')})`);
  const appender = await connection.createAppender(STAGING_TABLE);
  let open = true;
  let rowCount = 0;
  let cellBytes = 0;
  const closeAppender = () => {
    if (open) appender.closeSync();
    open = false;
  };
  const append = (cell: Cell, column: Column): void => {
    if (cell === null) return appender.appendNull();
    switch (column.type) {
      case 'BIGINT':
        return appender.appendBigInt(BigInt(cell as number));
      case 'BOOLEAN':
        return appender.appendBoolean(cell as boolean);
      case 'TIMESTAMPTZ':
        return appender.appendTimestampTZ(timestampTZValue(BigInt(Date.parse(cell as string)) * 1000n));
      case 'VARCHAR':
        return appender.appendVarchar(cell as string);
    }
  };
  return {
    async write(rows) {
      for (const cells of rows) {
        columns.forEach((column, i) => {
          const cell = cells[i] ?? null;
          cellBytes += typeof cell === 'string' ? cell.length : 8;
          append(cell, column);
        });
        appender.endRow();
      }
      rowCount += rows.length;
      // Hands the batch to DuckDB, which may spill it, instead of holding it in the appender.
      appender.flushSync();
    },
    async finish() {
      closeAppender();
      const rowGroupSize = rowGroupRows(rowCount, cellBytes);
      await connection.run(`COPY ${STAGING_TABLE} TO ${quoteLiteral(partial)} (FORMAT parquet, ROW_GROUP_SIZE ${rowGroupSize})`);
      await connection.run(`DROP TABLE ${STAGING_TABLE}`);
      await rename(partial, path);
      return (await stat(path)).size;
    },
    async abort() {
      try {
        closeAppender();
      } finally {
        await connection.run(`DROP TABLE IF EXISTS ${STAGING_TABLE}`);
        await rm(partial, { force: true });
      }
    },
  };
}

/** Rows per row group so that one holds about ROW_GROUP_BYTES of this file's cells. */
export function rowGroupRows(rows: number, bytes: number): number {
  if (rows === 0 || bytes === 0) return MAX_ROW_GROUP_ROWS;
  const perRow = bytes / rows;
  return Math.max(MIN_ROW_GROUP_ROWS, Math.min(MAX_ROW_GROUP_ROWS, Math.floor(ROW_GROUP_BYTES / perRow)));
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
