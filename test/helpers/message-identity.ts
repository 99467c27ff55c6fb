import { expect } from 'vitest';
import { createHash } from 'node:crypto';
import {
  hashNormalizedBytes,
  identifyMessage,
  normalizeMessageId,
  type MessageIdentity,
} from '../../src/core/archive/message-key.js';
import { firstField, readHeaderBlock } from '../../src/core/archive/raw-headers.js';

const IDENTITY_FIELDS = ['message-id', 'from', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references'];

/** The body as the content hash has always read it, as one string. */
const normalizedBody = (body: Buffer) =>
  body
    .toString('latin1')
    .replace(/\r\n?/g, '\n')
    .replace(/^>+(From )/gm, '$1')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n+$/, '');

/**
 * The identity every listminer before keys read their text computed, kept
 * verbatim: stored rows carry its hashes, so ordinary mail must keep getting them.
 */
export function identityBefore(raw: Buffer): Pick<MessageIdentity, 'messageId' | 'contentHash'> {
  const block = readHeaderBlock(raw);
  const hash = createHash('sha256');
  for (const name of IDENTITY_FIELDS) {
    for (const value of block.fields.get(name) ?? []) hash.update(`${name}:${value.replace(/\s+/g, ' ')}\n`);
  }
  hash.update('\n');
  hash.update(normalizedBody(raw.subarray(block.bodyOffset)));
  return { messageId: normalizeMessageId(firstField(block, 'message-id')), contentHash: hash.digest('hex') };
}

/** The Message-ID and content hash, which the stored keys derive from. */
export function hashedIdentity(raw: Buffer): Pick<MessageIdentity, 'messageId' | 'contentHash'> {
  const { messageId, contentHash } = identifyMessage(raw);
  return { messageId, contentHash };
}

/** The hash every message with no identity field and no body got: all of them were one message. */
const EMPTY_IDENTITY = createHash('sha256').update('\n').digest('hex');

/** `file #index` → why its key changed, for every message of `files` whose key is not the one it had before. */
export function collidedBefore(
  files: readonly string[],
  messagesOf: (file: string) => Buffer[],
): Record<string, string> {
  const changed: Record<string, string> = {};
  for (const file of files) {
    messagesOf(file).forEach((raw, i) => {
      const before = identityBefore(raw);
      if (JSON.stringify(hashedIdentity(raw)) === JSON.stringify(before)) return;
      // Each changed key must have been a collision: the empty identity, or From/To/Subject alone.
      const fields = readHeaderBlock(raw).fields;
      changed[`${file} #${i}`] =
        before.contentHash === EMPTY_IDENTITY
          ? 'no identity field, no body'
          : IDENTITY_FIELDS.some((name) => fields.has(name))
            ? 'no Message-ID, text with no blank line'
            : 'no identity field, text above a blank line';
    });
  }
  return changed;
}

/** The content hash of a body read as one string, as it has always been read. */
export function stringDigest(body: Buffer): { digest: string; length: number } {
  const text = normalizedBody(body);
  return { digest: createHash('sha256').update(text).digest('hex'), length: text.length };
}

/** The content hash of a body read from its bytes. */
export function bytesDigest(body: Buffer): { digest: string; length: number } {
  const hash = createHash('sha256');
  const length = hashNormalizedBytes(hash, body);
  return { digest: hash.digest('hex'), length };
}

/** Expects the bytes reading to hash every message of `files` as the string reading does; how many messages there were. */
export function expectSameDigests(files: readonly string[], messagesOf: (file: string) => Buffer[]): number {
  let messages = 0;
  for (const file of files) {
    for (const raw of messagesOf(file)) {
      messages++;
      expect(bytesDigest(raw), `${file} #${messages}`).toEqual(stringDigest(raw));
    }
  }
  return messages;
}
