import type { ParsedMail, StructuredHeader } from 'mailparser';
import { normalizeMessageId } from '../archive/message-key.js';
import { firstField, readHeaderBlock, type HeaderBlock } from '../archive/raw-headers.js';
import { decodeText, storableText } from './decode-text.js';
import { detectPatch } from './detect-patch.js';
import type { Envelope, ReadMessage } from './envelope.js';
import {
  boundText,
  decodeHeaderBytes,
  decodeIdField,
  isObfuscatedSender,
  normalizeAddress,
  readIds,
  readInReplyTo,
  readListIdValue,
  readRecipients,
  readSender,
  readSentDate,
  tidyName,
  tidySubject,
} from './header-values.js';
import { decodeWords } from './decode-words.js';
import { htmlToText } from './html-to-text.js';
import { readTrailers } from './read-trailers.js';
import { readSeries } from './read-series.js';
import { decodeTransfer } from './decode-transfer.js';
import { FALLBACK_REASONS, readCommonMessage, type FallbackReason } from './read-common-message.js';

/**
 * What mailparser does that the envelope never uses (HTML rendering of text,
 * link detection, HTML-to-text) roughly halves its speed, so it is all off;
 * an HTML-only body goes through our own small converter.
 */
const PARSER_OPTIONS = {
  skipHtmlToText: true,
  skipTextToHtml: true,
  skipTextLinks: true,
  skipImageLinks: true,
  keepDeliveryStatus: false,
  // mailparser refuses a header block over 1 MiB by default; list mail with a References field of tens of thousands of ids exceeds that and must still be read (the fast reader has no such limit).
  maxHeadSize: 16 * 1024 * 1024,
} as const;

/**
 * Parses a raw message into its envelope (docs/classify.md). The common
 * message (one text part, or text beside HTML and attachments) is read by
 * our own reader; anything else goes through mailparser. Throws only when the bytes cannot
 * be read as mail at all.
 */
export async function parseEnvelope(raw: Buffer): Promise<Envelope> {
  const block = readHeaderBlock(raw);
  if (block.fields.size === 0) throw new Error('no header fields: the bytes are not a mail message');
  return assembleEnvelope(raw, block, await readMessage(raw, block, true));
}

/** The same envelope, always through mailparser (tests compare the two readers). */
export async function parseEnvelopeWithMailparser(raw: Buffer): Promise<Envelope> {
  const block = readHeaderBlock(raw);
  return assembleEnvelope(raw, block, await readMessage(raw, block, false));
}

/** Forwards inside forwards are read this deep; a deeper one is read as mailparser reads it (an empty body). */
const FORWARD_DEPTH_LIMIT = 8;
/** The inner message's From, Date and Subject as quoted in the body, each at most this many characters. */
const QUOTED_FIELD_LIMIT = 998;

async function readMessage(raw: Buffer, block: HeaderBlock, fast: boolean, depth = 0): Promise<ReadMessage> {
  if (depth < FORWARD_DEPTH_LIMIT && /^\s*message\/rfc822\b/i.test(firstField(block, 'content-type') ?? '')) {
    return readForward(raw, block, fast, depth);
  }
  if (fast) {
    const read = readCommonMessage(raw, block);
    if (typeof read !== 'string') {
      readers.common++;
      return read;
    }
    readers.mailparser[read]++;
  }
  return readWithMailparser(raw, block);
}

/** How many messages (and forwarded messages inside them) each reader read in this thread, and why the rest went to mailparser. */
export interface ReaderCounts {
  common: number;
  mailparser: Record<FallbackReason, number>;
}

const readers: ReaderCounts = {
  common: 0,
  mailparser: Object.fromEntries(FALLBACK_REASONS.map((reason) => [reason, 0])) as Record<FallbackReason, number>,
};

/** The counts since this thread started (parseEnvelope only; the benchmark prints them). */
export function readerCounts(): ReaderCounts {
  return { common: readers.common, mailparser: { ...readers.mailparser } };
}

/**
 * A message whose whole body is another message (`Content-Type:
 * message/rfc822`, a forward as some clients send it) reads as a mail client
 * shows it: the outer Subject and From, and as body the inner message's From,
 * Date and Subject quoted (`> From: …`), a blank line, then the inner text.
 * mailparser gives such a message no text at all.
 */
