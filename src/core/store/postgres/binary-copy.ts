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
 * the column, before anything is sent.
 */
export function encodeBinaryCopy(shape: TableShape, rows: readonly (readonly SqlValue[])[]): Buffer {
  const fields = rows.map((row) => {
    if (row.length !== shape.columns.length)
      throw new Error(`a row for ${shape.table} has ${row.length} values where it has ${shape.columns.length} columns`);
    return row.map((value, i) => field(value, shape.columns[i]!));
  });
  let size = HEADER.length + TRAILER.length;
  for (const row of fields) {
    size += 2;
    for (const value of row) size += 4 + (value === null ? 0 : value.length);
  }
  const out = Buffer.allocUnsafe(size);
  let at = HEADER.copy(out, 0);
  for (const row of fields) {
    at = out.writeInt16BE(row.length, at);
    for (const value of row) {
      if (value === null) at = out.writeInt32BE(NULL_FIELD, at);
      else at = value.write(out, out.writeInt32BE(value.length, at));
    }
  }
  TRAILER.copy(out, at);
  return out;
}

/** A field's length, known before it is written into the buffer that holds the whole COPY. */
interface Field {
  readonly length: number;
  /** Writes the value at `at`; returns where the next field goes. */
  write(out: Buffer, at: number): number;
}

function field(value: SqlValue, [column, type]: readonly [string, ColumnType]): Field | null {
  if (value === null || value === undefined) return null;
  const refuse = (what: string) =>
    new Error(`column ${column} (${type}) was given ${what}: ${typeof value === 'string' ? value : typeof value}`);
  switch (type) {
    case 'bigint': {
      if (typeof value !== 'bigint' && !Number.isSafeInteger(value)) throw refuse('no whole number');
      const n = BigInt(value as number | bigint);
      return { length: 8, write: (out, at) => out.writeBigInt64BE(n, at) };
    }
    case 'integer':
      if (!Number.isInteger(value) || (value as number) < -(2 ** 31) || (value as number) >= 2 ** 31)
        throw refuse('no 32-bit whole number');
      return { length: 4, write: (out, at) => out.writeInt32BE(value as number, at) };
    case 'boolean':
      if (typeof value !== 'boolean') throw refuse('no boolean');
      return { length: 1, write: (out, at) => out.writeUInt8(value ? 1 : 0, at) };
    case 'timestamptz': {
      const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
      if (!Number.isFinite(ms)) throw refuse('no time');
      const micros = BigInt(ms - POSTGRES_EPOCH_MS) * 1000n;
      return { length: 8, write: (out, at) => out.writeBigInt64BE(micros, at) };
    }
    case 'text':
      if (typeof value !== 'string') throw refuse('no text');
      return text(value, 0);
    case 'jsonb':
      // JSON comes as its text, as the store hands it to either engine.
      return text(typeof value === 'string' ? value : JSON.stringify(value), 1);
    case 'bytea':
      if (!(value instanceof Uint8Array)) throw refuse('no bytes');
      return {
        length: value.length,
        write: (out, at) => {
          out.set(value, at);
          return at + value.length;
        },
      };
  }
}

/** UTF-8 text, after the jsonb version byte when `prefix` is 1. */
function text(value: string, prefix: 0 | 1): Field {
  const bytes = Buffer.byteLength(value, 'utf8');
  return {
    length: prefix + bytes,
    write: (out, at) => {
      if (prefix) at = out.writeUInt8(JSONB_VERSION, at);
      return at + out.write(value, at, bytes, 'utf8');
    },
  };
}
