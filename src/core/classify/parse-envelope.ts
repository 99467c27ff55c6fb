import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { normalizeMessageId } from '../archive/message-key.js';
import { firstField, readHeaderBlock, type HeaderBlock } from '../archive/raw-headers.js';
import { decodeText, decodeUnlabelled } from './decode-text.js';
import { decodeWords } from './decode-words.js';
import { detectPatch, type PartInfo } from './detect-patch.js';
import type { Envelope } from './envelope.js';
import { htmlToText } from './html-to-text.js';
import { readPerson, readTrailers } from './read-trailers.js';
import { readSeries } from './read-series.js';
import { readSimpleMessage } from './read-simple-message.js';

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
} as const;

/** What differs between the two ways of reading a message; the rest comes from the raw header block. */
export interface ReadMessage {
  subject: string;
  from: { name: string | null; address: string | null };
  /** UTC, ISO-8601, or null. */
  date: string | null;
  body: string;
  parts: PartInfo[];
  /** Lower-cased To and Cc addresses. */
  recipients: string[];
}

/**
 * Parses a raw message into its envelope (DESIGN §4). A single-part
 * text/plain message (most list mail) is read by our own small reader;
 * anything else goes through mailparser. Throws only when the bytes cannot
 * be read as mail at all.
 */
export async function parseEnvelope(raw: Buffer): Promise<Envelope> {
  const block = readHeaderBlock(raw);
  if (block.fields.size === 0) throw new Error('no header fields: the bytes are not a mail message');
  const read = readSimpleMessage(raw, block) ?? (await readWithMailparser(raw, block));
  return assembleEnvelope(raw, block, read);
}

/** The same envelope, always through mailparser (tests compare the two readers). */
export async function parseEnvelopeWithMailparser(raw: Buffer): Promise<Envelope> {
  const block = readHeaderBlock(raw);
  return assembleEnvelope(raw, block, await readWithMailparser(raw, block));
}

function assembleEnvelope(raw: Buffer, block: HeaderBlock, read: ReadMessage): Envelope {
  const listId = readListIdValue(firstField(block, 'list-id'));
  return withoutNul({
    messageId: normalizeMessageId(firstField(block, 'message-id')),
    inReplyTo: readInReplyTo(firstField(block, 'in-reply-to')),
    references: readIds((block.fields.get('references') ?? []).join(' ')),
    subject: read.subject,
    fromName: read.from.name,
    fromAddress: read.from.address,
    date: read.date,
    dateOffsetMinutes: read.date ? readDateOffset(firstField(block, 'date')) : null,
    listId,
    listAddress: readListAddress(block, read.recipients, listId),
    body: read.body,
    hasPatch: detectPatch(read.body, read.parts),
    trailers: readTrailers(read.body),
    series: readSeries(read.subject),
    size: raw.length,
  });
}

/**
 * NUL characters (binary junk in broken mail) cannot be stored in
 * PostgreSQL text or JSONB; they carry nothing a reader needs.
 */
function withoutNul(envelope: Envelope): Envelope {
  // eslint-disable-next-line no-control-regex
  const clean = (value: string) => (value.includes('\u0000') ? value.replace(/\u0000/g, '') : value);
  const cleanOrNull = (value: string | null) => (value === null ? null : clean(value));
  return {
    ...envelope,
    messageId: cleanOrNull(envelope.messageId),
    inReplyTo: cleanOrNull(envelope.inReplyTo),
    references: envelope.references.map(clean),
    subject: clean(envelope.subject),
    fromName: cleanOrNull(envelope.fromName),
    fromAddress: cleanOrNull(envelope.fromAddress),
    listId: cleanOrNull(envelope.listId),
    listAddress: cleanOrNull(envelope.listAddress),
    body: clean(envelope.body),
    trailers: envelope.trailers.map((t) => ({ ...t, name: cleanOrNull(t.name), address: cleanOrNull(t.address) })),
  };
}

async function readWithMailparser(raw: Buffer, block: HeaderBlock): Promise<ReadMessage> {
  const mail = await simpleParser(raw, PARSER_OPTIONS);
  // mailparser gives a message without a Date header the time of parsing; that is not the message's date.
  const date = firstField(block, 'date') && mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date.toISOString() : null;
  const recipients = [mail.to, mail.cc]
    .flatMap((field) => (Array.isArray(field) ? field : field ? [field] : []))
    .flatMap((field) => field.value)
    .map((r) => (r.address ?? '').toLowerCase());
  return {
    subject: tidySubject(mail.subject ?? ''),
    from: readFrom(mail, block),
    date,
    body: readBody(mail),
    parts: mail.attachments.map((a) => ({ contentType: a.contentType, filename: a.filename })),
    recipients,
  };
}

export function tidySubject(subject: string): string {
  return decodeWords(subject).replace(/\s+/g, ' ').trim();
}

function readBody(mail: ParsedMail): string {
  let text = typeof mail.text === 'string' && mail.text.trim() ? mail.text : typeof mail.html === 'string' ? htmlToText(mail.html) : (mail.text ?? '');
  if (!text.trim()) text = bareTextPart(mail) ?? text;
  return text.replace(/\r\n?/g, '\n');
}

