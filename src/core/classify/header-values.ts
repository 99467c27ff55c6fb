import { domainToASCII } from 'node:url';
import addressparser from 'addressparser';
import { normalizeMessageId } from '../archive/message-key.js';
import { parseMailDate, possibleOffset, TRAILING_OFFSET } from '../archive/parse-mail-date.js';
import { decodeIso2022Jp, decodeUnlabelled } from './decode-text.js';
import { decodeWords } from './decode-words.js';
import { isPlausibleSentAt } from './envelope.js';

/**
 * Values of single header fields, read the same way by both readers of
 * parse-envelope (our own for the common message, mailparser for MIME), so the
 * two cannot drift apart. Every reader here is linear in the header's size:
 * hostile mail carries megabyte-long fields.
 */

export interface Person {
  name: string | null;
  /** In normal form (normalizeAddress). */
  address: string | null;
}

/**
 * The one spelling of an address that drain matches contributors by:
 * lower-cased, an internationalized domain in its ASCII (punycode) form.
 * mailparser turns `xn--` domains into Unicode and our own reader keeps
 * them, so both go through here. ASCII rather than Unicode because it is
 * the form the mail carried on the wire and the one SMTP, DNS and the
 * other sources of addresses use, and lower-casing it is exact, where a
 * Unicode domain would also need NFC and case folding to compare equal.
 * A domain that is no host name (an address literal, say) is only lower-cased.
 */
export function normalizeAddress(address: string): string {
  const lower = address.toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at < 0) return lower;
  const domain = lower.slice(at + 1);
  if (!/[^\x00-\x7f]/.test(domain)) return lower;
  return `${lower.slice(0, at + 1)}${domainToASCII(domain) || domain}`;
}

/**
 * Message-ID, In-Reply-To and References as ids can be read from them.
 * Python's email package (HyperKitty's exports) folds a field with a token
 * too long for one line into RFC 2047 encoded words, so an id of 76
 * characters or more arrives as `=?utf-8?q?=3C…=40…=3E?=`, split over lines.
 */
export function decodeIdField(value: string | undefined): string | undefined {
  return value !== undefined && value.includes('=?') ? decodeWords(value) : value;
}

/** Raw header bytes (held as latin1 text): 8-bit ones UTF-8 when valid, else windows-1252; raw ISO-2022-JP runs decoded. */
export function decodeHeaderBytes(value: string): string {
  return decodeIso2022Jp(/[^\x00-\x7f]/.test(value) ? decodeUnlabelled(Buffer.from(value, 'latin1')) : value);
}

/** Both readers' subject: mailparser hands raw ISO-2022-JP runs over as they are, so they are decoded here too. */
export function tidySubject(subject: string): string {
  return decodeWords(decodeIso2022Jp(subject)).replace(/\s+/g, ' ').trim();
}

/** Pipermail hides addresses as `jane at example.org (Jane)`; the domain is checked for a dot apart, which keeps the pattern linear. */
const OBFUSCATED = /^\s*([^\s@()<>]+) at ([^\s@()<>]+)\s*(?:\((.*)\))?\s*$/;

function readObfuscated(text: string): Person | undefined {
  const match = OBFUSCATED.exec(text);
  // As `name at host.tld`: a dot with something on both sides.
  if (!match || !match[2]!.slice(1, -1).includes('.')) return undefined;
  const name = match[3] ? decodeWords(match[3]).trim() : '';
  // Early pipermail wrote the hidden address again as the name: `dev at host (dev at host)`.
  const hidden = `${match[1]} at ${match[2]}`.toLowerCase();
  return {
    name: name && name.toLowerCase() !== hidden ? name : null,
    address: normalizeAddress(`${match[1]}@${match[2]}`),
  };
}

/** Whether a From value is pipermail's `jane at example.org (Jane)`, which mailparser cannot read. */
export function isObfuscatedSender(value: string): boolean {
  return readObfuscated(value) !== undefined;
}

/** A From header as found: `Jane <jane@x>`, `jane@x (Jane)`, `jane at x (Jane)`, 8-bit bytes and encoded words decoded. */
export function readSender(value: string): Person {
  const text = decodeHeaderBytes(value);
  const obfuscated = readObfuscated(text);
  if (obfuscated) return obfuscated;
  const person = readPerson(text);
  return { name: tidyName(person.name, person.address), address: person.address };
}

/** A display name as readers see it: encoded words decoded, outer quotes gone, null when it only repeats the address. */
export function tidyName(name: string | null | undefined, address: string | null): string | null {
  const tidy = name
    ? decodeWords(decodeIso2022Jp(name))
        .replace(/^"(.*)"$/, '$1')
        .trim()
    : null;
  return tidy && tidy.toLowerCase() !== address ? tidy : null;
}

