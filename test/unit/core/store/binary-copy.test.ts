import { describe, expect, it } from 'vitest';
import { copyStatement, encodeBinaryCopy } from '../../../../src/core/store/postgres/binary-copy.js';
import type { SqlValue, TableShape } from '../../../../src/core/store/sql-driver.js';
import { TYPED_COLUMNS } from '../../../helpers/typed-columns.js';

const SHAPE: TableShape = {
  table: 'probe',
  columns: [...TYPED_COLUMNS, ['label', 'text'], ['body', 'bytea']],
};

const ROW: SqlValue[] = [1, 2, true, '2000-01-01T00:00:00.001Z', '{}', 'é', Buffer.from([7])];

/**
 * The round trip through a real server is test/store/append-rows.test.ts;
 * here, the bytes of the format itself, and what the encoder refuses before
 * anything is sent.
 */
describe('binary COPY rows', () => {
  it('names the columns in the order the rows give them', () => {
    expect(copyStatement(SHAPE)).toBe('COPY probe (id, count, flag, at, doc, label, body) FROM STDIN (FORMAT binary)');
  });

  it('writes the signature, each field as its length and value, -1 for a null, and the trailer', () => {
    const out = encodeBinaryCopy(SHAPE, [ROW, [2, null, null, null, null, null, null]]);
    const expected = Buffer.concat([
      Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'),
      Buffer.alloc(8),
      Buffer.from([0, 7]),
      Buffer.from([0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1]),
      Buffer.from([0, 0, 0, 4, 0, 0, 0, 2]),
      Buffer.from([0, 0, 0, 1, 1]),
      // One millisecond after PostgreSQL's epoch: 1,000 microseconds.
      Buffer.from([0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0x03, 0xe8]),
      Buffer.from([0, 0, 0, 3, 1, 0x7b, 0x7d]),
      Buffer.from([0, 0, 0, 2, 0xc3, 0xa9]),
      Buffer.from([0, 0, 0, 1, 7]),
      Buffer.from([0, 7]),
      Buffer.from([0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 2]),
      Buffer.from(new Array(6).fill([0xff, 0xff, 0xff, 0xff]).flat()),
      Buffer.from([0xff, 0xff]),
    ]);
    expect(out.toString('hex')).toBe(expected.toString('hex'));
  });

  it.each([-7, -(2 ** 40) - 3, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 12n])(
    "writes the bigint %s as its eight bytes, in two's complement",
    (id) => {
      const out = encodeBinaryCopy({ table: 'probe', columns: [['id', 'bigint']] }, [[id]]);
      const expected = Buffer.alloc(8);
      expected.writeBigInt64BE(BigInt(id));
      expect(out.subarray(19 + 2 + 4, 19 + 2 + 4 + 8).toString('hex')).toBe(expected.toString('hex'));
    },
  );

  it.each([
    ['id', 1.5],
    ['id', '12'],
    ['count', 2 ** 31],
    ['count', -(2 ** 31) - 1],
    ['flag', 1],
    ['at', 'not a time'],
    ['label', 3],
    ['body', 'bytes as text'],
  ] as const)('refuses %s = %j, naming the column', (column, value) => {
    const row = [...ROW];
    row[SHAPE.columns.findIndex(([name]) => name === column)] = value;
    expect(() => encodeBinaryCopy(SHAPE, [row])).toThrow(new RegExp(`column ${column} `));
  });

  it('refuses a row of the wrong length', () => {
    expect(() => encodeBinaryCopy(SHAPE, [ROW.slice(1)])).toThrow(/6 values where it has 7 columns/);
  });
});
