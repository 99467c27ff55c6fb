import { describe, expect, it } from 'vitest';
import { chunkRows, valuesPlaceholders } from '../../../../src/core/store/sql-driver.js';
import { numberPlaceholders } from '../../../../src/core/store/postgres/postgres-driver.js';
import { Mutex } from '../../../../src/core/store/mutex.js';

describe('SQL helpers', () => {
  it('numbers ? placeholders for Postgres but leaves quoted text alone', () => {
    expect(numberPlaceholders('SELECT ? WHERE a = \'?\' AND b = ? AND c = "?"')).toBe(
      'SELECT $1 WHERE a = \'?\' AND b = $2 AND c = "?"',
    );
    // A doubled quote inside a literal, and a literal left open, keep their question marks.
    expect(numberPlaceholders("SELECT 'it''s ?', ? FROM t WHERE x = 'open ?")).toBe(
      "SELECT 'it''s ?', $1 FROM t WHERE x = 'open ?",
    );
    expect(numberPlaceholders(`INSERT INTO t VALUES ${valuesPlaceholders(500, 12)}`)).toBe(
      `INSERT INTO t VALUES ${Array.from({ length: 500 }, (_, row) => `(${Array.from({ length: 12 }, (_, col) => `$${row * 12 + col + 1}`).join(', ')})`).join(', ')}`,
    );
  });

  it('builds multi-row VALUES lists', () => {
    expect(valuesPlaceholders(2, 3)).toBe('(?, ?, ?), (?, ?, ?)');
  });

  it('keeps every chunk under the parameter limit', () => {
    const chunks = chunkRows(
      Array.from({ length: 25 }, (_, i) => i),
      4,
      { maxParameters: 40, migrationLockSql: '', jsonParameter: '?' },
    );
    // 40 / 4 = 10 rows fit; chunks are powers of two: 8, 8, 8, then 1.
    expect(chunks.map((c) => c.length)).toEqual([8, 8, 8, 1]);
    expect(chunks.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('cuts rows into chunks of few distinct lengths, so a statement text per length stays prepared', () => {
    const capabilities = { maxParameters: 32766, migrationLockSql: '', jsonParameter: '?' };
    const lengths = new Set<number>();
    for (let rows = 1; rows <= 2000; rows++) {
      const chunks = chunkRows(Array.from({ length: rows }), 30, capabilities);
      expect(chunks.reduce((sum, c) => sum + c.length, 0)).toBe(rows);
      for (const chunk of chunks) lengths.add(chunk.length);
    }
    // 1, 2, 4, … 512: ten texts of a statement for every batch size, where one per size made 500.
    expect([...lengths].sort((a, b) => a - b)).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
    // A full batch is one chunk.
    expect(chunkRows(Array.from({ length: 512 }), 30, capabilities)).toHaveLength(1);
  });

  it('runs locked work one at a time, in order, even when one fails', async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    const slow = mutex.run(async () => {
      await new Promise((r) => setTimeout(r, 20));
      order.push('a');
    });
    const failing = mutex.run(async () => {
      order.push('b');
      throw new Error('x');
    });
    const last = mutex.run(async () => order.push('c'));
    await Promise.allSettled([slow, failing, last]);
    expect(order).toEqual(['a', 'b', 'c']);
  });
});