/** An angle address whose `(comments)` may sit even inside it: `Pete <pete(his account)@silly.test(his host)>`. */
const ANGLE_ADDRESS = String.raw`<((?:[^<>()\s]|\((?:\\.|[^()\\])*\))+)>`;
/** A display name of quoted strings and other text, then the angle address. */
const QUOTE_AWARE_ADDRESS = new RegExp(String.raw`^((?:"(?:\\.|[^"\\])*"|[^"<])*?)\s*` + ANGLE_ADDRESS);
/** Whatever stands before the first angle address, quotes or not. */
const FIRST_ADDRESS = new RegExp(String.raw`^(.*?)\s*` + ANGLE_ADDRESS);

/** `Jane Doe <Jane@Example.org>`, `jane@example.org (Jane)`, or a bare name (a From field, a trailer line). */
export function readPerson(text: string): Person {
  // Blanks folded first: every pattern below then meets runs of at most one blank, which keeps them linear.
  const value = text.replace(/\s+/g, ' ').trim();
  // The address is the first `<…>` outside quotes: `"Eve <victim@x>" <eve@y>` is eve@y. A quote left open is read as if it were none.
  const bracketed = QUOTE_AWARE_ADDRESS.exec(value) ?? FIRST_ADDRESS.exec(value);
  if (bracketed)
    return {
      name: cleanName(bracketed[1]!),
      address: normalizeAddress(bracketed[2]!.replace(/\((?:\\.|[^()\\])*\)/g, '')) || null,
    };
  const bare = /^([^\s<>()]+@[^\s<>()]+)\s*(?:\((.*)\))?/.exec(value);
  if (bare) return { name: cleanName(bare[2] ?? ''), address: normalizeAddress(bare[1]!) };
  return readNameThenAddress(value) ?? { name: cleanName(value), address: null };
}

