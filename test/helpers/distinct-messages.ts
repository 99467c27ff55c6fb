import { createHash } from 'node:crypto';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { readHeaderBlock } from '../../src/core/archive/raw-headers.js';

const IDENTITY_FIELDS = ['message-id', 'from', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references'];

/**
 * How many different messages there are among raw messages, as rule 2 counts
 * them: two copies of one mail that differ only in transport headers
 * (Received, Delivered-To, …) or line endings are one message; anything else
 * is two. A message with none of the identity fields (From, Subject,
 * Message-ID, …) has nothing but its bytes to tell it by, so its bytes decide.
 */
export function countDistinctMessages(raws: readonly Buffer[]): number {
  const seen = new Set<string>();
  for (const raw of raws) seen.add(distinctionOf(raw));
  return seen.size;
}

function distinctionOf(raw: Buffer): string {
  const fields = readHeaderBlock(raw).fields;
  if (IDENTITY_FIELDS.some((name) => fields.has(name))) return identifyMessage(raw).contentHash;
  return `bytes:${createHash('sha256').update(raw).digest('hex')}`;
}
