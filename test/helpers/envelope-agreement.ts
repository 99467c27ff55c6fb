import { expect } from 'vitest';
import { firstField, readHeaderBlock } from '../../src/core/archive/raw-headers.js';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../src/core/classify/parse-envelope.js';
import { readSimpleMessage } from '../../src/core/classify/read-simple-message.js';

/**
 * Reads every simple message of `files` (one the fast reader takes) with both
 * readers and expects the same envelope, leaving out where they are known to
 * differ: mailparser's U+FFFD where listminer reads Latin-1, and a comment in
 * the From field (`Jane Doe (JIRA) <jira@apache.org>`, RFC 2822 A.5), which
 * mailparser drops from the name.
 */
export async function compareReaders(files: readonly string[], messagesOf: (file: string) => Buffer[]): Promise<{ compared: number; withDateHeader: number }> {
  let compared = 0;
  let withDateHeader = 0;
  for (const file of files) {
    for (const raw of messagesOf(file)) {
      const block = readHeaderBlock(raw);
      if (block.fields.size === 0 || !readSimpleMessage(raw, block)) continue;
      if (/\(/.test((firstField(block, 'from') ?? '').replace(/"(?:[^"\\]|\\.)*"/g, ''))) continue;
      const ours = await parseEnvelope(raw);
      const theirs = await parseEnvelopeWithMailparser(raw);
      if (JSON.stringify(theirs).includes('\ufffd')) continue;
      expect({ file, ...ours }).toEqual({ file, ...theirs });
      compared++;
      if (ours.dateHeader !== null) withDateHeader++;
    }
  }
  return { compared, withDateHeader };
}