/**
 * `Content-Type: text` without a subtype is text to a reader; mailparser
 * files it as an attachment, so the body is taken from there.
 */
function bareTextPart(mail: ParsedMail): string | undefined {
  const part = mail.attachments.find((a) => /^text(?:\/plain)?$/i.test(String(a.contentType ?? '')) && a.contentDisposition !== 'attachment' && !a.filename);
  if (!part) return undefined;
  const charset = /charset="?([^";\s]+)/i.exec(String(part.headers.get('content-type') ?? ''))?.[1];
  return decodeText(part.content, charset);
}

/** Every `<id>` in a header, in order. */
export function readIds(value: string): string[] {
  const ids: string[] = [];
  for (const match of value.matchAll(/<([^<>]+)>/g)) {
    const id = normalizeMessageId(`<${match[1]}>`);
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * The parent's Message-ID. Beside `<id>`, old mailers wrote
 * `Your message of "Mon, 1 Jan 2001 …" <id>`; the id is the bracketed part
 * that looks like an address. A bare `id@host` without brackets counts too.
 */
export function readInReplyTo(value: string | undefined): string | null {
  if (!value) return null;
  const ids = readIds(value);
  const likely = ids.find((id) => id.includes('@')) ?? ids[0];
  if (likely) return likely;
  const bare = /^\s*([^\s<>"]+@[^\s<>"]+)\s*$/.exec(value);
  return bare ? bare[1]! : null;
}

/** Pipermail hides addresses as `jane at example.org (Jane)`. */
const OBFUSCATED = /^\s*([^\s@()<>]+) at ([^\s@()<>]+\.[^\s@()<>]+)\s*(?:\((.*)\))?\s*$/;

function readFrom(mail: ParsedMail, block: HeaderBlock): { name: string | null; address: string | null } {
  const rawFrom = firstField(block, 'from') ?? '';
  if (OBFUSCATED.test(rawFrom)) return readSender(rawFrom);
  const value = (mail.from as AddressObject | undefined)?.value?.[0];
  const address = value?.address?.trim().toLowerCase() || null;
  if (!address && rawFrom) return readSender(rawFrom);
  const name = value?.name ? decodeWords(value.name).replace(/^"(.*)"$/, '$1').trim() : null;
  return { name: name && name.toLowerCase() !== address ? name : null, address };
}

/** A From header read without mailparser: `Jane <jane@x>`, `jane@x (Jane)`, `jane at x (Jane)`. */
export function readSender(value: string): { name: string | null; address: string | null } {
  const text = decodeHeaderBytes(value);
  const obfuscated = OBFUSCATED.exec(text);
  if (obfuscated) {
    const name = obfuscated[3] ? decodeWords(obfuscated[3]).trim() : '';
    return { name: name || null, address: `${obfuscated[1]}@${obfuscated[2]}`.toLowerCase() };
  }
  const person = readPerson(text);
  const name = person.name ? decodeWords(person.name).replace(/^"(.*)"$/, '$1').trim() : null;
  return { name: name && name.toLowerCase() !== person.address ? name : null, address: person.address };
}

/** Raw 8-bit header bytes (held as latin1 text): UTF-8 when valid, else windows-1252. */
export function decodeHeaderBytes(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /[^\x00-\x7f]/.test(value) ? decodeUnlabelled(Buffer.from(value, 'latin1')) : value;
}

const ZONES: Record<string, number> = { UT: 0, UTC: 0, GMT: 0, Z: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420 };

/** The sender's UTC offset in minutes, from `+0100`, `-07:00` or a US zone name. */
export function readDateOffset(value: string | undefined): number | null {
  const text = (value ?? '').replace(/\([^)]*\)/g, '').trim();
  const numeric = /([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    // RFC 5322: "-0000" says the sender's local offset is unknown.
    if (minutes === 0) return numeric[1] === '-' ? null : 0;
    return numeric[1] === '-' ? -minutes : minutes;
  }
  const zone = /\b([A-Z]{1,3}T?|UTC)$/i.exec(text)?.[1]?.toUpperCase();
  return zone !== undefined && zone in ZONES ? ZONES[zone]! : null;
}

/**
 * `List-Id: Kafka dev <dev.kafka.apache.org>` → `dev.kafka.apache.org`.
 * mailparser files a bare `List-Id: <x>` under the name, so the raw header
 * is read here instead.
 */
export function readListIdValue(value: string | undefined): string | null {
  if (!value) return null;
  const bracketed = /<([^<>]+)>/.exec(value);
  const id = (bracketed ? bracketed[1]! : (value.trim().split(/\s+/).pop() ?? '')).trim().toLowerCase();
  return id.length > 0 ? id : null;
}

/** List-Post's mailto, else the To/Cc address that the List-Id spells (`dev.kafka.apache.org` ↔ `dev@kafka.apache.org`). */
function readListAddress(block: HeaderBlock, recipients: readonly string[], listId: string | null): string | null {
  const post = /<mailto:([^<>?\s]+@[^<>?\s]+)/i.exec(firstField(block, 'list-post') ?? '');
  if (post) return post[1]!.toLowerCase();
  if (!listId) return null;
  const spelled = listId.replace('.', '@');
  return recipients.includes(spelled) ? spelled : null;
}
