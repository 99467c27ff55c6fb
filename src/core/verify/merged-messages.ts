import type { InvariantResult } from './store-invariants.js';

/** A stored body that may hold other messages, as the store hands it to verify. */
export interface BodyCandidate {
  listId: number;
  messageKey: string;
  body: string;
}

/** A From_ line (a sender, a time, a year) followed by header lines. */
const EMBEDDED = /^From \S.*\d{1,2}:\d{2}.*\b\d{4}\b.*\r?\n((?:[A-Za-z][\w-]*:.*\r?\n?){2,})/gm;
const MAIL_HEADERS = new Set(['from', 'date', 'subject', 'message-id']);

/**
 * How many whole messages a body holds after its own: a From_ line followed
 * by at least two of From:, Date:, Subject:, Message-ID:. That is what an
 * mbox split that missed separators leaves behind (docs/verify.md).
 */
export function countEmbeddedMessages(body: string): number {
  let found = 0;
  for (const match of body.matchAll(EMBEDDED)) {
    const names = match[1]!.split(/\r?\n/).map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
    if (names.filter((name) => MAIL_HEADERS.has(name)).length >= 2) found++;
  }
  return found;
}

/**
 * The finding `no-merged-messages`: stored messages whose body holds what
 * looks like whole messages, so the mbox they came from was split at too
 * few separators and the mail after them was lost as messages of its own.
 */
export function judgeMergedMessages(
  candidates: readonly BodyCandidate[],
  listName: (id: number) => string,
): InvariantResult {
  const merged = candidates
    .map((candidate) => ({ ...candidate, embedded: countEmbeddedMessages(candidate.body) }))
    .filter((candidate) => candidate.embedded > 0);
  const details = merged
    .slice(0, 10)
    .map(
      (m) => `${listName(m.listId)}: ${m.messageKey} holds ${m.embedded} more message${m.embedded === 1 ? '' : 's'}`,
    );
  if (merged.length > details.length) details.push(`… ${merged.length - details.length} more`);
  return { name: 'no-merged-messages', ok: merged.length === 0, violations: merged.length, details };
}
