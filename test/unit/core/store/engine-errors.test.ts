import { describe, expect, it } from 'vitest';
import { explainPostgresError } from '../../../../src/core/store/postgres/postgres-errors.js';
import { explainSqliteError } from '../../../../src/core/store/sqlite/sqlite-errors.js';
import { StoreFailure } from '../../../../src/core/store/store-failure.js';

/** An error as the engine's client throws it: a message and a code. */
function engineError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

const engines = [
  {
    engine: 'SQLite',
    explain: (error: unknown) => explainSqliteError(error, '/data/lm.db', 30_000),
    failing: 'SQLITE_BUSY_SNAPSHOT',
    sentence: 'The SQLite database /data/lm.db is locked: another process held its write lock for more than 30 s.',
    hint: 'LISTMINER_SQLITE_BUSY_TIMEOUT',
    constraint: 'SQLITE_CONSTRAINT_UNIQUE',
  },
  {
    engine: 'PostgreSQL',
    explain: (error: unknown) => explainPostgresError(error, 'postgres://db/lm', 10_000),
    failing: '53100',
    sentence: 'The disk of the database postgres://db/lm is full; nothing half-written was kept.',
    hint: 'Free some space',
    constraint: '23505',
  },
];

describe.each(engines)('$engine errors', ({ explain, failing, sentence, hint, constraint }) => {
  it('turn a failure of the database into one sentence naming it, with a hint', () => {
    const failure = explain(engineError(failing));
    expect(failure).toBeInstanceOf(StoreFailure);
    expect((failure as StoreFailure).message).toBe(sentence);
    expect((failure as StoreFailure).hint).toContain(hint);
    expect((failure as StoreFailure).code).toBe(failing);
  });

  it('leave a statement error (a constraint) for the caller', () => {
    const error = engineError(constraint);
    expect(explain(error)).toBe(error);
  });
});

describe('PostgreSQL errors', () => {
  it('name a statement the server cancelled (statement_timeout) and the setting to look at', () => {
    const failure = explainPostgresError(
      engineError('57014', 'canceling statement due to statement timeout'),
      'postgres://db/lm',
      10_000,
    ) as StoreFailure;
    expect(failure).toBeInstanceOf(StoreFailure);
    expect(failure.message).toBe(
      'The database postgres://db/lm cancelled a statement (canceling statement due to statement timeout); nothing half-written was kept.',
    );
    expect(failure.hint).toContain('statement_timeout');
  });

  it('tell a server that takes no TLS from a lost connection', () => {
    const failure = explainPostgresError(
      engineError('ECONNRESET', 'Client network socket disconnected before secure TLS connection was established'),
      'postgres://db/lm?sslmode=require',
      10_000,
    ) as StoreFailure;
    expect(failure.message).toBe(
      'The database postgres://db/lm?sslmode=require does not take TLS connections, and its URL asks for one (sslmode).',
    );
    expect(
      (explainPostgresError(engineError('ECONNRESET', 'read ECONNRESET'), 'postgres://db/lm', 10_000) as StoreFailure)
        .message,
    ).toContain('was lost');
  });

  it('remove a password from the engine message they quote', () => {
    const failure = explainPostgresError(
      engineError('28P01', 'password authentication failed for postgres://u:secret@db/lm'),
      'postgres://u@db/lm',
      10_000,
    );
    expect((failure as StoreFailure).message).not.toContain('secret');
  });
});
