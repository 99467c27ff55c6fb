import { createHash } from 'node:crypto';

const KEY = /^[A-Z][A-Z0-9_]*-\d+$/;
/** A reply or forward prefix before the subject's own tags: `Re: [jira] …`, `[list] AW: …`. */
const REPLY_SUBJECT = /^(?:\s*\[[^[\]]{0,80}\])*\s*(?:re|aw|sv|antw|fwd?|wg|tr)\s*(?:\[\d+\])?\s*:/i;

/** A tracker key as the rules captured it, upper-cased (`kafka-7` → `KAFKA-7`); null when it is not one. */
export function normalizeIssueKey(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const key = value.trim().toUpperCase();
  return KEY.test(key) ? key : null;
}

/**
 * The id of the synthetic issue for a key in a repo: negative, so it never
 * meets an id GitHub gives, and a function of the repo's URL and the key, so
 * every process and every store makes the same one. `attempt` moves to the
 * next candidate when another key already holds an id (a hash collision).
 */
export function syntheticIssueId(repoUrl: string, key: string, attempt = 0): number {
  const digest = createHash('sha256').update(`${repoUrl}\n${key}\n${attempt}`).digest();
  const value = (digest.readUInt32BE(0) & 0x1fffff) * 2 ** 32 + digest.readUInt32BE(4);
  return -(value === 0 ? 1 : value);
}

/** True for a reply to (or a forward of) tracker mail rather than the tracker's own notification. */
export function isReplySubject(subject: string | null): boolean {
  return subject !== null && REPLY_SUBJECT.test(subject);
}

/** The issue's title as a notification gives it: what follows `(KEY-1)` in the subject. */
export function trackerTitle(subject: string | null, key: string): string | null {
  if (!subject) return null;
  const at = subject.toUpperCase().indexOf(`(${key})`);
  const title = (at >= 0 ? subject.slice(at + key.length + 2) : subject).replace(/\s+/g, ' ').trim();
  return title || null;
}

/** The key a title opens with, `[KAFKA-7] Fix …` → `KAFKA-7`. */
export function titleKey(title: string | null): string | null {
  const match = /^\[([A-Za-z][A-Za-z0-9_]*-\d+)\]/.exec(title ?? '');
  return match ? normalizeIssueKey(match[1]) : null;
}
