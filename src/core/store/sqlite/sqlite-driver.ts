import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Mutex } from '../mutex.js';
import {
  appendByInsert,
  type IntegrityReport,
  type SqlDriver,
  type SqlExecutor,
  type SqlRunResult,
  type SqlValue,
  type TableShape,
} from '../sql-driver.js';
import { sqliteCapabilities } from './sqlite-capabilities.js';
import { explainSqliteError, fileReplacedFailure } from './sqlite-errors.js';

type Statement = Database.Statement<unknown[]>;

/** Prepared statements kept for reuse. */
const STATEMENT_CACHE_SIZE = 100;

/**
 * The page size of a new store file (SQLite's default is 4 KiB). A
 * `sync` of 100,000 messages of list mail ran in 0.91 of the time and left
 * a file 0.88 of the size (docs/performance.md, "16 KiB pages"). A file
 * keeps the page size it was made with.
 */
const PAGE_BYTES = 16_384;

/** How much the WAL grows before a checkpoint copies it into the file, whatever the file's page size. */
const WAL_CHECKPOINT_BYTES = 400 * 1024 * 1024;

/** How long a write waits for another process's write lock before it fails, unless told otherwise. */
export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;

/**
 * better-sqlite3 is synchronous; this driver gives it the async shape the
 * store shares with Postgres. One connection serves the process, so a
 * transaction holds a mutex: an await inside it never lets another caller's
 * statement slip into it.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly capabilities = sqliteCapabilities;
  readonly displayName: string;
  readonly file: string | undefined;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  private readonly mutex = new Mutex();
  private readonly direct: SqlExecutor;

  private readonly busyTimeoutMs: number;
  /** The file's device and inode when it was opened: another file at the path later means ours was removed or replaced. */
  private readonly identity: string | undefined;

  constructor(path: string, options: { busyTimeoutMs?: number } = {}) {
    this.displayName = path;
    this.file = path === ':memory:' || path === '' ? undefined : path;
    this.busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    let db: Database.Database | undefined;
    try {
      db = new Database(path);
      // These two take effect only in a new, empty file. Free pages can then be handed back (reclaimSql).
      db.pragma(`page_size = ${PAGE_BYTES}`);
      db.pragma('auto_vacuum = INCREMENTAL');
      db.pragma('journal_mode = WAL');
      db.pragma('foreign_keys = ON');
      db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      db.pragma('synchronous = NORMAL');
      // A checkpoint copies the WAL into the file and syncs both. At SQLite's
      // default (every 1,000 pages) a large store checkpointed after nearly
      // every batch, each batch's inserts landing on pages of their own: on
      // 1,000,000 messages drain spent 143 s, 87-92 s at 100,000 pages of
      // 4 KiB. The WAL grows to about 400 MB while a stage runs and is removed
      // when it ends.
      const pageBytes = Number(db.pragma('page_size', { simple: true }));
      db.pragma(`wal_autocheckpoint = ${Math.round(WAL_CHECKPOINT_BYTES / pageBytes)}`);
    } catch (error) {
      db?.close();
      throw this.explain(error);
    }
    this.db = db;
    this.identity = fileIdentity(path);
    this.direct = {
      all: async (sql, params) => this.prepare(sql).all(...toSqlite(params)) as never[],
      get: async (sql, params) => this.prepare(sql).get(...toSqlite(params)) as never,
      run: async (sql, params) => runStatement(this.prepare(sql), params),
      exec: async (script) => void this.db.exec(script),
      stream: (sql, params, batchSize) => this.iterate(sql, params, batchSize),
      append: (shape, rows) =>
        appendByInsert((sql, params) => this.direct.run(sql, params), this.capabilities, shape, rows),
    };
  }

  /** better-sqlite3's iterate(): rows come from SQLite as they are taken, under the lock, which holds until the last batch. */
  async *stream<T>(sql: string, params: readonly SqlValue[], batchSize: number): AsyncIterable<T[]> {
    const release = await this.mutex.acquire();
    try {
      yield* this.iterate<T>(sql, params, batchSize);
    } catch (error) {
      throw this.explain(error);
    } finally {
      release();
    }
  }

  private async *iterate<T>(sql: string, params: readonly SqlValue[], batchSize: number): AsyncIterable<T[]> {
    let batch: T[] = [];
    for (const row of this.prepare(sql).iterate(...toSqlite(params))) {
      batch.push(row as T);
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.serialized(() => this.direct.all<T>(sql, params));
  }

  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.serialized(() => this.direct.get<T>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    return this.serialized(() => this.direct.run(sql, params));
  }

  /** In one transaction, as a COPY is on PostgreSQL: a row refused leaves none of the others. */
  append(shape: TableShape, rows: readonly (readonly SqlValue[])[]): Promise<void> {
    return this.transaction((tx) => tx.append(shape, rows));
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // Every statement here is synchronous: a stage that only talks to SQLite
    // would never return to the event loop, and a Ctrl-C or SIGTERM would
    // wait for the whole run. One turn of the loop per transaction lets it in.
    await new Promise((resolve) => setImmediate(resolve));
    return this.serialized(async () => {
      // IMMEDIATE takes the write lock up front, so two processes never
      // deadlock upgrading read locks; busy_timeout makes the second wait.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        this.checkFileKept();
        return result;
      } catch (error) {
        try {
          if (this.db.inTransaction) this.db.exec('ROLLBACK');
        } catch {
          // SQLite rolls back by itself when it cannot (a full disk): the first error is the one to report.
        }
        throw error;
      }
    });
  }

  /**
   * A deferred BEGIN: the first read takes the snapshot, and on a WAL
   * database a reader holds no lock a writer waits for. query_only makes a
   * write inside it fail, as PostgreSQL's READ ONLY does. While it is open
   * a checkpoint cannot go past its snapshot, so the WAL grows with what
   * others write until it ends.
   */
  async readSnapshot<T>(fn: (snapshot: SqlExecutor) => Promise<T>): Promise<T> {
    await new Promise((resolve) => setImmediate(resolve));
    return this.serialized(async () => {
      this.db.pragma('query_only = ON');
      try {
        this.db.exec('BEGIN DEFERRED');
        try {
          return await fn(this.direct);
        } finally {
          if (this.db.inTransaction) this.db.exec('COMMIT');
        }
      } finally {
        this.db.pragma('query_only = OFF');
      }
    });
  }

  exec(script: string): Promise<void> {
    return this.serialized(() => this.direct.exec(script));
  }

  /** PRAGMA quick_check: every page and record well formed, in O(N) (integrity_check also matches each index to its table, and costs far more). */
  async checkIntegrity(): Promise<IntegrityReport> {
    this.checkFileKept();
    const rows = await this.all<{ quick_check: string }>('PRAGMA quick_check(20)');
    const problems = rows.map((row) => String(row.quick_check)).filter((line) => line !== 'ok');
    return { checked: `SQLite: PRAGMA quick_check of ${this.displayName}`, problems };
  }

  /** A run noticing at its next commit that its file was removed or replaced stops instead of reporting work it lost. */
  private checkFileKept(): void {
    if (this.identity === undefined || fileIdentity(this.displayName) === this.identity) return;
    throw fileReplacedFailure(this.displayName);
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.db.open) this.db.close();
    });
  }

  /** One caller at a time; the engine's failures come out as sentences about the file. */
  private async serialized<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.mutex.run(fn);
    } catch (error) {
      throw this.explain(error);
    }
  }

  private explain(error: unknown): unknown {
    return explainSqliteError(error, this.displayName, this.busyTimeoutMs);
  }

  /**
   * A prepared statement per SQL text, the most recently used kept. A
   * statement evicted here keeps its native memory until V8 collects it, so
   * texts must be few: batch statements take chunkRows' lengths (at most ten
   * per statement); the bound guards against any that do not.
   */
  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement) {
      this.statements.delete(sql);
    } else {
      statement = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, statement);
    return statement;
  }
}

/** "device:inode" of a file on disk; undefined for an in-memory database, "missing" when no file is there. */
function fileIdentity(path: string): string | undefined {
  if (path === ':memory:' || path === '') return undefined;
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return 'missing';
  }
}

function runStatement(statement: Statement, params: readonly SqlValue[] | undefined): SqlRunResult {
  if (!statement.reader) return { changes: statement.run(...toSqlite(params)).changes };
  // A write with RETURNING is a reader to better-sqlite3; count what it returned.
  return { changes: statement.all(...toSqlite(params)).length };
}

function toSqlite(params: readonly SqlValue[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((value) => {
    if (value === true) return 1;
    if (value === false) return 0;
    if (value instanceof Date) return value.toISOString();
    if (value === null || Buffer.isBuffer(value) || typeof value !== 'object') return value;
    return JSON.stringify(value);
  });
}
