import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How `staged_message_raws.raw` holds a message (docs/store.md, "Raw bytes and
 * envelopes"): `raw_codec` NULL is the bytes as the archive handed them over
 * (every row written before migration 010, and mail that does not shrink);
 * `deflate` is raw DEFLATE (RFC 1951, no zlib or gzip wrapper). Only the
 * store reads and writes the column, through these two functions.
 */
export type RawCodec = 'deflate';

/** Level 1: on list mail level 6 stores 0.402 of the size where level 1 stores 0.416, for 1.2-1.6× the CPU. */
const DEFLATE_LEVEL = 1;

export interface StoredRaw {
  bytes: Buffer;
  codec: RawCodec | null;
}

/** The form a message is stored in: compressed, unless that would not make it smaller. */
export function encodeRaw(raw: Buffer): StoredRaw {
  // zlib writes into chunks of 16 KiB by default, and a result of one chunk is a view of it: each stored
  // message held 16 KiB until its batch was written. Half the message's size holds most list mail in one.
  const deflated = deflateRawSync(raw, { level: DEFLATE_LEVEL, chunkSize: Math.max(64, Math.ceil(raw.length / 2)) });
  return deflated.length < raw.length ? { bytes: deflated, codec: 'deflate' } : { bytes: raw, codec: null };
}

/**
 * The message's bytes as the archive handed them over, from a stored `raw`
 * and `raw_codec`. The buffer has its memory to itself, as the drivers'
 * own buffers do, so the classify pool hands it to a worker without a copy.
 */
export function decodeRaw(stored: Uint8Array, codec: string | null): Buffer {
  if (codec === null) return Buffer.isBuffer(stored) ? stored : Buffer.from(stored);
  // Migrations refuse a database from a newer listminer, so an unknown codec is a damaged row.
  if (codec !== 'deflate') throw new Error(`raw_codec ${JSON.stringify(codec)} is not one this listminer reads`);
  const inflated = inflateRawSync(stored);
  if (inflated.byteOffset === 0 && inflated.byteLength === inflated.buffer.byteLength) return inflated;
  const owned = Buffer.allocUnsafeSlow(inflated.length);
  inflated.copy(owned);
  return owned;
}