async function readForward(raw: Buffer, block: HeaderBlock, fast: boolean, depth: number): Promise<ReadMessage> {
  const encoding = (firstField(block, 'content-transfer-encoding') ?? '').trim().toLowerCase();
  const inner = decodeTransfer(raw.subarray(block.bodyOffset), encoding);
  const innerBlock = readHeaderBlock(inner);
  const rawFrom = firstField(block, 'from');
  const outer = {
    subject: tidySubject(decodeHeaderBytes(firstField(block, 'subject') ?? '')),
    from: rawFrom ? readSender(rawFrom) : { name: null, address: null },
  };
  // No header fields: the sender put plain text under the label, and that text is the body.
  if (innerBlock.fields.size === 0)
    return { ...outer, body: decodeText(inner, undefined).replace(/\r\n?/g, '\n'), parts: [] };
  const read = await readMessage(inner, innerBlock, fast, depth + 1);
  const quote = (name: string, value: string | undefined) =>
    value?.trim()
      ? [
          `> ${name}: ${boundText(decodeWords(decodeHeaderBytes(value)).replace(/\s+/g, ' ').trim(), QUOTED_FIELD_LIMIT)}`,
        ]
      : [];
  const header = [
    ...quote('From', firstField(innerBlock, 'from')),
    ...quote('Date', firstField(innerBlock, 'date')),
    ...quote('Subject', read.subject),
  ];
  return {
    ...outer,
    body: header.length > 0 ? `${header.join('\n')}\n\n${read.body}` : read.body,
    parts: read.parts,
  };
}

function assembleEnvelope(raw: Buffer, block: HeaderBlock, read: ReadMessage): Envelope {
  const listId = readListIdValue(firstField(block, 'list-id'));
  const sent = readSentDate(firstField(block, 'date'));
  return storableEnvelope({
    messageId: normalizeMessageId(decodeIdField(firstField(block, 'message-id'))),
    inReplyTo: readInReplyTo(decodeIdField(firstField(block, 'in-reply-to'))),
    references: readIds(decodeIdField((block.fields.get('references') ?? []).join(' '))!),
    subject: read.subject,
    fromName: read.from.name,
    fromAddress: read.from.address,
    date: sent.date,
    dateOffsetMinutes: sent.dateOffsetMinutes,
    dateHeader: sent.dateHeader,
    listId,
    listAddress: readListAddress(block, listId),
    body: read.body,
    hasPatch: detectPatch(read.body, read.parts),
    trailers: readTrailers(read.body),
    series: readSeries(read.subject),
    size: raw.length,
  });
}

/**
 * Text leaves here as what both engines store alike: NUL characters (binary
 * junk in broken mail), which PostgreSQL text and JSONB refuse, are dropped;
 * lone surrogates (a UTF-7 word such as `+2D0-` decodes to half a pair),
 * which PostgreSQL refuses and SQLite stores as bytes no UTF-8 reader takes,
 * become U+FFFD.
 */
function storableEnvelope(envelope: Envelope): Envelope {
  const clean = storableText;
  const cleanOrNull = (value: string | null) => (value === null ? null : storableText(value));
  return {
    ...envelope,
    messageId: cleanOrNull(envelope.messageId),
    inReplyTo: cleanOrNull(envelope.inReplyTo),
    references: envelope.references.map(clean),
    subject: clean(envelope.subject),
    fromName: cleanOrNull(envelope.fromName),
    fromAddress: cleanOrNull(envelope.fromAddress),
    dateHeader: cleanOrNull(envelope.dateHeader),
    listId: cleanOrNull(envelope.listId),
    listAddress: cleanOrNull(envelope.listAddress),
    body: clean(envelope.body),
    trailers: envelope.trailers.map((t) => ({ ...t, name: cleanOrNull(t.name), address: cleanOrNull(t.address) })),
  };
}

/**
 * The most steps libqp's trailing-blank pattern may take over a message:
 * what one run of 8,000 blanks inside a line costs, about a quarter of a
 * second. Real mail's runs are a few dozen blanks long.
 */
const MAX_BLANK_BACKTRACKING = 32_000_000;

