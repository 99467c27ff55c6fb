import type { SeededRandom } from './seeded-random.js';

/**
 * A copy of `bytes` with `count` seeded mutations: bytes flipped, random
 * bytes inserted, runs deleted or repeated, and mail-shaped hazards put in
 * (a bare From_ line, a NUL, a CR). The first `keep` bytes are left alone
 * (so a file still opens as mail).
 */
export function mutateBytes(bytes: Buffer, random: SeededRandom, count: number, keep = 0): Buffer {
  let out = Buffer.from(bytes);
  const HAZARDS = [
    '\nFrom fuzz@example.org Mon Jan  1 00:00:00 2024\n',
    '\0',
    '\r',
    '\n\n',
    '--',
    'Content-Type: multipart/mixed; boundary="z"\n',
    '=?utf-8?B?',
    '\n>From ',
  ];
  for (let i = 0; i < count; i++) {
    const at = out.length <= keep ? out.length : random.int(keep, out.length - 1);
    switch (random.int(0, 4)) {
      case 0:
        if (at < out.length) out[at] = out[at]! ^ (1 << random.int(0, 7));
        break;
      case 1:
        out = Buffer.concat([out.subarray(0, at), random.bytes(random.int(1, 16)), out.subarray(at)]);
        break;
      case 2:
        out = Buffer.concat([out.subarray(0, at), out.subarray(Math.min(out.length, at + random.int(1, 64)))]);
        break;
      case 3: {
        const run = out.subarray(at, at + random.int(1, 256));
        out = Buffer.concat([out.subarray(0, at), run, out.subarray(at)]);
        break;
      }
      case 4:
        out = Buffer.concat([out.subarray(0, at), Buffer.from(random.pick(HAZARDS), 'latin1'), out.subarray(at)]);
        break;
    }
  }
  return out;
}
