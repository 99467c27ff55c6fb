/**
 * What classify reads out of a raw message (DESIGN §4), stored as JSON on the
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

export const TRAILER_KINDS = ['Reviewed-by', 'Acked-by', 'Tested-by', 'Signed-off-by', 'Reported-by', 'Nacked-by'] as const;
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
  /** UTC, ISO-8601; null when missing or unreadable. */
  date: string | null;
  /** The sender's UTC offset in minutes (+0100 → 60). */
  dateOffsetMinutes: number | null;
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

/** What the rules decided: the class, which matcher decided, and named captures. */
export interface Classification {
  msgClass: MsgClass;
  /** `rule-name:subject`, say, or `default`. */
  source: string;
  captures: Record<string, string>;
}
