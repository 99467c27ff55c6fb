import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeRaw, encodeRaw } from '../../../../src/core/store/raw-codec.js';

function listMail(bodyBytes: number): Buffer {
  const line = 'We should cut the release candidate once the last blocker is merged.\n';
  return Buffer.from(
    `From: A <a@example.org>\nSubject: [VOTE] Release 3.1.0\nMessage-ID: <vote@example.org>\n\n${line.repeat(Math.ceil(bodyBytes / line.length))}`,
  );
}

describe('the stored form of a raw message', () => {
  it('gives back every message byte for byte, whether its deflated form fits one output chunk or several', () => {
    const half = (size: number) => Buffer.concat([listMail(size / 2), randomBytes(size / 2)]);
    for (const raw of [listMail(100), listMail(5_000), listMail(300_000), half(8_000), half(200_000)]) {
      const { bytes, codec } = encodeRaw(raw);
      expect(codec).toBe('deflate');
      expect(decodeRaw(bytes, codec).equals(raw)).toBe(true);
    }
  });

  it('holds about its own size, not a 16 KiB zlib chunk, while its batch waits to be written', () => {
    const { bytes } = encodeRaw(listMail(5_000));
    expect(bytes.length).toBeLessThan(1_000);
    // A view of Node's shared 8 KiB pool at most; before, each one kept a chunk of 16 KiB to itself.
    expect(bytes.buffer.byteLength).toBeLessThanOrEqual(8 * 1024);
  });
});
