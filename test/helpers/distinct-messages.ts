import { createHash } from 'node:crypto';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { readHeaderBlock } from '../../src/core/archive/raw-headers.js';
import { reexportDigest } from '../../src/core/archive/same-mail.js';

const IDENTITY_FIELDS = ['message-id', 'from', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references'];

/**
 * How many different messages there are among raw messages, as rule 2 counts
 * them (docs/store.md, "Identity of a message"): two copies of one mail that
 * differ only in transport headers (Received, Delivered-To, …) or line
 * endings are one message, and so are two copies under one Message-ID that
 * are one mail in two forms (isSameMail: folding, quoting, boundaries);
 * anything else is two. A message with none of the identity fields (From,
 * Subject, Message-ID, …) has nothing but its bytes to tell it by, so its
 * bytes decide.
 */
export function countDistinctMessages(raws: readonly Buffer[]): number {
  const seen = new Set<string>();
  for (const raw of raws) seen.add(distinctionOf(raw));
  return seen.size;
}

/**
 * The raw messages that no row stands for: neither a row of their own
 * content hash nor one of another copy of the same message (distinctionOf),
 * each as it begins.
 */
export function messagesWithoutRow(raws: readonly Buffer[], storedHashes: ReadonlySet<string>): string[] {
  const stored = new Set(
    raws.filter((raw) => storedHashes.has(identifyMessage(raw).contentHash)).map((raw) => distinctionOf(raw)),
  );
  return raws
    .filter((raw) => !stored.has(distinctionOf(raw)))
    .map((raw) => JSON.stringify(raw.toString('latin1', 0, 160)));
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
  if (!IDENTITY_FIELDS.some((name) => fields.has(name)))
    return `bytes:${createHash('sha256').update(raw).digest('hex')}`;
  const { messageId, contentHash } = identifyMessage(raw);
  return messageId === null ? contentHash : `${messageId}\0${reexportDigest(raw)}`;
}
