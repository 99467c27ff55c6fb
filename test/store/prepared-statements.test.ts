import { expect, it } from 'vitest';
import { PREPARED_TEXTS } from '../../src/core/store/postgres/postgres-driver.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

/**
 * PostgreSQL parses and plans an unprepared statement every time it runs:
 * for the batch INSERTs of a stage that was a seventh of sync's time
 * (docs/performance.md). A text that comes back is prepared; one used once
 * is not, and the number prepared on a connection has a ceiling, since each
 * stays in the server's memory while the connection lives.
 */
describeOnDialects(
  'statements on $dialect',
  (getStore) => {
    /** The texts prepared on the transaction's connection (pg_prepared_statements is the session's own). */
    const preparedOn = (tx: { db: { all<T>(sql: string): Promise<T[]> } }) =>
      tx.db.all<{ statement: string }>(
        "SELECT statement FROM pg_prepared_statements WHERE statement NOT LIKE '%pg_prepared_statements%'",
      );

    it('are prepared from their second use, and a text used once is not', async () => {
      const prepared = await getStore().transaction(async (tx) => {
        for (let n = 0; n < 3; n++)
          expect(await tx.db.get('SELECT CAST(? AS INTEGER) + 1 AS n', [n])).toEqual({ n: n + 1 });
        expect(await tx.db.get('SELECT CAST(? AS INTEGER) + 2 AS n', [1])).toEqual({ n: 3 });
        return preparedOn(tx);
      });
      const texts = prepared.map((row) => row.statement);
      expect(texts.filter((text) => text.includes('+ 1 AS n'))).toEqual(['SELECT CAST($1 AS INTEGER) + 1 AS n']);
      expect(texts.filter((text) => text.includes('+ 2 AS n'))).toEqual([]);
    });

    it(`are prepared on a connection ${PREPARED_TEXTS} texts at most, however many come back`, async () => {
      const texts = PREPARED_TEXTS + 50;
      const prepared = await getStore().transaction(async (tx) => {
        for (let round = 0; round < 2; round++)
          for (let i = 0; i < texts; i++)
            expect(await tx.db.get(`SELECT CAST(? AS INTEGER) + ${i} AS n`, [round])).toEqual({ n: i + round });
        return preparedOn(tx);
      });
      const numbered = prepared.map((row) => row.statement).filter((text) => /\+ \d+ AS n$/.test(text));
      expect(numbered.length).toBeGreaterThan(PREPARED_TEXTS - 20);
      expect(numbered.length).toBeLessThanOrEqual(PREPARED_TEXTS);
      // The first texts took the places: the last ones run unprepared.
      expect(numbered).toContain('SELECT CAST($1 AS INTEGER) + 0 AS n');
      expect(numbered).not.toContain(`SELECT CAST($1 AS INTEGER) + ${texts - 1} AS n`);
    });
  },
  { only: ['postgres'], onlyWhy: 'SQLite prepares every statement it runs (its driver keeps 100)' },
);
