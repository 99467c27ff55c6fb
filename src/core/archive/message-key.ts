import { createHash, type Hash } from 'node:crypto';
import { firstField, readHeaderBlock, type HeaderBlock } from './raw-headers.js';

/**
 * Identity of a message within a list (docs/store.md). The key is the
 * normalized Message-ID; a message without one gets a key derived from its
 * content, and a different message reusing a Message-ID already stored gets
 * the ID plus a digest of its content. The content hash reads only the
 * identity fields and the body, so the same mail delivered twice (other
 * Received, Delivered-To, Archived-At, X- fields of archives) hashes the same
 * and is stored once.
 */
export interface MessageIdentity {
  /** Normalized Message-ID, or null when the message has none. */
  messageId: string | null;
  contentHash: string;
  /** The Message-ID, else a key made from the content. */
  key: string;
  /** The key it takes when a different message already holds its Message-ID; null without one. */
  variantKey: string | null;
}

const IDENTITY_FIELDS = ['message-id', 'from', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references'];

/**
 * `<Abc@Host>` → `Abc@Host`: brackets, spaces and control bytes removed; case
 * kept. Control bytes go because no real Message-ID has them and PostgreSQL
 * text refuses NUL: one such mail must not stall its whole list.
 */
export function normalizeMessageId(value: string | undefined): string | null {
  if (!value) return null;
  const bracketed = /<([^<>]+)>/.exec(value);
  const id = (bracketed ? bracketed[1]! : value).replace(/[\s\u0000-\u001f\u007f]+/g, '');
  return id.length > 0 && id.length <= 995 ? id : null;
}

/** `block` is the message's header block, when the caller has read it already. */
export function identifyMessage(raw: Buffer, block: HeaderBlock = readHeaderBlock(raw)): MessageIdentity {
  const messageId = normalizeMessageId(firstField(block, 'message-id'));
  const hash = createHash('sha256');
  let identityFields = 0;
  for (const name of IDENTITY_FIELDS) {
    for (const value of block.fields.get(name) ?? []) {
      hash.update(`${name}:${value.replace(/\s+/g, ' ')}\n`);
      identityFields++;
    }
  }
  hash.update('\n');
  const bodyLength = hashNormalized(hash, raw.subarray(block.bodyOffset));
  if (identityFields === 0 && bodyLength === 0) {
    // Not mail (no identity field, no body): told apart by all of its bytes.
    hash.update('\n\u0000unread\n');
    hashNormalized(hash, raw);
  } else {
    const unread = unreadContent(raw, block, messageId, identityFields);
    if (unread !== undefined) hash.update(`\n\u0000unread\n${unread}`);
  }
  const contentHash = hash.digest('hex');
  return {
    messageId,
    contentHash,
    key: messageId ?? syntheticKey(contentHash),
    variantKey: messageId === null ? null : variantKey(messageId, contentHash),
  };
}

/**
 * What the hash above does not read, in the shapes where that made distinct
 * messages one: a message that is not mail (no identity field, no body: text
 * with no header, a lone transport field) is told apart by all of its bytes;
 * a message without Message-ID whose text runs straight into its header (no
 * blank line), and a fragment with no identity field whose text lines stand
 * above a blank line (a body split off its mail, two of which can end in
 * one signature), by those text lines. Every other message gets undefined,
 * so the hash of ordinary mail, which stored rows carry, never changes.
 */
function unreadContent(
  raw: Buffer,
  block: HeaderBlock,
  messageId: string | null,
  identityFields: number,
): string | undefined {
  if (
    block.strayLines.length > 0 &&
    ((messageId === null && block.bodyOffset === raw.length) || identityFields === 0)
  ) {
    return normalizeBody(Buffer.from(block.strayLines.join('\n'), 'latin1'));
  }
  return undefined;
}

/** Bodies above this are hashed from their bytes, never made into one string (V8 refuses strings over 512 MB). */
const STRING_BODY_LIMIT = 8 * 1024 * 1024;

/** Feeds `hash` the normalized body (normalizeBody) and returns its length in characters. */
function hashNormalized(hash: Hash, body: Buffer): number {
  if (body.length > STRING_BODY_LIMIT) return hashNormalizedBytes(hash, body);
  const text = normalizeBody(body);
  hash.update(text);
  return text.length;
}

/**
 * Line endings, trailing blanks and mbox `>From ` quoting differ between
 * archives' copies of one mail. Each rewrite runs only where a cheap look
 * finds something for it: most mail has nothing to rewrite, and this runs
 * on every message fetch reads. Stored content hashes depend on the result,
 * so it must not change.
 */
function normalizeBody(body: Buffer): string {
  let text = body.toString('latin1');
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  if (text.includes('>From ')) text = text.replace(/^>+(From )/gm, '$1');
  text = withoutTrailingBlanks(text);
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === LF) end--;
  return end === text.length ? text : text.slice(0, end);
}

