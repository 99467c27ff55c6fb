import postgres from 'postgres';
import { redactUrl } from '../db-target.js';
import type { SqlDriver, SqlExecutor, SqlRunResult, SqlValue } from './sql-driver.js';

type Sql = postgres.Sql<Record<string, never>>;
type Queryable = Sql | postgres.TransactionSql<Record<string, never>>;

const toNumber = (x: string) => Number(x);

/**
 * Postgres through the `postgres` client. Counts and ids come back as
 * numbers and timestamps as ISO strings, the same shapes SQLite gives, so the
 * store above never asks which engine answered.
 */
export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly capabilities = {
    skipLockedClause: 'FOR UPDATE SKIP LOCKED',
    maxParameters: 65_000,
    migrationLockSql: 'SELECT pg_advisory_xact_lock(4711204611)',
    jsonParameter: 'CAST(? AS JSONB)',
    relationExistsSql: 'SELECT 1 AS present WHERE to_regclass(CAST(? AS TEXT)) IS NOT NULL',
    // timestamptz as text follows the session's TimeZone; the month must not.
    utcMonth: (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM')`,
  };
  readonly displayName: string;
  private readonly sql: Sql;
  private readonly placeholders = new Map<string, string>();

  constructor(url: string, options: { schema?: string } = {}) {
    this.displayName = redactUrl(url);
    this.sql = postgres(url, {
      max: 8,
      onnotice: () => {},
      connection: options.schema ? { search_path: options.schema } : {},
      types: {
        bigint: { to: 20, from: [20, 1700], parse: toNumber, serialize: (x: unknown) => String(x) },
        // The store hands JSON over as text (SQLite keeps it so); sending that
        // text as-is makes a real jsonb value rather than a JSON string of it.
        json: {
          to: 3802,
          from: [114, 3802],
          parse: (x: string) => JSON.parse(x),
          serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)),
        },
        date: {
          to: 1184,
          from: [1082, 1114, 1184],
          parse: (x: string) => new Date(x).toISOString(),
          serialize: (x: unknown) => (x instanceof Date ? x : new Date(String(x))).toISOString(),
        },
      } as never,
    }) as unknown as Sql;
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.query<T>(this.sql, sql, params);
  }

  async get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.query<T>(this.sql, sql, params))[0];
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    return this.runOn(this.sql, sql, params);
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const result = await this.sql.begin(async (tx) => {
      const executor: SqlExecutor = {
        all: (sql, params) => this.query(tx, sql, params),
        get: async (sql, params) => (await this.query(tx, sql, params))[0] as never,
        run: (sql, params) => this.runOn(tx, sql, params),
        exec: async (script) => void (await tx.unsafe(script)),
      };
      return fn(executor);
    });
    return result as T;
  }

  async exec(script: string): Promise<void> {
    await this.sql.unsafe(script);
  }

  async close(): Promise<void> {
    await this.sql.end({ timeout: 5 });
  }

  private async query<T>(on: Queryable, sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    const rows = await on.unsafe(this.numbered(sql), (params ?? []) as never[]);
    return rows as unknown as T[];
  }

  private async runOn(on: Queryable, sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    const result = await on.unsafe(this.numbered(sql), (params ?? []) as never[]);
    return { changes: result.count ?? 0 };
  }

  /** Rewrites `?` placeholders as `$1, $2, …`, leaving quoted text alone. */
  private numbered(sql: string): string {
    let cached = this.placeholders.get(sql);
    if (cached === undefined) {
      cached = numberPlaceholders(sql);
      this.placeholders.set(sql, cached);
    }
    return cached;
  }
}

export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === '?') {
      out += `$${++n}`;
    } else {
      out += ch;
    }
  }
  return out;
}
