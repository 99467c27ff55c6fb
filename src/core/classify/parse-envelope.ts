import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { normalizeMessageId } from '../archive/message-key.js';
import { readHeaderBlock, type HeaderBlock } from '../archive/raw-headers.js';
import { decodeText } from './decode-text.js';
import { decodeWords } from './decode-words.js';
import { detectPatch } from './detect-patch.js';
import type { Envelope } from './envelope.js';
import { htmlToText } from './html-to-text.js';
import { readPerson, readTrailers } from './read-trailers.js';
import { readSeries } from './read-series.js';

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

/** Parses a raw message into its envelope (DESIGN §4). Throws only when the bytes cannot be read as mail at all. */
export async function parseEnvelope(raw: Buffer): Promise<Envelope> {
  const block = readHeaderBlock(raw);
  const mail = await simpleParser(raw, PARSER_OPTIONS);
  const body = readBody(mail);
  const subject = decodeWords(mail.subject ?? '').replace(/\s+/g, ' ').trim();
  const from = readFrom(mail, block);
  const date = readDate(mail, block);
  const listId = readListId(block);
  return {
    messageId: normalizeMessageId(first(block, 'message-id')),
    inReplyTo: readInReplyTo(first(block, 'in-reply-to')),
    references: readIds(all(block, 'references').join(' ')),
    subject,
    fromName: from.name,
    fromAddress: from.address,
    date: date.utc,
    dateOffsetMinutes: date.offset,
    listId,
    listAddress: readListAddress(block, mail, listId),
    body,
    hasPatch: detectPatch(body, mail.attachments.map((a) => ({ contentType: a.contentType, filename: a.filename }))),
    trailers: readTrailers(body),
    series: readSeries(subject),
    size: raw.length,
  };
}

function first(block: HeaderBlock, name: string): string | undefined {
  return block.fields.get(name)?.[0];
}

function all(block: HeaderBlock, name: string): string[] {
  return block.fields.get(name) ?? [];
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

function readFrom(mail: ParsedMail, block: HeaderBlock): { name: string | null; address: string | null } {
  const value = (mail.from as AddressObject | undefined)?.value?.[0];
  let address = value?.address?.trim() || null;
  let name = value?.name?.trim() || null;
  // Pipermail hides addresses as `jane at example.org (Jane)`.
  const rawFrom = first(block, 'from') ?? '';
  const obfuscated = /^\s*([^\s@()<>]+) at ([^\s@()<>]+\.[^\s@()<>]+)\s*(?:\((.*)\))?\s*$/.exec(rawFrom);
  if (obfuscated) {
    address = `${obfuscated[1]}@${obfuscated[2]}`;
    name = obfuscated[3]?.trim() || null;
  }
  if (!address && rawFrom) {
    const person = readPerson(rawFrom);
    return { name: person.name && decodeWords(person.name), address: person.address };
  }
  name = name && decodeWords(name).replace(/^"(.*)"$/, '$1').trim();
  return { name: name && name !== address ? name : null, address: address ? address.toLowerCase() : null };
}

const ZONES: Record<string, number> = { UT: 0, UTC: 0, GMT: 0, Z: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420 };

function readDate(mail: ParsedMail, block: HeaderBlock): { utc: string | null; offset: number | null } {
  const date = mail.date;
  const utc = date && !Number.isNaN(date.getTime()) ? date.toISOString() : null;
  if (!utc) return { utc: null, offset: null };
  const text = (first(block, 'date') ?? '').replace(/\([^)]*\)/g, '').trim();
  const numeric = /([+-])(\d{2}):?(\d{2})$/.exec(text);
  if (numeric) {
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    return { utc, offset: numeric[1] === '-' ? -minutes : minutes };
  }
  const zone = /\b([A-Z]{1,3}T?|UTC)$/i.exec(text)?.[1]?.toUpperCase();
  return { utc, offset: zone !== undefined && zone in ZONES ? ZONES[zone]! : null };
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

function readListId(block: HeaderBlock): string | null {
  return readListIdValue(first(block, 'list-id'));
}

/** List-Post's mailto, else the To/Cc address that the List-Id spells (`dev.kafka.apache.org` ↔ `dev@kafka.apache.org`). */
function readListAddress(block: HeaderBlock, mail: ParsedMail, listId: string | null): string | null {
  const post = /<mailto:([^<>?\s]+@[^<>?\s]+)/i.exec(first(block, 'list-post') ?? '');
  if (post) return post[1]!.toLowerCase();
  if (!listId) return null;
  const spelled = listId.replace('.', '@');
  const recipients = [mail.to, mail.cc].flatMap((field) => (Array.isArray(field) ? field : field ? [field] : [])).flatMap((field) => field.value);
  const match = recipients.find((r) => r.address?.toLowerCase() === spelled);
  return match ? spelled : null;
}
