import type { ColumnType, SqlValue, TableShape } from '../sql-driver.js';

/** What starts a COPY in binary format: the signature, no flags, no header extension. */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);

/** A field count of -1: no more rows. */
const TRAILER = Buffer.from([0xff, 0xff]);

/** The length that marks a NULL field. */
const NULL_FIELD = -1;

/** The statement that reads rows of `shape` in binary form from the client. */
export function copyStatement(shape: TableShape): string {
  return `COPY ${shape.table} (${shape.columns.map(([name]) => name).join(', ')}) FROM STDIN (FORMAT binary)`;
}

/**
 * Rows in the binary format of PostgreSQL's COPY: each field its length and
 * its value in the server's binary form, with no text to parse. A bytea
 * goes as its bytes, where a parameter of a statement goes as hex text
 * twice its size.
 */
export function encodeBinaryCopy(shape: TableShape, rows: readonly (readonly SqlValue[])[]): Buffer {
  const types = shape.columns.map(([, type]) => type);
  const fields = rows.map((row) => {
    if (row.length !== types.length)
      throw new Error(`a row for ${shape.table} has ${row.length} values where it has ${types.length} columns`);
    return row.map((value, i) => fieldBytes(value, types[i]!, shape.columns[i]![0]));
  });
  let size = HEADER.length + TRAILER.length;
  for (const row of fields) for (const field of row) size += 4 + (field?.length ?? 0);
  size += 2 * fields.length;
  const out = Buffer.allocUnsafe(size);
  let at = HEADER.copy(out, 0);
  for (const row of fields) {
    at = out.writeInt16BE(row.length, at);
    for (const field of row) {
      at = out.writeInt32BE(field === null ? NULL_FIELD : field.length, at);
      if (field !== null) at += field.copy(out, at);
    }
  }
  TRAILER.copy(out, at);
  return out;
}

function fieldBytes(value: SqlValue, type: ColumnType, column: string): Buffer | null {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'bigint': {
      const field = Buffer.allocUnsafe(8);
      field.writeBigInt64BE(BigInt(value as number | bigint | string));
      return field;
    }
    case 'text':
      if (typeof value === 'string') return Buffer.from(value, 'utf8');
      throw new Error(`column ${column} takes text, and was given a ${typeof value}`);
    case 'bytea':
      if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      throw new Error(`column ${column} takes bytes, and was given a ${typeof value}`);
  }
}
