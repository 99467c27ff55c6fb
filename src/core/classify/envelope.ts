import type { PartInfo } from './detect-patch.js';

/**
 * What classify reads out of a raw message (docs/classify.md), stored as JSON on the
 * staged row and consumed by drain. Every field is plain data.
 */
export const MSG_CLASSES = [
  'issue_event',
  'patch_submission',
  'review',
  'github_mirror',
  'commit_notify',
  'vote',
  'announce',
  'result',
  'discuss',
  'support',
  'unclassified',
] as const;
export type MsgClass = (typeof MSG_CLASSES)[number];

/** The classes of machine-sent mail that `mirror_handling` applies to (stored as metadata only unless set otherwise); any other mail is kept with its body. */
export const MIRROR_CLASSES: readonly MsgClass[] = ['github_mirror', 'commit_notify'];

export function isMirrorClass(msgClass: string | null | undefined): boolean {
  return (MIRROR_CLASSES as readonly (string | null | undefined)[]).includes(msgClass);
}

export const TRAILER_KINDS = [
  'Reviewed-by',
  'Acked-by',
  'Tested-by',
  'Signed-off-by',
  'Reported-by',
  'Nacked-by',
] as const;
export type TrailerKind = (typeof TRAILER_KINDS)[number];

export interface Trailer {
  kind: TrailerKind;
  name: string | null;
  /** Lower-cased. */
  address: string | null;
}

/** Facts read from a patch subject: `[RFC PATCH v3 2/7]`, `[GIT PULL]`. */
export interface PatchSeries {
  version: number | null;
  index: number | null;
  total: number | null;
  rfc: boolean;
  resend: boolean;
  gitPull: boolean;
}

export interface Envelope {
  /** Normalized (no angle brackets), or null when the message has none. */
  messageId: string | null;
  inReplyTo: string | null;
  /** Oldest first, as in the header. */
  references: string[];
  /** Decoded. */
  subject: string;
  fromName: string | null;
  /** Lower-cased. */
  fromAddress: string | null;
  /** UTC, ISO-8601; null when missing, unreadable or outside 1970 through next year (see isPlausibleSentAt). */
  date: string | null;
  /** The sender's UTC offset in minutes (+0100 → 60); null whenever date is. */
  dateOffsetMinutes: number | null;
  /** The Date header as found (8-bit bytes decoded, at most 256 characters), also when it gave no date; null without one. */
  dateHeader: string | null;
  /** List-Id value without brackets or description: dev.kafka.apache.org. */
  listId: string | null;
  /** The list's posting address (List-Post, else a To/Cc that matches the list). */
  listAddress: string | null;
  /** Plain text: text/plain, else HTML turned into text. */
  body: string;
  hasPatch: boolean;
  trailers: Trailer[];
  series: PatchSeries | null;
  /** Raw size in bytes. */
  size: number;
}

/**
 * Whether a send time is one a message can have: from 1970 through the end
 * of next year (UTC). Outside that, `Date` still reads years like 99999,
 * which SQLite would store as `+099999-…` and PostgreSQL refuses, so such a
 * message is given no date at all, on every engine. Drain applies the same
 * test to envelopes stored before this rule.
 */
export function isPlausibleSentAt(time: number, now = Date.now()): boolean {
  return Number.isFinite(time) && time >= 0 && time < Date.UTC(new Date(now).getUTCFullYear() + 2, 0, 1);
}

/**
 * What one of parse-envelope's two readers (our own for the common message,
 * mailparser for MIME) reads out of the message: the parts that need
 * decoding. Everything else comes from the raw header block, the same way
 * for both.
 */
export interface ReadMessage {
  subject: string;
  from: { name: string | null; address: string | null };
  body: string;
  parts: PartInfo[];
}

/** What the rules decided: the class, which matcher decided, and named captures. */
export interface Classification {
  msgClass: MsgClass;
  /** `rule-name:subject`, say, or `default`. */
  source: string;
  captures: Record<string, string>;
}
