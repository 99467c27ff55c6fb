import { createHash, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import type { SqlValue, TableShape } from '../../src/core/store/sql-driver.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { TYPED_COLUMNS } from '../helpers/typed-columns.js';

const PROBE: TableShape = {
  table: 'append_probe',
  columns: [
    ['id', 'bigint'],
    ['body', 'bytea'],
    ['label', 'text'],
  ],
};

const TYPED: TableShape = { table: 'append_typed', columns: TYPED_COLUMNS };

interface ProbeRow {
  id: number;
  body: Uint8Array | null;
  label: string | null;
}

/** Bytes as their length and digest: comparing megabytes value by value is slow. */
const digest = (bytes: Uint8Array | null) =>
  bytes === null ? null : `${bytes.length} ${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * `append` is how the store writes rows that are all new (a staged
 * message's raw bytes): PostgreSQL takes them in a binary COPY, SQLite in
 * multi-row INSERTs. Both must store every value as it was given, and both
 * must fail, with the engine's own reason, when a constraint refuses a row.
 */
describeOnDialects('append on $dialect', (getStore, dialect) => {
  const createProbe = () =>
    getStore().db.exec('CREATE TABLE append_probe (id BIGINT PRIMARY KEY, body BYTEA, label TEXT NOT NULL)');
  const readProbe = async () =>
    (await getStore().db.all<ProbeRow>('SELECT id, body, label FROM append_probe ORDER BY id')).map((row) => ({
      id: Number(row.id),
      body: digest(row.body),
      label: row.label,
    }));

  it('stores every value as it was given: nulls, empty values, large ones and text in any script', async () => {
    await createProbe();
    const large = randomBytes(3 * 1024 * 1024);
    const rows: SqlValue[][] = [
      [1, Buffer.alloc(0), ''],
      [2, null, 'no body'],
      [3, large, 'Größe ✓ 𝄞 日本語'],
      [Number.MAX_SAFE_INTEGER, Buffer.from([0, 255, 10, 13, 92, 0]), "tab\tnewline\nbackslash\\ quote'"],
      [-7, Buffer.from('x'), 'negative id'],
    ];
    await getStore().db.append(PROBE, rows);
    expect(await readProbe()).toEqual(
      [...rows]
        .sort((a, b) => Number(a[0]) - Number(b[0]))
        .map(([id, body, label]) => ({ id, body: digest(body as Buffer | null), label })),
    );
  });

  it('stores whole numbers, booleans, times and JSON of every kind as either engine reads them back', async () => {
    await getStore().db.exec(
      'CREATE TABLE append_typed (id BIGINT PRIMARY KEY, count INTEGER, flag BOOLEAN, at TIMESTAMPTZ, doc JSONB)',
    );
    const rows: SqlValue[][] = [
      [1, 0, false, '2024-01-01T09:00:00.000Z', '{"a": [1, 2.5, "x"], "b": null}'],
      [2, -(2 ** 31), true, '1970-01-01T00:00:00.000Z', '"text"'],
      [3, 2 ** 31 - 1, null, '1999-12-31T23:59:59.999Z', '[]'],
      [4, null, true, '2262-04-11T23:47:16.854Z', '{"ü": "€ 𝄞", "quote": "\\"\\u0041"}'],
      [5, 7, false, null, null],
    ];
    await getStore().db.append(TYPED, rows);
    const stored = await getStore().db.all<Record<string, unknown>>(
      'SELECT id, count, flag, at, doc FROM append_typed ORDER BY id',
    );
    // PostgreSQL's driver gives jsonb back parsed; SQLite keeps JSON as its text.
    const json = (value: unknown) => (dialect === 'sqlite' ? (JSON.parse(value as string) as unknown) : value);
    expect(
      stored.map((row) => [
        Number(row.id),
        row.count === null ? null : Number(row.count),
        row.flag === null ? null : Boolean(row.flag),
        row.at === null ? null : new Date(row.at as string).toISOString(),
        row.doc === null ? null : json(row.doc),
      ]),
    ).toEqual(
      rows.map(([id, count, flag, at, doc]) => [
        id,
        count,
        flag,
        at,
        doc === null ? null : (JSON.parse(doc as string) as unknown),
      ]),
    );
  });

  it('takes more rows than one statement of the engine carries, in a transaction or outside one', async () => {
    await createProbe();
    const rows = (from: number) =>
      Array.from({ length: 6000 }, (_, i): SqlValue[] => [from + i, Buffer.from(`raw ${from + i}`), `#${from + i}`]);
    await getStore().transaction((tx) => tx.db.append(PROBE, rows(0)));
    await getStore().db.append(PROBE, rows(6000));
    await getStore().db.append(PROBE, []);
    const stored = await readProbe();
    expect(stored).toHaveLength(12_000);
    expect(stored[11_999]).toEqual({ id: 11_999, body: digest(Buffer.from('raw 11999')), label: '#11999' });
  });

  // A small append reaches the server whole before it is refused; a large one is refused while it is still being sent.
  for (const [size, rowBytes] of [
    ['small', 16],
    ['large', 64 * 1024],
  ] as const)
    it(`fails when a constraint refuses a row of a ${size} append, with the engine's reason, and its transaction leaves nothing`, async () => {
      await createProbe();
      const rows = Array.from({ length: 200 }, (_, i): SqlValue[] => [i, randomBytes(rowBytes), 'row']);
      const refused = getStore().transaction(async (tx) => {
        await tx.db.append(PROBE, rows.slice(0, 10));
        await tx.db.append(PROBE, [rows[3]!, ...rows.slice(10)]);
      });
      await expect(refused).rejects.toThrow(/duplicate key value|UNIQUE constraint failed/);
      expect(await readProbe()).toEqual([]);
      // The store goes on: the connection was not left inside the failed transaction.
      await getStore().db.append(PROBE, rows.slice(0, 2));
      expect(await readProbe()).toHaveLength(2);
    });

  it('fails on a null where the column takes none', async () => {
    await createProbe();
    await expect(getStore().db.append(PROBE, [[1, null, null]])).rejects.toThrow(/null value|NOT NULL constraint/);
    expect(await readProbe()).toEqual([]);
  });
});