/** Mailman 2.0's archive writes `Jane Doe jane@example.org`: a name, a blank, an address with a dotted domain, nothing after. */
function readNameThenAddress(value: string): Person | undefined {
  const blank = value.lastIndexOf(' ');
  if (blank <= 0) return undefined;
  const address = value.slice(blank + 1);
  if (!/^[^\s<>()"@,;]+@[^\s<>()"@,;]+\.[^\s<>()"@,;.]+$/.test(address)) return undefined;
  return { name: cleanName(value.slice(0, blank)), address: normalizeAddress(address) };
}

function cleanName(name: string): string | null {
  const trimmed = trimQuotes(name.replace(/\s+/g, ' ')).replace(/\\(.)/g, '$1');
  return trimmed.length > 0 ? trimmed : null;
}

/** Quotes and blanks off both ends, by index: a `["\s]+$` pattern is quadratic over a long inner run of them. */
function trimQuotes(text: string): string {
  const loose = (i: number) => text[i] === '"' || text[i] === ' ';
  let start = 0;
  let end = text.length;
  while (start < end && loose(start)) start++;
  while (end > start && loose(end - 1)) end--;
  return text.slice(start, end);
}

/**
 * Lower-cased addresses of To and Cc fields, group members included. Only
 * the first 64 KiB of each field is read: addressparser grows its result by
 * copying, which costs seconds on a field of tens of thousands of addresses,
 * and a list's own address sits among the first few anyway.
 */
export const RECIPIENT_FIELD_LIMIT = 64 * 1024;

export function readRecipients(values: readonly string[]): string[] {
  const addresses: string[] = [];
  const collect = (entries: addressparser.Address[]) => {
    for (const entry of entries) {
      if (entry.group) collect(entry.group);
      else if (entry.address) addresses.push(entry.address.toLowerCase());
    }
  };
  for (const value of values) collect(addressparser(value.slice(0, RECIPIENT_FIELD_LIMIT)));
  return addresses;
}

/** Every `<id>` in a header, each once, in first-seen order. */
export function readIds(value: string): string[] {
  const ids = new Set<string>();
  for (const match of value.matchAll(/<([^<>]+)>/g)) {
    const id = normalizeMessageId(`<${match[1]}>`);
    if (id) ids.add(id);
  }
  return [...ids];
}

/**
 * The parts of an In-Reply-To phrase, each read once (hostile fields are
 * megabytes long): a quoted string, a comment, a bracketed id or address,
 * a word or a number.
 */
const PHRASE_PARTS = /"[^"]*"|\([^()]*\)|<([^<>]*)>|([A-Za-z]+|\d+)/g;
/** `<john@example.org>'s message of …`: what a possessive follows is the sender's address. */
const POSSESSIVE = /\s*['’]s\b/y;

/**
 * The parent's Message-ID. RFC 5322 makes In-Reply-To a list of ids, but old
 * mailers wrote a phrase around one, and some named the sender in it with an
 * address that reads just like an id:
 * `Your message of "Tue, 3 Mar 2009 …" <id>`,
 * `Message from John Doe <john@example.org> of "…" <id>`,
 * `<john@example.org>'s message of "…" <id>`, `<id> from "John Doe"`,
 * `<id> (message from John Doe <john@example.org> on …)`.
 * The parent is the first bracketed id that is not the sender's (the one a
 * `from` and a name lead to, or a possessive follows), outside quoted strings
 * and comments, one with an @ before one without: the first, as a Message-ID
 * is read (normalizeMessageId), so that a mangled id still names its message.
 * A bare `id@host` alone counts too.
 */
export function readInReplyTo(value: string | undefined): string | null {
  if (!value) return null;
  let withoutHost: string | null = null;
  let bracketed = false;
  /** A `from` was read and no bracketed token or number since: the next bracketed one is the sender's. */
  let fromSender = false;
  for (const match of value.matchAll(PHRASE_PARTS)) {
    const [, inner, word] = match;
    if (word !== undefined) {
      // A number (a date) ends the name after `from`.
      if (word.toLowerCase() === 'from') fromSender = true;
      else if (/^\d/.test(word)) fromSender = false;
      continue;
    }
    if (inner === undefined) continue;
    bracketed = true;
    POSSESSIVE.lastIndex = match.index + match[0].length;
    const sender = fromSender || POSSESSIVE.test(value);
    fromSender = false;
    if (sender) continue;
    const id = normalizeMessageId(`<${inner}>`);
    if (id?.includes('@')) return id;
    withoutHost ??= id;
  }
  if (bracketed) return withoutHost;
  const bare = /^\s*([^\s<>"]+@[^\s<>"]+)\s*$/.exec(value);
  return bare ? bare[1]! : null;
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

/** The Date header as kept in the envelope: decoded, at most this many characters. */
export const DATE_HEADER_LIMIT = 256;

export interface SentDate {
  /** UTC, ISO-8601; null when missing, unreadable or implausible. */
  date: string | null;
  dateOffsetMinutes: number | null;
  /** The header text as found (bounded), whether or not it could be read. */
  dateHeader: string | null;
}

/**
 * The Date header, read the same way for both readers. mailparser gives an
 * unreadable date the time of parsing, and `new Date()` happily reads years
 * like 99999 that the store engines then disagree about, so the date is read
 * here, and one outside 1970 through next year counts as no date. A date
 * without a zone is UTC (parseMailDate), never the machine's local time.
 */
export function readSentDate(value: string | undefined, now = Date.now()): SentDate {
  if (value === undefined) return { date: null, dateOffsetMinutes: null, dateHeader: null };
  const dateHeader = boundText(decodeHeaderBytes(value), DATE_HEADER_LIMIT);
  // A real Date header is some 40 characters; a longer one is not read, which also keeps Date.parse off hostile input.
  const text = value.length > DATE_HEADER_LIMIT ? '' : withoutComments(value).trim();
  const time = text ? parseMailDate(text) : Number.NaN;
  if (!isPlausibleSentAt(time, now)) return { date: null, dateOffsetMinutes: null, dateHeader };
  return { date: new Date(time).toISOString(), dateOffsetMinutes: readDateOffset(text), dateHeader };
}

const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
};

/** The sender's UTC offset in minutes, from `+0100`, `-07:00` or a US zone name (comments already removed). */
export function readDateOffset(text: string): number | null {
  const numeric = TRAILING_OFFSET.exec(text);
  if (numeric) {
    if (!possibleOffset(numeric)) return null;
    const minutes = Number(numeric[2]) * 60 + Number(numeric[3]);
    // RFC 5322: "-0000" says the sender's local offset is unknown.
    if (minutes === 0) return numeric[1] === '-' ? null : 0;
    return numeric[1] === '-' ? -minutes : minutes;
  }
  const zone = /\b([A-Z]{1,3}T?|UTC)$/i.exec(text)?.[1]?.toUpperCase();
  return zone !== undefined && zone in ZONES ? ZONES[zone]! : null;
}

function withoutComments(text: string): string {
  return text.replace(/\([^)]*\)/g, ' ');
}

/** At most `limit` characters, never cutting a surrogate pair in two (PostgreSQL's JSONB refuses a lone half). */
export function boundText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const last = cut.charCodeAt(limit - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
