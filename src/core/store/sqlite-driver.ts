import Database from 'better-sqlite3';
import { Mutex } from './mutex.js';
import type { SqlDriver, SqlExecutor, SqlRunResult, SqlValue } from './sql-driver.js';

type Statement = Database.Statement<unknown[]>;

/**
 * better-sqlite3 is synchronous; this driver gives it the async shape the
 * store shares with Postgres. One connection serves the process, so a
 * transaction holds a mutex: an await inside it never lets another caller's
 * statement slip into it.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = 'sqlite' as const;
  readonly capabilities = {
    skipLockedClause: '',
    maxParameters: 32_766,
    migrationLockSql: '',
    jsonParameter: '?',
    relationExistsSql: "SELECT 1 AS present FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?",
    // Timestamps are ISO-8601 UTC text.
    utcMonth: (column: string) => `substr(${column}, 1, 7)`,
  };
  readonly displayName: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  private readonly mutex = new Mutex();
  private readonly direct: SqlExecutor;

  constructor(path: string) {
    this.db = new Database(path);
    this.displayName = path;
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 30000');
    this.db.pragma('synchronous = NORMAL');
    this.direct = {
      all: async (sql, params) => this.prepare(sql).all(...toSqlite(params)) as never[],
      get: async (sql, params) => this.prepare(sql).get(...toSqlite(params)) as never,
      run: async (sql, params) => runStatement(this.prepare(sql), params),
      exec: async (script) => void this.db.exec(script),
    };
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.mutex.run(() => this.direct.all<T>(sql, params));
  }

  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return this.mutex.run(() => this.direct.get<T>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    return this.mutex.run(() => this.direct.run(sql, params));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      // IMMEDIATE takes the write lock up front, so two processes never
      // deadlock upgrading read locks; busy_timeout makes the second wait.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.direct);
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  exec(script: string): Promise<void> {
    return this.mutex.run(() => this.direct.exec(script));
  }

  async close(): Promise<void> {
    await this.mutex.run(async () => {
      if (this.db.open) this.db.close();
    });
  }

  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
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
