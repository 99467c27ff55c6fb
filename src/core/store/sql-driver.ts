/**
 * The one seam between the store and a database engine. SQL is written once,
 * with `?` placeholders, in the dialect both engines share (ON CONFLICT,
 * RETURNING, multi-row VALUES); each driver adapts placeholders, parameter
 * types and row values. What the engines cannot share is a capability here,
 * which each engine's folder (sqlite/, postgres/) fills in.
 */
export type SqlValue = string | number | bigint | boolean | null | Buffer | Date | object;

export interface SqlRunResult {
  changes: number;
}

export interface SqlExecutor {
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * The rows of one query in batches of `batchSize`, read as they are
   * consumed (a cursor), so a query over the whole store holds one batch.
   * Nothing else runs on the connection until the iteration ends.
   */
  stream<T = Record<string, unknown>>(sql: string, params: readonly SqlValue[], batchSize: number): AsyncIterable<T[]>;
  /**
   * Writes rows that are all new into a table. Nothing may refuse one: a
   * row a constraint refuses fails the whole call (and its transaction),
   * with the engine's reason. Each engine takes them its fastest way:
   * PostgreSQL in one binary COPY, SQLite in multi-row INSERTs.
   */
  append(shape: TableShape, rows: readonly (readonly SqlValue[])[]): Promise<void>;
}

/**
 * A column's type in the store's schema, as far as an engine that is sent
 * values in its binary form (PostgreSQL's COPY) must know it. Only the
 * types of the tables written with `append` are here. Values come as the
 * store gives them to either engine: numbers, booleans, text, timestamps as
 * ISO text (to the millisecond) and JSON as its text.
 */
export type ColumnType = 'bigint' | 'integer' | 'boolean' | 'timestamptz' | 'text' | 'jsonb' | 'bytea';

/**
 * A table whose planner statistics a run refreshes, and the columns its
 * statements look rows up, join or sort by: every column when none are named.
 */
export interface AnalyzedTable {
  table: string;
  columns?: readonly string[];
}

/** A table and the columns `append` gives values for, in the order each row gives them. */
export interface TableShape {
  readonly table: string;
  readonly columns: readonly (readonly [name: string, type: ColumnType])[];
}

export interface SqlCapabilities {
  /** Largest number of bound parameters one statement may carry. */
  readonly maxParameters: number;
  /** Statement that serializes migrations across processes inside a transaction ('' when the transaction already does). */
  readonly migrationLockSql: string;
  /** A placeholder for JSON text where nothing else tells the engine its type (a VALUES list). */
  readonly jsonParameter: string;
  /**
   * A placeholder for a row id in a VALUES list. PostgreSQL needs the type;
   * on SQLite a CAST makes the list a materialized table, and from about 300
   * rows on SQLite then scanned the whole table being updated for every batch.
   */
  readonly idParameter: string;
  /**
   * A query for the ids `?` new rows of the table will be written under, as
   * rows of `id`, before they are written. Run it inside the write
   * transaction that writes them: on SQLite the ids follow the table's
   * largest, which only that transaction's write lock keeps free; on
   * PostgreSQL they come from the table's sequence.
   */
  newIdsSql(table: string): string;
  /** A text column compared byte by byte, whatever the database's collation: `>=`/`<` on it then select a prefix. */
  byteOrder(column: string): string;
  /** The UTC month (`YYYY-MM`) of a timestamp column, as text. */
  utcMonth(column: string): string;
  /** The statement that refreshes the planner's statistics of these tables ('' when the engine plans without them). */
  analyzeSql(tables: readonly AnalyzedTable[]): string;
  /** The statement that hands the pages of deleted rows back to the file system ('' when the engine does not). */
  readonly reclaimSql: string;
  /**
   * Whether two transactions of one process run at once, each on a connection of its own
   * (PostgreSQL's pool), rather than one after the other on the one connection (SQLite).
   */
  readonly concurrentTransactions: boolean;
}

export interface SqlDriver extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  readonly capabilities: SqlCapabilities;
  /** Where the data lives, with any password removed. */
  readonly displayName: string;
  /** The file the database is, where the engine keeps it in one (SQLite); undefined otherwise. */
  readonly file: string | undefined;
  /** Runs fn in one transaction; nothing else on this driver interleaves with it. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs fn in one read-only transaction: every statement of it sees the
   * database as it was at its first read, whatever other connections commit
   * meanwhile, and none of them waits for it (SQLite: a read transaction on
   * the WAL; PostgreSQL: REPEATABLE READ READ ONLY on one connection). A
   * write inside it fails. Nothing else on this driver interleaves with it.
   */
  readSnapshot<T>(fn: (snapshot: SqlExecutor) => Promise<T>): Promise<T>;
  /** The engine's own check of its files and indexes: what was checked, and any damage found. */
  checkIntegrity(): Promise<IntegrityReport>;
  close(): Promise<void>;
}

