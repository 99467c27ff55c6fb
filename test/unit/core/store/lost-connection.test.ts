import { describe, expect, it } from 'vitest';
import { lostConnectionFailure, StoreFailure } from '../../../../src/core/store/store-failure.js';

function thrownAt(stack: string): TypeError {
  const error = new TypeError("Cannot read properties of null (reading 'write')");
  error.stack = `TypeError: Cannot read properties of null (reading 'write')\n${stack}`;
  return error;
}

describe('an uncaught write to a closed PostgreSQL connection', () => {
  it('is told as the lost connection it is, naming the database', () => {
    const failure = lostConnectionFailure(
      thrownAt('    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)'),
      'postgres://u:*****@db/x',
    );
    expect(failure).toBeInstanceOf(StoreFailure);
    expect(failure!.message).toMatch(
      /The connection to the database postgres:\/\/u:\*\*\*\*\*@db\/x was lost .*nothing half-written was kept/,
    );
    expect(failure!.exitCode).toBe(1);
  });

  it('leaves every other uncaught error alone', () => {
    expect(lostConnectionFailure(thrownAt('    at nextWrite (file:///app/src/mine.js:1:1)'), 'db')).toBeUndefined();
    expect(lostConnectionFailure(new RangeError('x'), 'db')).toBeUndefined();
    expect(lostConnectionFailure('a string', 'db')).toBeUndefined();
  });
});
