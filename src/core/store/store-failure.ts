import { ExitCode, OperationError } from '../errors.js';

/**
 * The database itself failed: locked, full, read-only, unreachable, the
 * connection dropped. Not the fault of the message being written, so no
 * stage shunts a message for it; the run stops and the next one resumes.
 * Each engine's errors module (sqlite/sqlite-errors.ts,
 * postgres/postgres-errors.ts) turns its failures into this, with a sentence
 * and a hint; any other error passes through unchanged.
 */
export class StoreFailure extends OperationError {
  constructor(
    message: string,
    hint: string,
    readonly code?: string,
  ) {
    super(message, hint);
  }
}

/**
 * A stop signal (Ctrl-C, SIGTERM) came while the database was not
 * answering: the run stops without waiting for it, exit 130 as for any
 * stop; what was committed is kept.
 */
export class StoreInterrupted extends StoreFailure {
  override readonly exitCode: ExitCode = ExitCode.interrupted;

  constructor(message: string, hint: string) {
    super(message, hint, 'INTERRUPTED');
  }
}

/**
 * The PostgreSQL client (postgres 3.4.9) can throw from a timer, outside any
 * query, when it writes to a connection the server has just closed
 * (porsager/postgres#1154, #1208: a buffered write after the socket is gone).
 * No caller can catch that, so the command layer asks here whether an
 * uncaught error is this one, to say what it means instead of crashing: the
 * connection was lost, and the transaction it was in was rolled back by the
 * server.
 */
export function lostConnectionFailure(error: unknown, database: string): StoreFailure | undefined {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  if (
    !(error instanceof TypeError) ||
    !/postgres[\\/]src[\\/]connection\.js/.test(stack) ||
    !/nextWrite|socket\.write/.test(stack + error.message)
  )
    return undefined;
  return new StoreFailure(
    `The connection to the database ${database} was lost (the server closed it while the client was writing); nothing half-written was kept.`,
    'Run again when the server is back: what was written before is kept and the run resumes from there.',
    'CONNECTION_CLOSED',
  );
}
