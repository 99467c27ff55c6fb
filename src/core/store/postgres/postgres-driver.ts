import { connect as connectSocket, type Socket } from 'node:net';
import postgres from 'postgres';
import { postgresAddress, redactUrl } from '../../db-target.js';
import type { StoreFailure } from '../store-failure.js';
import type { IntegrityReport, SqlDriver, SqlExecutor, SqlRunResult, SqlValue, TableShape } from '../sql-driver.js';
import { copyStatement, encodeBinaryCopy } from './binary-copy.js';
import { postgresCapabilities } from './postgres-capabilities.js';
import { explainPostgresError, interruptedFailure, notPostgresFailure, stalledFailure } from './postgres-errors.js';

type Sql = postgres.Sql<Record<string, never>>;
type Queryable = Sql | postgres.TransactionSql<Record<string, never>>;

const toNumber = (x: string) => Number(x);

/** How long to wait for the server to answer a new connection, unless told otherwise. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * How long one statement may go without an answer before the server counts
 * as gone, unless told otherwise (LISTMINER_PG_QUERY_TIMEOUT, seconds). A
 * link that silently stops forwarding packets sends no reset, and TCP
 * keepalive takes about 11 minutes on Linux to notice; this is the guard.
 * Long enough for the slowest statement a stage runs on a large archive.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 300_000;

/** After Ctrl-C or SIGTERM, how long a statement still running may take before the run stops without it. */
export const STOP_GRACE_MS = 3_000;

/**
 * Statement texts prepared on each connection, at most. A batch statement
 * has a text per chunk length (chunkRows), so a run repeats about 150 texts;
 * parsing and planning one of 512 rows for each batch cost PostgreSQL sync a
 * seventh of its time. A prepared statement stays on its connection (and in
 * the server's memory) while the connection lives: the cap bounds both.
 */
export const PREPARED_TEXTS = 200;

/** Texts remembered while they wait for their second use; beyond this, those never reused are forgotten. */
const UNPREPARED_TEXTS = 300;

export interface PostgresOptions {
  schema?: string;
  connectTimeoutMs?: number;
  /** Default: DEFAULT_QUERY_TIMEOUT_MS; the commands give LISTMINER_PG_QUERY_TIMEOUT's (chooseStoreTimeouts). */
  queryTimeoutMs?: number;
  /** Prepare statements that come back (PREPARED_TEXTS). Default: true unless LISTMINER_PG_PREPARE is `off`. */
  prepare?: boolean;
}

function prepareFromEnv(): boolean {
  return !/^(off|false|0|no)$/i.test(process.env.LISTMINER_PG_PREPARE ?? '');
}

/** A statement text as it is sent: its placeholders numbered, and whether it is prepared. */
interface SentText {
  text: string;
  prepare: boolean;
}

/** A statement's deadline; rearmed shorter when a stop signal comes. */
interface Deadline {
  timer?: NodeJS.Timeout;
}

/**
 * Postgres through the `postgres` client. Counts and ids come back as
 * numbers and timestamps as ISO strings, the same shapes SQLite gives, so the
 * store above never asks which engine answered.
 */
export class PostgresDriver implements SqlDriver {
  readonly dialect = 'postgres' as const;
  readonly capabilities = postgresCapabilities;
  readonly displayName: string;
  readonly file = undefined;
  private readonly sql: Sql;
  private readonly texts = new Map<string, SentText>();
  private readonly prepare: boolean;
  private prepared = 0;
  private readonly connectTimeoutMs: number;
  private readonly queryTimeoutMs: number;
  /** host:port, what the sentences about a silent server name. */
  private readonly host: string;
  private readonly deadlines = new Set<Deadline>();
  /** Set once the connections were given up; every statement after fails with it. */
  private failure: StoreFailure | undefined;
  /** How to fail each statement in flight when the connections are given up. */
  private readonly inFlight = new Set<(failure: StoreFailure) => void>();
  private stopping = false;
  private readonly onStop = () => this.stop();

  /** Opens the pool and proves the server answers as PostgreSQL; use this rather than the constructor. */
  static async connect(url: string, options: PostgresOptions = {}): Promise<PostgresDriver> {
    const driver = new PostgresDriver(url, options);
    await driver.checkConnection();
    return driver;
  }

