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

/**
 * Messages that are different by countDistinctMessages but share
 * listminer's content hash (so they would share one row), each as it begins.
 */
export function differentButSameHash(raws: readonly Buffer[]): string[] {
  const byHash = new Map<string, Map<string, Buffer>>();
  for (const raw of raws) {
    const hash = identifyMessage(raw).contentHash;
    const group = byHash.get(hash) ?? new Map<string, Buffer>();
    group.set(distinctionOf(raw), raw);
    byHash.set(hash, group);
  }
  return [...byHash.values()]
    .filter((group) => group.size > 1)
    .flatMap((group) => [...group.values()].map((raw) => JSON.stringify(raw.toString('latin1', 0, 120))));
}

function distinctionOf(raw: Buffer): string {
  const fields = readHeaderBlock(raw).fields;
  if (IDENTITY_FIELDS.some((name) => fields.has(name))) return identifyMessage(raw).contentHash;
  return `bytes:${createHash('sha256').update(raw).digest('hex')}`;
}
