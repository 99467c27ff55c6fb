import type { ColumnType, SqlValue, TableShape } from '../sql-driver.js';

/** What starts a COPY in binary format: the signature, no flags, no header extension. */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);

/** A field count of -1: no more rows. */
const TRAILER = Buffer.from([0xff, 0xff]);

/** The length that marks a NULL field. */
const NULL_FIELD = -1;

/** PostgreSQL's timestamps count microseconds from 2000-01-01 UTC. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/** The version byte before a jsonb value's text. */
const JSONB_VERSION = 1;

/** The statement that reads rows of `shape` in binary form from the client. */
export function copyStatement(shape: TableShape): string {
  return `COPY ${shape.table} (${shape.columns.map(([name]) => name).join(', ')}) FROM STDIN (FORMAT binary)`;
}

/**
 * Rows in the binary format of PostgreSQL's COPY: each field its length and
 * its value in the server's binary form, with no text to parse. A bytea
 * goes as its bytes, where a parameter of a statement goes as hex text
 * twice its size. A value of the wrong kind for its column throws, naming
 * the column, before anything is sent. Two passes over the values, the
 * first for the lengths, fill one buffer; nothing is allocated per field.
 */
export function encodeBinaryCopy(shape: TableShape, rows: readonly (readonly SqlValue[])[]): Buffer {
  const width = shape.columns.length;
  const lengths = new Int32Array(rows.length * width);
  let size = HEADER.length + TRAILER.length + 2 * rows.length;
  rows.forEach((row, r) => {
    if (row.length !== width)
      throw new Error(`a row for ${shape.table} has ${row.length} values where it has ${width} columns`);
    for (let i = 0; i < width; i++) {
      const length = fieldLength(row[i], shape.columns[i]!);
      lengths[r * width + i] = length;
      if (length !== NULL_FIELD) size += length;
      size += 4;
    }
  });
  const out = Buffer.allocUnsafe(size);
  let at = HEADER.copy(out, 0);
  rows.forEach((row, r) => {
    at = out.writeInt16BE(width, at);
    for (let i = 0; i < width; i++) {
      const length = lengths[r * width + i]!;
      at = out.writeInt32BE(length, at);
      if (length !== NULL_FIELD) at = writeField(out, at, row[i]!, shape.columns[i]![1], length);
    }
  });
  TRAILER.copy(out, at);
  return out;
}

/** The length of a value in its binary form (NULL_FIELD for a null), once it is known to suit its column. */
function fieldLength(value: SqlValue | undefined, [column, type]: readonly [string, ColumnType]): number {
  if (value === null || value === undefined) return NULL_FIELD;
  const refuse = (what: string) =>
    new Error(`column ${column} (${type}) was given ${what}: ${typeof value === 'string' ? value : typeof value}`);
  switch (type) {
    case 'bigint':
      if (typeof value !== 'bigint' && !Number.isSafeInteger(value)) throw refuse('no whole number');
      return 8;
    case 'integer':
      if (!Number.isInteger(value) || (value as number) < -(2 ** 31) || (value as number) >= 2 ** 31)
        throw refuse('no 32-bit whole number');
      return 4;
    case 'boolean':
      if (typeof value !== 'boolean') throw refuse('no boolean');
      return 1;
    case 'timestamptz':
      if (!Number.isFinite(timeOf(value))) throw refuse('no time');
      return 8;
    case 'text':
      if (typeof value !== 'string') throw refuse('no text');
      return Buffer.byteLength(value, 'utf8');
    case 'jsonb':
      return 1 + Buffer.byteLength(jsonText(value), 'utf8');
    case 'bytea':
      if (!(value instanceof Uint8Array)) throw refuse('no bytes');
      return value.length;
  }
}

/** Writes a value fieldLength took, `length` bytes at `at`; returns where the next field goes. */
function writeField(out: Buffer, at: number, value: SqlValue, type: ColumnType, length: number): number {
  switch (type) {
    case 'bigint': {
      if (typeof value === 'bigint') return out.writeBigInt64BE(value, at);
      // Two halves of a safe integer, with no BigInt made for each value.
      const high = Math.floor((value as number) / 2 ** 32);
      return out.writeUInt32BE((value as number) - high * 2 ** 32, out.writeInt32BE(high, at));
    }
    case 'integer':
      return out.writeInt32BE(value as number, at);
    case 'boolean':
      return out.writeUInt8(value ? 1 : 0, at);
    case 'timestamptz':
      return out.writeBigInt64BE(BigInt(timeOf(value) - POSTGRES_EPOCH_MS) * 1000n, at);
    case 'text':
      return at + out.write(value as string, at, length, 'utf8');
    case 'jsonb':
      return at + out.write(jsonText(value), out.writeUInt8(JSONB_VERSION, at), length - 1, 'utf8') + 1;
    case 'bytea':
      out.set(value as Uint8Array, at);
      return at + length;
  }
}

/** Milliseconds since 1970 of an ISO time or a Date; NaN for anything else. */
function timeOf(value: SqlValue): number {
  return value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
}

/** JSON comes as its text, as the store hands it to either engine. */
function jsonText(value: SqlValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
