import { randomBytes } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeRaw, encodeRaw } from '../../../../src/core/store/raw-codec.js';

function listMail(bodyBytes: number): Buffer {
  const line = 'We should cut the release candidate once the last blocker is merged.\n';
  return Buffer.from(
    `From: A <a@example.org>\nSubject: [VOTE] Release 3.1.0\nMessage-ID: <vote@example.org>\n\n${line.repeat(Math.ceil(bodyBytes / line.length))}`,
  );
}

/** A zstd frame starts with its magic number, 0xFD2FB528, little-endian (RFC 8878, section 3.1.1). */
const ZSTD_MAGIC = Buffer.from([0x28, 0xb5, 0x2f, 0xfd]);

/** Whether the buffer has its memory to itself, as the classify pool needs to move it to a worker. */
function ownsItsMemory(buffer: Buffer): boolean {
  return buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength;
}

describe('the stored form of a raw message', () => {
  it('gives back every message byte for byte, small or large, text or half noise', () => {
    const half = (size: number) => Buffer.concat([listMail(size / 2), randomBytes(size / 2)]);
    for (const raw of [listMail(100), listMail(5_000), listMail(300_000), half(8_000), half(200_000)]) {
      const { bytes, codec } = encodeRaw(raw);
      expect(codec).toBe('zstd');
      expect(bytes.subarray(0, 4)).toEqual(ZSTD_MAGIC);
      const decoded = decodeRaw(bytes, codec);
      expect(decoded.equals(raw)).toBe(true);
      expect(ownsItsMemory(decoded)).toBe(true);
    }
  });

  it('keeps a message that would not shrink as it came', () => {
    for (const raw of [randomBytes(4_000), Buffer.from('x')]) {
      expect(encodeRaw(raw)).toEqual({ bytes: raw, codec: null });
      expect(decodeRaw(raw, null)).toBe(raw);
    }
  });

  it('reads the raw DEFLATE that listminer stored before zstd', () => {
    for (const raw of [listMail(100), listMail(5_000), listMail(300_000)]) {
      const decoded = decodeRaw(deflateRawSync(raw, { level: 1 }), 'deflate');
      expect(decoded.equals(raw)).toBe(true);
      expect(ownsItsMemory(decoded)).toBe(true);
    }
  });

  it('names a damaged row rather than giving back wrong bytes', () => {
    const { bytes } = encodeRaw(listMail(5_000));
    expect(() => decodeRaw(bytes.subarray(0, bytes.length - 10), 'zstd')).toThrow();
    expect(() => decodeRaw(bytes, 'lzma')).toThrow('raw_codec "lzma" is not one this listminer reads');
  });

  it('holds about its own size, not a worst-case output buffer, while its batch waits to be written', () => {
    const { bytes } = encodeRaw(listMail(5_000));
    expect(bytes.length).toBeLessThan(1_000);
    // A view of Node's shared 8 KiB pool at most, as zlib's output was once its chunk size was bounded.
    expect(bytes.buffer.byteLength).toBeLessThanOrEqual(8 * 1024);
  });
});
