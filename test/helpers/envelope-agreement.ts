import { expect } from 'vitest';
import { firstField, readHeaderBlock } from '../../src/core/archive/raw-headers.js';
import type { Envelope } from '../../src/core/classify/envelope.js';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../src/core/classify/parse-envelope.js';
import { readCommonMessage, type FallbackReason } from '../../src/core/classify/read-common-message.js';

/**
 * Where listminer deliberately reads a message otherwise than mailparser
 * (docs/classify.md), named; every other difference fails the comparison.
 */
function deliberateDifference(file: string, raw: Buffer, ours: Envelope, theirs: Envelope): string | undefined {
  const differing = (Object.keys(ours) as Array<keyof Envelope>).filter(
    (key) => JSON.stringify(ours[key]) !== JSON.stringify(theirs[key]),
  );
  // patchwork's fuzz cases: headers broken on purpose (an encoded word cut in two by a line of base64), where any reading is a guess.
  if (file.includes('/fuzz/')) return 'fuzzed headers';
  // mailparser's U+FFFD (or its UTF-8 bytes read as Latin-1) where listminer reads 8-bit bytes as windows-1252.
  if (/\ufffd|ï¿½/.test(JSON.stringify(theirs))) return 'U+FFFD for 8-bit bytes';
  // An RFC 5322 comment in From: mailparser drops it from the name (`Jane Doe (JIRA) <jira@apache.org>` becomes `Jane Doe`) and misreads RFC 2822 A.5.
  const from = (readHeaderBlock(raw).fields.get('from')?.[0] ?? '').replace(/"(?:[^"\\]|\\.)*"/g, '');
  if (from.includes('(') && differing.every((key) => key === 'fromName' || key === 'fromAddress'))
    return 'comment in From';
  return undefined;
}

export interface ReaderAgreement {
  /** Messages our reader took, compared field by field with mailparser's envelope. */
  compared: number;
  /** Of those, messages with a Date header. */
  withDateHeader: number;
  /** Of those, messages that are multipart. */
  multipart: number;
  /** Compared messages that differ in a deliberate, named way. */
  deliberate: Record<string, number>;
  /** Messages left to mailparser, by reason. */
  declined: Partial<Record<FallbackReason, number>>;
}

/**
 * Reads every message of `files` that our reader takes through both readers
 * and expects the same envelope, but for the deliberate differences above.
 */
export async function compareReaders(
  files: readonly string[],
  messagesOf: (file: string) => Buffer[],
): Promise<ReaderAgreement> {
  const tally: ReaderAgreement = { compared: 0, withDateHeader: 0, multipart: 0, deliberate: {}, declined: {} };
  for (const file of files) {
    for (const [index, raw] of messagesOf(file).entries()) {
      const block = readHeaderBlock(raw);
      if (block.fields.size === 0) continue;
      const read = readCommonMessage(raw, block);
      if (typeof read === 'string') {
        tally.declined[read] = (tally.declined[read] ?? 0) + 1;
        continue;
      }
      const ours = await parseEnvelope(raw);
      const theirs = await parseEnvelopeWithMailparser(raw);
      tally.compared++;
      if (ours.dateHeader !== null) tally.withDateHeader++;
      if (/^\s*multipart\//i.test(firstField(block, 'content-type') ?? '')) tally.multipart++;
      const deliberate = deliberateDifference(file, raw, ours, theirs);
      if (deliberate) tally.deliberate[deliberate] = (tally.deliberate[deliberate] ?? 0) + 1;
      else expect({ file, index, ...ours }).toEqual({ file, index, ...theirs });
    }
  }
  return tally;
}
