import { inflateRawSync } from 'node:zlib';
import { Compressor, Decompressor } from 'zstd-napi';

/**
 * How `staged_message_raws.raw` holds a message (docs/store.md, "Raw bytes and
 * envelopes"): `raw_codec` NULL is the bytes as the archive handed them over
 * (every row written before migration 010, and mail that does not shrink);
 * `zstd` is one Zstandard frame (RFC 8878) that records its content size;
 * `deflate` is raw DEFLATE (RFC 1951, no zlib or gzip wrapper), what
 * listminer wrote before migration 024 and still reads. Only the store reads
 * and writes the column, through these two functions.
 */
export type RawCodec = 'zstd';

/**
 * Level 2: on 100,000 messages of the corpus's list mail, one at a time (`npm run bench:raw-codec`),
 * it compresses 2.7× as fast as DEFLATE level 1 did and decompresses twice as fast, to 0.440 of the
 * size against 0.437. Level 1 is 4% faster and 0.7% larger; level 3 is 20% slower (docs/store.md).
 */
const ZSTD_LEVEL = 2;

// One context for each of the thread's calls: making a context per message is what cost zlib 10 µs a call.
const compressor = new Compressor();
compressor.setParameters({ compressionLevel: ZSTD_LEVEL });
const decompressor = new Decompressor();

export interface StoredRaw {
  bytes: Buffer;
  codec: RawCodec | null;
}

/** The form a message is stored in: compressed, unless that would not make it smaller. */
export function encodeRaw(raw: Buffer): StoredRaw {
  // The result is a copy of its own length (a view of Node's 8 KiB pool when small), not the worst-case buffer zstd writes into.
  const compressed = compressor.compress(raw);
  return compressed.length < raw.length ? { bytes: compressed, codec: 'zstd' } : { bytes: raw, codec: null };
}

/**
 * The message's bytes as the archive handed them over, from a stored `raw`
 * and `raw_codec`. The buffer has its memory to itself, as the drivers'
 * own buffers do, so the classify pool hands it to a worker without a copy.
 */
export function decodeRaw(stored: Uint8Array, codec: string | null): Buffer {
  if (codec === null) return Buffer.isBuffer(stored) ? stored : Buffer.from(stored);
  return ownMemory(decompressed(stored, codec));
}

function decompressed(stored: Uint8Array, codec: string): Buffer {
  if (codec === 'zstd') return decompressor.decompress(stored);
  if (codec === 'deflate') return inflateRawSync(stored);
  // Migrations refuse a database from a newer listminer, so an unknown codec is a damaged row.
  throw new Error(`raw_codec ${JSON.stringify(codec)} is not one this listminer reads`);
}

/** The buffer itself when nothing else shares its memory, else a copy that has its own. */
function ownMemory(buffer: Buffer): Buffer {
  if (buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength) return buffer;
  const owned = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(owned);
  return owned;
}