const LF = 10;
const SPACE = 32;
const TAB = 9;

/** `text.replace(/[ \t]+$/gm, '')` for LF line ends, six times faster on list mail (most of which has a `-- ` signature line). */
function withoutTrailingBlanks(text: string): string {
  let out = '';
  let from = 0;
  for (let lf = text.indexOf('\n'); ; lf = text.indexOf('\n', lf + 1)) {
    const lineEnd = lf === -1 ? text.length : lf;
    let end = lineEnd;
    while (end > from && (text.charCodeAt(end - 1) === SPACE || text.charCodeAt(end - 1) === TAB)) end--;
    if (end !== lineEnd) {
      out += text.slice(from, end);
      from = lineEnd;
    }
    if (lf === -1) break;
  }
  return from === 0 ? text : out + text.slice(from);
}

export function syntheticKey(contentHash: string): string {
  return `synthetic-${contentHash.slice(0, 40)}@listminer.invalid`;
}

/** Key for a message whose Message-ID is already taken by a different message. */
export function variantKey(messageId: string, contentHash: string): string {
  return `${messageId}#${contentHash.slice(0, 16)}`;
}

const CR = 13;
const GT = 62;
const FROM_ = Buffer.from('From ');
/** Bytes handed to the hash at once: a line of a huge message can be longer than a string may be. */
const HASH_PIECE = 1024 * 1024;

/**
 * normalizeBody's result, fed to `hash` line by line from the bytes: the
 * same hash (each latin1 character as its UTF-8, as `hash.update(text)`
 * does), without a string of the whole body. Returns the length the string
 * would have had.
 */
export function hashNormalizedBytes(hash: Hash, body: Buffer): number {
  let length = 0;
  let pendingNewlines = 0;
  let from = 0;
  let nextLf = body.indexOf(LF);
  let nextCr = body.indexOf(CR);
  for (let line = 0; from <= body.length; line++) {
    if (nextLf !== -1 && nextLf < from) nextLf = body.indexOf(LF, from);
    if (nextCr !== -1 && nextCr < from) nextCr = body.indexOf(CR, from);
    const end = Math.min(nextLf === -1 ? body.length : nextLf, nextCr === -1 ? body.length : nextCr);
    let start = from;
    let quotes = 0;
    while (start + quotes < end && body[start + quotes] === GT) quotes++;
    if (
      quotes > 0 &&
      end - start - quotes >= FROM_.length &&
      body.subarray(start + quotes, start + quotes + FROM_.length).equals(FROM_)
    )
      start += quotes;
    let stop = end;
    while (stop > start && (body[stop - 1] === SPACE || body[stop - 1] === TAB)) stop--;
    if (line > 0) pendingNewlines++;
    if (stop > start) {
      length += pendingNewlines + (stop - start);
      for (; pendingNewlines > 0; pendingNewlines -= Math.min(pendingNewlines, HASH_PIECE))
        hash.update('\n'.repeat(Math.min(pendingNewlines, HASH_PIECE)));
      for (let piece = start; piece < stop; piece += HASH_PIECE)
        hash.update(body.toString('latin1', piece, Math.min(stop, piece + HASH_PIECE)));
    }
    if (end === body.length) break;
    from = end + (body[end] === CR && body[end + 1] === LF ? 2 : 1);
  }
  return length;
}