  private constructor(url: string, options: PostgresOptions = {}) {
    this.displayName = redactUrl(url);
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const address = postgresAddress(url);
    this.host = address.display;
    this.prepare = options.prepare ?? prepareFromEnv();
    process.on('SIGINT', this.onStop);
    process.on('SIGTERM', this.onStop);
    this.sql = postgres(address.url, {
      // The URL's host as it reads it (a socket's directory unescaped) and the query string's host and port over the URL's.
      host: address.host,
      port: address.port,
      max: 8,
      // A documented option (README, "Custom socket") the client's types leave out.
      ...{ socket: noDelaySocket() },
      connect_timeout: this.connectTimeoutMs / 1000,
      onnotice: () => {},
      // listminer sends no arrays. The client's query for the server's array types runs where a failure of
      // it (a statement_timeout shorter than the query) reaches no caller and would end the process.
      fetch_types: false,
      connection: options.schema ? { search_path: options.schema } : {},
      types: {
        bigint: { to: 20, from: [20, 1700], parse: toNumber, serialize: (x: unknown) => String(x) },
        // The store hands JSON over as text (SQLite keeps it so); sending that
        // text as-is makes a real jsonb value rather than a JSON string of it.
        json: {
          to: 3802,
          from: [114, 3802],
          parse: (x: string): unknown => JSON.parse(x),
          serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)),
        },
        date: {
          to: 1184,
          from: [1082, 1114, 1184],
          parse: (x: string) => new Date(x).toISOString(),
          serialize: (x: unknown) => (x instanceof Date ? x : new Date(String(x))).toISOString(),
        },
      } as never,
    });
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.explained(() => this.query<T>(this.sql, sql, params));
  }

  async get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.explained(() => this.query<T>(this.sql, sql, params)))[0];
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    return this.explained(() => this.runOn(this.sql, sql, params));
  }

  /** Outside a transaction a COPY is one of its own: all of its rows are written, or none. */
  append(shape: TableShape, rows: readonly (readonly SqlValue[])[]): Promise<void> {
    return this.explained(() => this.copy(this.sql, shape, rows));
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.begin('', fn);
  }

  /**
   * REPEATABLE READ takes its snapshot at the first statement and keeps it
   * to the end; READ ONLY refuses writes. Neither waits for writers nor makes
   * them wait. While it is open VACUUM keeps the rows others delete or
   * replace, for its snapshot's sake.
   */
  readSnapshot<T>(fn: (snapshot: SqlExecutor) => Promise<T>): Promise<T> {
    return this.begin('isolation level repeatable read read only', fn);
  }

  /** A transaction on one connection of the pool, BEGIN taking `options` (its isolation and access mode). */
  private async begin<T>(options: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    // Its own statements have their deadlines; BEGIN (with the wait for a connection) and COMMIT or ROLLBACK get one here.
    const outside = this.arm();
    const result = await this.explained(() =>
      this.settled(
        this.sql.begin(options, async (tx) => {
          this.disarm(outside);
          const executor: SqlExecutor = {
            all: (sql, params) => this.query(tx, sql, params),
            get: async (sql, params) => (await this.query(tx, sql, params))[0] as never,
            run: (sql, params) => this.runOn(tx, sql, params),
            // Scripts (migrations, the migration lock) have no deadline: DDL over a large store, or waiting for
            // another process's migration, may rightly take longer than any statement a stage runs.
            exec: async (script) => void (await tx.unsafe(script)),
            stream: (sql, params, batchSize) => this.cursor(tx, sql, params, batchSize),
            append: (shape, rows) => this.copy(tx, shape, rows),
          };
          try {
            return await fn(executor);
          } finally {
            this.rearm(outside);
          }
        }),
      ).finally(() => this.disarm(outside)),
    );
    return result as T;
  }

  /** A server-side cursor: the client fetches batchSize rows at a time on one connection of the pool. */
  async *stream<T>(sql: string, params: readonly SqlValue[], batchSize: number): AsyncIterable<T[]> {
    try {
      yield* this.cursor<T>(this.sql, sql, params, batchSize);
    } catch (error) {
      throw this.explain(error);
    }
  }

  private async *cursor<T>(
    on: Queryable,
    sql: string,
    params: readonly SqlValue[],
    batchSize: number,
  ): AsyncIterable<T[]> {
    const rows = this.statement(on, sql, params).cursor(batchSize)[Symbol.asyncIterator]();
    try {
      for (;;) {
        // Each fetch of the next rows is a statement with its deadline.
        const next = await this.guarded(rows.next());
        if (next.done) return;
        yield next.value as unknown as T[];
      }
    } finally {
      if (!this.failure) await rows.return?.();
    }
  }

  async exec(script: string): Promise<void> {
    await this.explained(() => this.sql.unsafe(script));
  }

  /**
   * PostgreSQL has no quick whole-database check. What is cheap and says
   * something: indexes left invalid (a build that failed half way), the
   * pages the server found with a wrong checksum (when checksums are on),
   * and, when the amcheck extension is installed, the structure of every
   * B-tree index of the schema (bt_index_check takes only a share lock).
   */
  async checkIntegrity(): Promise<IntegrityReport> {
    const problems: string[] = [];
    const invalid = await this.all<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND NOT i.indisvalid ORDER BY 1`,
    );
    for (const row of invalid)
      problems.push(`index ${row.name} is invalid (a build of it failed); rebuild it with REINDEX`);
    const checksums = await this.get<{ failures: number | null }>(
      'SELECT checksum_failures AS failures FROM pg_stat_database WHERE datname = current_database()',
    );
    if (Number(checksums?.failures ?? 0) > 0)
      problems.push(`the server found ${checksums!.failures} pages with a wrong checksum`);
    const amcheck = await this.get<{ n: number }>("SELECT COUNT(*) AS n FROM pg_extension WHERE extname = 'amcheck'");
    let checked = 'PostgreSQL: invalid indexes and checksum failures of the database';
    if (Number(amcheck?.n ?? 0) > 0) {
      const indexes = await this.all<{ name: string }>(
        `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
           JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND a.amname = 'btree' AND i.indisvalid ORDER BY 1`,
      );
      for (const index of indexes) {
        try {
          await this.sql.unsafe('SELECT bt_index_check(CAST($1 AS regclass))', [
            `"${index.name.replaceAll('"', '""')}"`,
          ]);
        } catch (error) {
          problems.push(`index ${index.name}: ${(error as Error).message}`);
        }
      }
      checked += `, and amcheck's bt_index_check of its ${indexes.length} B-tree indexes`;
    } else {
      checked +=
        ' (index structure is not checked: the amcheck extension is not installed; CREATE EXTENSION amcheck adds it)';
    }
    return { checked, problems };
  }

  async close(): Promise<void> {
    process.off('SIGINT', this.onStop);
    process.off('SIGTERM', this.onStop);
    for (const deadline of this.deadlines) clearTimeout(deadline.timer);
    await this.sql.end({ timeout: this.failure ? 0 : 5 });
  }

  /**
   * A statement: it fails when the server has not answered within the
   * deadline (or, after a stop signal, within STOP_GRACE_MS), and then every
   * connection is destroyed, so a transaction in flight is rolled back by the
   * server and what was committed stays.
   */
  private guarded<T>(statement: PromiseLike<T>): Promise<T> {
    const deadline = this.arm();
    return this.settled(statement).finally(() => this.disarm(deadline));
  }

  /**
   * The statement, or the failure that gave the connections up, whichever
   * comes first. Each statement is forgotten once it settles: racing every
   * one against a single promise of that failure, which stays pending, kept
   * every result a run ever read alive (drain of 100,000 messages on
   * PostgreSQL peaked at 800 MB).
   */
  private settled<T>(statement: PromiseLike<T>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.inFlight.add(reject);
      Promise.resolve(statement)
        .then(resolve, reject)
        .finally(() => this.inFlight.delete(reject));
    });
  }

  private arm(): Deadline {
    const deadline: Deadline = {};
    this.deadlines.add(deadline);
    this.rearm(deadline);
    return deadline;
  }

  private rearm(deadline: Deadline): void {
    clearTimeout(deadline.timer);
    this.deadlines.add(deadline);
    if (this.stopping) deadline.timer = setTimeout(() => this.giveUp(interruptedFailure(this.host)), STOP_GRACE_MS);
    else
      deadline.timer = setTimeout(
        () => this.giveUp(stalledFailure(this.host, this.queryTimeoutMs)),
        this.queryTimeoutMs,
      );
  }

  private disarm(deadline: Deadline): void {
    clearTimeout(deadline.timer);
    this.deadlines.delete(deadline);
  }

  /** A stop signal: the batch being written may finish, but a statement the server does not answer is not waited for. */
  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    for (const deadline of this.deadlines) this.rearm(deadline);
  }

  private giveUp(failure: StoreFailure): void {
    if (this.failure) return;
    this.failure = failure;
    for (const deadline of this.deadlines) clearTimeout(deadline.timer);
    this.deadlines.clear();
    for (const fail of this.inFlight) fail(failure);
    this.inFlight.clear();
    // Destroys the sockets at once: nothing more can be said over a link that does not answer.
    this.sql.end({ timeout: 0 }).catch(() => {});
  }

  /**
   * The first query, raced against the connect timeout. The client retries a
   * connection the server closes before the handshake at once and forever
   * (a listener that is not PostgreSQL), and its own timer never fires then.
   */
  private async checkConnection(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      // A little after the client's own timeout, which reports a server that never answers.
      timer = setTimeout(() => resolve('timeout'), this.connectTimeoutMs + 1000);
    });
    const probe = this.sql.unsafe('SELECT 1');
    try {
      const outcome = await Promise.race([probe.then(() => 'ok' as const), gaveUp]);
      if (outcome === 'timeout') {
        probe.catch(() => {});
        throw notPostgresFailure(this.displayName, this.connectTimeoutMs);
      }
    } catch (error) {
      await this.sql.end({ timeout: 0 }).catch(() => {});
      throw this.explain(error);
    } finally {
      clearTimeout(timer);
    }
  }

  private async explained<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw this.explain(error);
    }
  }

  private explain(error: unknown): unknown {
    return explainPostgresError(error, this.displayName, this.connectTimeoutMs);
  }

  private async query<T>(on: Queryable, sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    const rows = await this.guarded(this.statement(on, sql, params));
    return rows as unknown as T[];
  }

  private async runOn(on: Queryable, sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
    const result = await this.guarded(this.statement(on, sql, params));
    return { changes: result.count ?? 0 };
  }

  /**
   * The rows in one binary COPY, sent in one piece. The client (postgres
   * 3.4.9) settles neither the COPY's stream nor the statement when the
   * server refuses the rows after the last of them has gone: only the
   * statement's own reject is called (porsager/postgres#1173), so it is
   * watched here, and the transaction then fails and rolls back as for
   * any other statement.
   */
  private async copy(on: Queryable, shape: TableShape, rows: readonly (readonly SqlValue[])[]): Promise<void> {
    if (rows.length === 0) return;
    const payload = encodeBinaryCopy(shape, rows);
    const statement = on.unsafe(copyStatement(shape)) as ReturnType<Queryable['unsafe']> & {
      reject: (error: unknown) => void;
    };
    const refused = new Promise<never>((_, reject) => {
      const own = statement.reject;
      statement.reject = (error) => {
        reject(error);
        own(error);
      };
    });
    const written = statement.writable().then(
      (stream) =>
        new Promise<void>((resolve, reject) => {
          stream.on('error', reject);
          stream.end(payload, () => resolve());
        }),
    );
    await this.guarded(Promise.race([written, refused]));
  }

  /** `sql` with its parameters, as the client sends it. */
  private statement(on: Queryable, sql: string, params: readonly SqlValue[] = []) {
    const { text, prepare } = this.sent(sql);
    return on.unsafe(text, params as never[], { prepare });
  }

  /**
   * The text to send for `sql`, its `?` placeholders numbered `$1, $2, …`. A
   * text is prepared from its second use on, until PREPARED_TEXTS are: a
   * text used once (an IN list of one batch's length) is not worth a
   * statement kept on the server.
   */
  private sent(sql: string): SentText {
    let sent = this.texts.get(sql);
    if (sent === undefined) {
      if (this.texts.size >= PREPARED_TEXTS + UNPREPARED_TEXTS)
        for (const [key, value] of this.texts) if (!value.prepare) this.texts.delete(key);
      sent = { text: numberPlaceholders(sql), prepare: false };
      this.texts.set(sql, sent);
    } else if (!sent.prepare && this.prepare && this.prepared < PREPARED_TEXTS) {
      sent.prepare = true;
      this.prepared++;
    }
    return sent;
  }
}

/**
 * The client's connections with Nagle's algorithm off, as libpq opens
 * them: postgres.js leaves it on, and the last message of a COPY (5 bytes)
 * then waited for the server's delayed acknowledgement of the rows before
 * it, 40 ms on Linux for every COPY. Several hosts are tried in turn, each
 * connection the next, as the client does with its own sockets.
 */
function noDelaySocket(): (options: { host: string[]; port: number[]; path?: string | false }) => Socket {
  let next = 0;
  return ({ host, port, path }) => {
    if (path) return connectSocket({ path });
    const index = next++ % host.length;
    // The client gives a port for each host, in the same order.
    const at = { host: host[index]!, port: port[index]! };
    // host and port are what the client's own sentences name ("write CONNECT_TIMEOUT host:port").
    return Object.assign(connectSocket({ ...at, noDelay: true }), at);
  };
}

export function numberPlaceholders(sql: string): string {
  // One replace makes one flat string. Appending a character at a time made a rope of a
  // node per character (a batch INSERT's text, 40 KB, took over 1 MB of heap), and the
  // driver kept a hundred of them: drain of 100,000 messages peaked at 800 MB.
  let n = 0;
  return sql.replace(/'[^']*'?|"[^"]*"?|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}