/**
 * mailparser decodes quoted-printable with libqp, whose `/[\t ]+$/gm`
 * backtracks over every run of blanks that does not end its line, once from
 * each of its blanks: 50,000 blanks and a letter take about 10 s, 200,000
 * over 3 minutes (docs/classify.md, "Hostile input"). Such a message is
 * refused, to be shunted with its bytes, rather than hold the stage.
 */
function refuseBlankBacktracking(raw: Buffer): void {
  let steps = 0;
  let longest = 0;
  for (let at = 0; at < raw.length; at++) {
    if (raw[at] !== 0x20 && raw[at] !== 0x09) continue;
    const start = at;
    while (at + 1 < raw.length && (raw[at + 1] === 0x20 || raw[at + 1] === 0x09)) at++;
    const next = raw[at + 1];
    if (next === undefined || next === 0x0a || next === 0x0d) continue;
    const run = at - start + 1;
    steps += (run * (run + 1)) / 2;
    longest = Math.max(longest, run);
  }
  if (steps > MAX_BLANK_BACKTRACKING)
    throw new Error(
      `it holds ${longest} blanks inside a line (the longest run), which mailparser's quoted-printable decoder takes minutes over`,
    );
}

/**
 * mailparser is loaded when a message first needs it: loading it (with
 * html-to-text, linkify-it and its list of top-level domains) costs each
 * thread some 60 ms of CPU (docs/performance.md), and a thread whose mail our
 * reader takes whole never needs it.
 */
let mailparser: Promise<typeof import('mailparser')> | undefined;

async function readWithMailparser(raw: Buffer, block: HeaderBlock): Promise<ReadMessage> {
  refuseBlankBacktracking(raw);
  mailparser ??= import('mailparser');
  const mail = await (await mailparser).simpleParser(raw, PARSER_OPTIONS);
  return {
    subject: tidySubject(mail.subject ?? ''),
    from: readFrom(mail, block),
    body: readBody(mail),
    parts: mail.attachments.map((a) => ({ contentType: a.contentType, filename: a.filename })),
  };
}

function readBody(mail: ParsedMail): string {
  let text =
    typeof mail.text === 'string' && mail.text.trim()
      ? mail.text
      : typeof mail.html === 'string'
        ? htmlToText(mail.html)
        : (mail.text ?? '');
  if (!text.trim()) text = bareTextPart(mail) ?? text;
  return text.replace(/\r\n?/g, '\n');
}

/**
 * `Content-Type: text` without a subtype is text to a reader; mailparser
 * files it as an attachment, so the body is taken from there.
 */
function bareTextPart(mail: ParsedMail): string | undefined {
  const part = mail.attachments.find(
    (a) =>
      /^text(?:\/plain)?$/i.test(String(a.contentType ?? '')) && a.contentDisposition !== 'attachment' && !a.filename,
  );
  if (!part) return undefined;
  // mailparser keeps a part's Content-Type as { value, params }, its charset among the params.
  const contentType = part.headers.get('content-type') as StructuredHeader | undefined;
  return decodeText(part.content, contentType?.params.charset);
}

function readFrom(mail: ParsedMail, block: HeaderBlock): { name: string | null; address: string | null } {
  const rawFrom = firstField(block, 'from') ?? '';
  if (isObfuscatedSender(rawFrom)) return readSender(rawFrom);
  const value = mail.from?.value?.[0];
  const address = value?.address?.trim() ? normalizeAddress(value.address.trim()) : null;
  if (!address && rawFrom) return readSender(rawFrom);
  return { name: tidyName(value?.name, address), address };
}

/** List-Post's mailto, else the To/Cc address that the List-Id spells (`dev.kafka.apache.org` ↔ `dev@kafka.apache.org`). */
function readListAddress(block: HeaderBlock, listId: string | null): string | null {
  const post = /<mailto:([^<>?\s]+@[^<>?\s]+)/i.exec(firstField(block, 'list-post') ?? '');
  if (post) return post[1]!.toLowerCase();
  if (!listId) return null;
  const spelled = listId.replace('.', '@');
  // Only fields that spell the address anywhere are parsed: most mail has none, and the parse is the costly part.
  const fields = [...(block.fields.get('to') ?? []), ...(block.fields.get('cc') ?? [])].filter((value) =>
    value.toLowerCase().includes(spelled),
  );
  return fields.length > 0 && readRecipients(fields).includes(spelled) ? spelled : null;
}
