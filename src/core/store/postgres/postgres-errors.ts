import { redactSecrets } from '../../db-target.js';
import { ListminerError } from '../../errors.js';
import { StoreFailure, StoreInterrupted } from '../store-failure.js';

/**
 * PostgreSQL's failures of the server or the connection as a StoreFailure
 * naming the database (password removed); errors of a statement (a
 * constraint) pass through for the caller to handle.
 */
export function explainPostgresError(error: unknown, database: string, connectTimeoutMs: number): unknown {
  if (error instanceof ListminerError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  const detail = redactSecrets(error instanceof Error ? error.message : String(error));
  const fail = (message: string, hint: string) => new StoreFailure(message, hint, code);
  if (code === 'CONNECT_TIMEOUT') {
    return fail(
      `The database ${database} did not answer within ${Math.round(connectTimeoutMs / 1000)} s.`,
      'Is the server up, and is the host and port of the database URL right? LISTMINER_PG_CONNECT_TIMEOUT=SECONDS waits longer.',
    );
  }
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'ETIMEDOUT'
  ) {
    return fail(
      `Cannot connect to the database ${database} (${code}).`,
      'Is the PostgreSQL server running and reachable, and is the host and port of the database URL right?',
    );
  }
  if (code === 'ENOENT' || code === 'EACCES') {
    // Only a unix socket gives these: a missing socket file, or one the user may not open.
    const path = (error as { address?: unknown }).address;
    const socket = typeof path === 'string' ? path : "the server's unix socket";
    return fail(
      `Cannot connect to the database ${database} (${code}): ${code === 'ENOENT' ? 'there is no socket at' : 'no permission to open'} ${socket}.`,
      "Is the PostgreSQL server running on this machine, and does the URL name the directory of its socket (the server's unix_socket_directories)?",
    );
  }
  if (code === 'ECONNRESET' && detail.includes('before secure TLS connection was established')) {
    // postgres.js begins TLS where the server declined it: the server then closes the socket.
    return fail(
      `The database ${database} does not take TLS connections, and its URL asks for one (sslmode).`,
      "Drop sslmode from the URL (or set sslmode=prefer) to connect without TLS, or turn ssl on in the server's configuration.",
    );
  }
  if (code === '57014') {
    return fail(
      `The database ${database} cancelled a statement (${detail}); nothing half-written was kept.`,
      'A statement_timeout of the server, the database, the role or the URL (options=-c statement_timeout=…) is shorter than a statement takes, or someone cancelled it: raise or unset the timeout for listminer and run again; the run resumes from what was written.',
    );
  }
  if (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code.startsWith('CONNECTION_') ||
    code.startsWith('08') ||
    code.startsWith('57P')
  ) {
    return fail(
      `The connection to the database ${database} was lost (${detail}); nothing half-written was kept.`,
      'Run again when the server is back: what was written before is kept and the run resumes from there.',
    );
  }
  if (code === '3D000' || code === '28P01' || code === '28000') {
    return fail(
      `The database ${database} refused the connection: ${detail}.`,
      'Check the database name, user and password in the URL.',
    );
  }
  if (code === '53100') {
    return fail(
      `The disk of the database ${database} is full; nothing half-written was kept.`,
      'Free some space on the server and run again: the run resumes from what was written.',
    );
  }
  if (code.startsWith('53')) {
    return fail(
      `The database ${database} is out of resources (${detail}).`,
      "Run again later, or ask the server's administrator.",
    );
  }
  if (code === '25006') {
    return fail(
      `The database ${database} is read-only (${detail}).`,
      'Point --db at a writable server (a primary, not a standby).',
    );
  }
  return error;
}

/** A statement got no answer within the query timeout: the connections were given up. */
export function stalledFailure(host: string, queryTimeoutMs: number): StoreFailure {
  return new StoreFailure(
    `The PostgreSQL server at ${host} stopped answering: a statement got no reply within ${Math.round(queryTimeoutMs / 1000)} s, so the connection was closed and nothing half-written was kept.`,
    'Check the server and the network to it, then run again: what was written before is kept and the run resumes from there. LISTMINER_PG_QUERY_TIMEOUT=SECONDS waits longer for slow statements.',
    'QUERY_TIMEOUT',
  );
}

/** A stop signal came while a statement was still unanswered. */
export function interruptedFailure(host: string): StoreFailure {
  return new StoreInterrupted(
    `Stopped by a signal while the PostgreSQL server at ${host} was not answering; nothing half-written was kept.`,
    'What was written before is kept; the next run resumes from there.',
  );
}

/** The listener closed every connection before the handshake: not a PostgreSQL server. */
export function notPostgresFailure(database: string, connectTimeoutMs: number): StoreFailure {
  return new StoreFailure(
    `The server at ${database} closed the connection each time before answering as PostgreSQL (for ${Math.round(connectTimeoutMs / 1000)} s).`,
    'Check the host and port of the database URL: something else listens there.',
    'CONNECTION_CLOSED',
  );
}