/** What the engine's integrity check looked at, and what it found wrong (empty when whole). */
export interface IntegrityReport {
  checked: string;
  problems: string[];
}

/**
 * Where records run their statements: the driver itself, or one transaction
 * of it. A session inside a transaction joins it when asked for another, so
 * a records method that needs a transaction of its own can be called both
 * ways and never nests one.
 */
export interface SqlSession extends SqlExecutor {
  readonly capabilities: SqlCapabilities;
  readonly inTransaction: boolean;
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  /** fn over one read-only snapshot of the database (SqlDriver.readSnapshot); taken outside any transaction only. */
  readSnapshot<T>(fn: (snapshot: SqlSession) => Promise<T>): Promise<T>;
}

/** The session of the driver itself: each transaction it opens is a new one. */
export function driverSession(driver: SqlDriver): SqlSession {
  return {
    capabilities: driver.capabilities,
    inTransaction: false,
    all: (sql, params) => driver.all(sql, params),
    get: (sql, params) => driver.get(sql, params),
    run: (sql, params) => driver.run(sql, params),
    exec: (script) => driver.exec(script),
    stream: (sql, params, batchSize) => driver.stream(sql, params, batchSize),
    append: (shape, rows) => driver.append(shape, rows),
    transaction: (fn) => driver.transaction((executor) => fn(transactionSession(executor, driver.capabilities))),
    readSnapshot: (fn) => driver.readSnapshot((executor) => fn(transactionSession(executor, driver.capabilities))),
  };
}

function transactionSession(executor: SqlExecutor, capabilities: SqlCapabilities): SqlSession {
  const session: SqlSession = {
    capabilities,
    inTransaction: true,
    all: (sql, params) => executor.all(sql, params),
    get: (sql, params) => executor.get(sql, params),
    run: (sql, params) => executor.run(sql, params),
    exec: (script) => executor.exec(script),
    stream: (sql, params, batchSize) => executor.stream(sql, params, batchSize),
    append: (shape, rows) => executor.append(shape, rows),
    transaction: (fn) => fn(session),
    // A transaction already sees what it sees: on PostgreSQL (READ COMMITTED) not one moment, so none is promised.
    readSnapshot: () => Promise.reject(new Error('a read snapshot is taken outside any transaction')),
  };
  return session;
}

/** Builds `(?, ?, ?), (?, ?, ?)` for a multi-row VALUES list. */
export function valuesPlaceholders(rowCount: number, columnCount: number): string {
  const row = `(${new Array(columnCount).fill('?').join(', ')})`;
  return new Array(rowCount).fill(row).join(', ');
}

/** The most rows one statement writes or names: a whole batch of a stage (BATCH_MESSAGES). */
export const MAX_CHUNK_ROWS = 512;

/**
 * Splits rows into chunks whose bound parameters stay under the driver's
 * limit, each a power of two long (a batch of 500 goes as 256, 128, 64, 32,
 * 16 and 4). Every length makes a statement text of its own, and a prepared
 * statement holds its program in native memory until V8 collects it: with
 * every length from 1 to 500, SQLite's statement cache churned through
 * programs of up to a megabyte each that V8, its own heap small, left
 * uncollected, and drain of 1,000,000 messages grew to 410 MB
 * (docs/performance.md). Ten lengths stay prepared and are reused.
 */
export function chunkRows<T>(
  rows: readonly T[],
  columnCount: number,
  capabilities: Partial<SqlCapabilities> & Pick<SqlCapabilities, 'maxParameters'>,
): T[][] {
  const fit = Math.max(1, Math.min(MAX_CHUNK_ROWS, Math.floor(capabilities.maxParameters / columnCount)));
  let size = 2 ** Math.floor(Math.log2(fit));
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) {
    while (size > rows.length - i) size /= 2;
    chunks.push(rows.slice(i, i + size));
  }
  return chunks;
}

/** `append` as multi-row INSERTs, for an engine with nothing faster. */
export async function appendByInsert(
  run: SqlExecutor['run'],
  capabilities: SqlCapabilities,
  shape: TableShape,
  rows: readonly (readonly SqlValue[])[],
): Promise<void> {
  const names = shape.columns.map(([name]) => name);
  for (const chunk of chunkRows(rows, names.length, capabilities))
    await run(
      `INSERT INTO ${shape.table} (${names.join(', ')}) VALUES ${valuesPlaceholders(chunk.length, names.length)}`,
      chunk.flat(),
    );
}

/** Builds `?, ?, ?` for an IN list. */
export function inPlaceholders(count: number): string {
  return new Array(count).fill('?').join(', ');
}
