import { createHash } from 'node:crypto';
import type libmimeModule from 'libmime';
import { loadOnFirstUse } from '../load-on-first-use.js';
import { readHeaderBlock } from './raw-headers.js';

/**
 * Whether two copies that share a Message-ID are one mail as archive
 * software re-exports it (docs/store.md, "Identity"). HyperKitty builds each
 * message anew on every export: a fresh random MIME boundary, headers folded
 * and encoded-words encoded its own way, mboxo quoting. The content hash is
 * exact, so such a copy hashes differently; this looser reading says it is
 * the same mail. Mailman 2 archiving one message twice links the second
 * copy's scrubbed attachment under a counted name; that is set aside too.
 * Two mails whose header text or body text differ stay two.
 */
export function isSameMail(a: Buffer, b: Buffer): boolean {
  return reexportDigest(a) === reexportDigest(b);
}

const TEXT_FIELDS = ['from', 'to', 'cc', 'date', 'subject'];
const ID_FIELDS = ['message-id', 'in-reply-to', 'references'];
const BOUNDARY = /boundary\s*=\s*(?:"([^"\r\n]+)"|([^\s;"]+))/gi;

/** A digest of the message's decoded identity fields and its body with boundaries, folding, quoting and white space set aside. */
export function reexportDigest(raw: Buffer): string {
  const block = readHeaderBlock(raw);
  const hash = createHash('sha256');
  for (const name of TEXT_FIELDS) {
    for (const value of block.fields.get(name) ?? []) hash.update(`${name}:${collapse(decodeWords(value))}\n`);
  }
  // Ids re-encoded as encoded words (HyperKitty does this to ids of 76 characters or more) read as the ids.
  for (const name of ID_FIELDS) {
    for (const value of block.fields.get(name) ?? [])
      hash.update(`${name}:${(decodeWords(value).match(/<[^<>]*>/g) ?? [collapse(value)]).join(' ')}\n`);
  }
  hash.update('\n');
  hash.update(comparableBody(raw.toString('latin1'), raw.toString('latin1', block.bodyOffset)));
  return hash.digest('hex');
}

function comparableBody(message: string, body: string): string {
  let text = body;
  // Each boundary the message declares, in the order declared, stands for its place: a new random one reads the same.
  const boundaries = [...new Set([...message.matchAll(BOUNDARY)].map((match) => match[1] ?? match[2]!))];
  boundaries.forEach((boundary, index) => {
    text = text.split(boundary).join(`\u0000boundary-${index}\u0000`);
  });
  return collapse(text.replace(/^>+(From )/gm, '$1').replace(SCRUBBED_COPY, '$1'));
}

/**
 * Mailman 2's Scrubber stores a message's attachments under a folder named
 * for the message and links them from its footer; archiving the same
 * message again finds the name taken and adds a counter
 * (`attachment.sig`, then `attachment-0001.sig`).
 */
const SCRUBBED_COPY = /(\/attachments\/\d{8}\/[0-9a-f]{8}\/[^\s>/]*?)-\d{4}(?=(?:\.[\w-]+)?(?:>|\s|$))/g;

/** Fetch compares mail with encoded words rarely; the decoder loads then. */
const libmime = loadOnFirstUse<typeof libmimeModule>('libmime');

function decodeWords(value: string): string {
  if (!value.includes('=?')) return value;
  try {
    return libmime().decodeWords(value);
  } catch {
    return value;
  }
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();
