import { resolve } from 'node:path';
import { InputError } from './errors.js';

export const DEFAULT_DB = './listminer.db';

export type DbTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** Where a PostgreSQL URL points, and the URL to give the client. */
export interface PostgresAddress {
  /** The URL without the `host` and `port` settings of its query string, which the client would send the server as settings of the session. */
  url: string;
  /** A host name, or the directory of the server's unix socket; '' when the URL names none. */
  host: string;
  /** The port of the `port` setting, else of the URL, else undefined (5432). */
  port: number | undefined;
  /** What a sentence about the server names: host:port, or the socket's path. */
  display: string;
}

/**
 * A PostgreSQL URL read as libpq reads one: the `host` and `port` settings of
 * the query string stand over the URL's own host and port, and a host that
 * starts with `/` is the directory of the server's unix socket, written
 * %2F-escaped when it is the URL's host
 * (postgres://me@%2Fvar%2Frun%2Fpostgresql/db, or postgres://me@localhost/db?host=/var/run/postgresql).
 */
export function postgresAddress(value: string): PostgresAddress {
  const url = new URL(value);
  const given = { host: url.searchParams.get('host'), port: url.searchParams.get('port') };
  url.searchParams.delete('host');
  url.searchParams.delete('port');
  const own = decodeURIComponent(url.hostname);
  const host = given.host ?? own;
  const port = given.port ?? url.port;
  const socket = host.startsWith('/');
  return {
    url: given.host === null && given.port === null ? value : url.toString(),
    host,
    port: port === '' ? undefined : Number(port),
    display: socket ? `${host}/.s.PGSQL.${port || 5432}` : port ? `${host}:${port}` : host,
  };
}

/**
 * `postgres://` or `postgresql://` URLs open Postgres; anything else is a
 * SQLite file path. A URL that does not parse is the user's input, refused
 * here before any driver sees it (a driver would print it unredacted, or try
 * to connect to what it guessed).
 */
export function parseDbTarget(value: string, env: NodeJS.ProcessEnv = process.env): DbTarget {
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: checkDatabaseUrl(value, env) };
  if (value === ':memory:') return { kind: 'sqlite', path: value };
  return { kind: 'sqlite', path: resolve(value) };
}

const URL_HINT =
  'A database URL reads postgres://HOST:PORT/DATABASE, with USER:PASSWORD@ before the host when needed; write special characters of the password as %XX escapes (@ as %40). Through a unix socket, its directory %XX-escaped as the host: postgres://USER@%2Fvar%2Frun%2Fpostgresql/DATABASE.';

function checkDatabaseUrl(value: string, env: NodeJS.ProcessEnv): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(`The database URL ${redactSecrets(value)} is not a valid URL.`, URL_HINT);
  }
  for (const part of [url.username, url.password, url.pathname, url.hostname, url.search]) {
    try {
      decodeURIComponent(part);
    } catch {
      throw new InputError(
        `The database URL ${redactUrl(value)} holds a % that does not start a %XX escape.`,
        URL_HINT,
      );
    }
  }
  if (!postgresAddress(value).host)
    throw new InputError(`The database URL ${redactUrl(value)} names no host.`, URL_HINT);
  // The client would fall back to a database named as the user (`postgres`, the server's own), and fill it with tables.
  if (url.pathname.replace(/^\//, '') === '' && !url.searchParams.get('database') && !env.PGDATABASE)
    throw new InputError(
      `The database URL ${redactUrl(value)} names no database: listminer would make its tables in the server's default one.`,
      URL_HINT,
    );
  // The URL's own port the URL parser checked; the query string's is text.
  const givenPort = url.searchParams.get('port');
  if (givenPort !== null && !(/^\d{1,5}$/.test(givenPort) && Number(givenPort) > 0 && Number(givenPort) < 65536))
    throw new InputError(
      `The database URL ${redactUrl(value)} names port "${givenPort}", which is not a TCP port.`,
      URL_HINT,
    );
  return value;
}

/** First of: the --db flag, LISTMINER_DB, the config file's database, the default. */
export function chooseDb(flag: string | undefined, env: NodeJS.ProcessEnv, configured: string | undefined): string {
  return flag || env.LISTMINER_DB || configured || DEFAULT_DB;
}

/** How long the store waits on the database; each from the environment, in seconds. */
export interface StoreTimeouts {
  /** SQLite: how long a write waits for another process's write lock. */
  busyTimeoutMs?: number;
  /** PostgreSQL: how long to wait for the server to answer a connection. */
  connectTimeoutMs?: number;
  /** PostgreSQL: how long one statement may go unanswered before the server counts as gone. */
  queryTimeoutMs?: number;
}

/**
 * The longest any store timeout may be, in seconds (23 days). Node's timers
 * hold at most 2^31 - 1 ms (24.8 days) and fire after 1 ms past that, so a
 * longer wait would end every statement at once.
 */
export const MAX_TIMEOUT_SECONDS = 2_000_000;

/** The shortest each setting may be: a SQLite write may not wait at all; a PostgreSQL server needs a moment to answer. */
const TIMEOUT_SETTINGS = {
  busyTimeoutMs: { name: 'LISTMINER_SQLITE_BUSY_TIMEOUT', leastSeconds: 0 },
  connectTimeoutMs: { name: 'LISTMINER_PG_CONNECT_TIMEOUT', leastSeconds: 1 },
  queryTimeoutMs: { name: 'LISTMINER_PG_QUERY_TIMEOUT', leastSeconds: 1 },
} as const;

/**
 * LISTMINER_SQLITE_BUSY_TIMEOUT, LISTMINER_PG_CONNECT_TIMEOUT and
 * LISTMINER_PG_QUERY_TIMEOUT (seconds); an unset one keeps the store's
 * default. A value that is no number of seconds in its range is refused
 * (exit 2) with the variable and the range.
 */
export function chooseStoreTimeouts(env: NodeJS.ProcessEnv): StoreTimeouts {
  const timeouts: StoreTimeouts = {};
  for (const [key, { name, leastSeconds }] of Object.entries(TIMEOUT_SETTINGS)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const seconds = Number(raw);
    if (!(seconds >= leastSeconds && seconds <= MAX_TIMEOUT_SECONDS)) {
      throw new InputError(
        `${name}=${raw} is out of range: it takes a number from ${leastSeconds} to ${MAX_TIMEOUT_SECONDS.toLocaleString('en-US')} seconds.`,
        `Set ${name} within that range, or unset it for the default.`,
      );
    }
    timeouts[key as keyof StoreTimeouts] = Math.round(seconds * 1000);
  }
  return timeouts;
}

/** The URL with any password replaced, safe to print or log. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '*****';
    return parsed.toString();
  } catch {
    return redactSecrets(url);
  }
}

/** Removes anything that looks like a password in a database URL from free text. */
export function redactSecrets(text: string): string {
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]+):[^@\s]*@/gi, '$1:*****@');
}
