import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeRaw, encodeRaw } from '../../../../src/core/store/raw-codec.js';
import type { RawEncoder as RawEncoderType } from '../../../../src/core/store/raw-encoder.js';

// The worker thread exists only in the build (`npm test` builds first); from source the encoder compresses in place.
const BUILT = fileURLToPath(new URL('../../../../dist/core/store/raw-encoder.js', import.meta.url));
const notBuilt = existsSync(BUILT) ? undefined : `${BUILT} is not built (npm run build)`;
if (notBuilt) console.warn(`skipping the raw encoder's worker tests: ${notBuilt}`);

/** Messages as the mbox reader hands them over: slices of one larger buffer, one of them incompressible. */
function slicedMessages(count: number): Buffer[] {
  const texts = Array.from({ length: count }, (_, i) => `Message-ID: <m${i}@x>\nSubject: message ${i}\n\n${'quoted text of the thread\n'.repeat(1 + (i % 40))}`);
  const whole = Buffer.concat([...texts.map((text) => Buffer.from(text)), randomBytes(3000)]);
  const messages: Buffer[] = [];
  let at = 0;
  for (const text of texts) {
    messages.push(whole.subarray(at, at + Buffer.byteLength(text)));
    at += Buffer.byteLength(text);
  }
  messages.push(whole.subarray(at));
  return messages;
}

describe.skipIf(Boolean(notBuilt))('RawEncoder', () => {
  const load = async () => new ((await import(BUILT)) as { RawEncoder: typeof RawEncoderType }).RawEncoder();

  it('stores each message of a large batch on its worker as encodeRaw would, and in order', async () => {
    const encoder = await load();
    try {
      const messages = slicedMessages(300);
      const stored = await encoder.encode(messages);
      expect(encoder.threaded).toBe(true);
      expect(stored).toHaveLength(messages.length);
      stored.forEach((entry, i) => {
        expect(entry.codec).toBe(encodeRaw(messages[i]!).codec);
        expect(decodeRaw(entry.bytes, entry.codec).equals(messages[i]!)).toBe(true);
      });
      expect(stored.at(-1)!.codec).toBeNull(); // random bytes do not shrink: kept as they are
    } finally {
      await encoder.close();
    }
  });

  it('compresses a small batch in place, and starts its worker again after close', async () => {
    const encoder = await load();
    try {
      const small = slicedMessages(5);
      const stored = await encoder.encode(small);
      stored.forEach((entry, i) => expect(decodeRaw(entry.bytes, entry.codec).equals(small[i]!)).toBe(true));
      await encoder.close();
      const again = slicedMessages(100);
      const storedAgain = await encoder.encode(again);
      storedAgain.forEach((entry, i) => expect(decodeRaw(entry.bytes, entry.codec).equals(again[i]!)).toBe(true));
    } finally {
      await encoder.close();
    }
  });

  it('runs batches sent at once and answers each with its own messages', async () => {
    const encoder = await load();
    try {
      const batches = [slicedMessages(50), slicedMessages(120), slicedMessages(80)];
      const stored = await Promise.all(batches.map((batch) => encoder.encode(batch)));
      stored.forEach((entries, b) => entries.forEach((entry, i) => expect(decodeRaw(entry.bytes, entry.codec).equals(batches[b]![i]!)).toBe(true)));
    } finally {
      await encoder.close();
    }
  });
});
