import type { LinkRole, ProjectMessage } from '../store/project-records.js';
import { isReplySubject } from './issue-key.js';
import { trackerKeyOf } from './tracker-key.js';

/** One message's tie to the issue of a tracker key. */
export interface TrackerTie {
  message: ProjectMessage;
  key: string;
  /** event: the tracker's own notification; comment: anything else tied to the issue. */
  role: LinkRole;
  /** True when the message is tied through its thread rather than as the tracker's notification of that key. */
  throughThread: boolean;
}

const byMailOrder = (a: ProjectMessage, b: ProjectMessage) =>
  (a.sentAt ?? '').localeCompare(b.sentAt ?? '') || a.messageKey.localeCompare(b.messageKey);

/**
 * The tracker ties of one thread (a clean_fit list's mail). A tracker
 * notification (issue_event with a key, tracker-key.ts: Jira's or a
 * numbered tracker's; not a reply) belongs to its key's
 * issue. Once a thread holds tracker mail, the rest of it belongs to the
 * issue of its earliest notification: human replies to the notification
 * (`Re: [jira] …`, whose key is only the quoted subject) and discussion
 * without a key alike. A reply with a key in a thread without that key's
 * notification (the notification never reached the list) is tied by its
 * key. Mirror mail is never tied here: it links to what it echoes.
 */
export function planTrackerTies(thread: readonly ProjectMessage[]): TrackerTie[] {
  const keyOf = (m: ProjectMessage) => (m.msgClass === 'issue_event' ? trackerKeyOf(m.captures) : null);
  const ordered = [...thread].sort(byMailOrder);
  const notifications = ordered.filter((m) => keyOf(m) && !isReplySubject(m.subject));
  const notified = new Set(notifications.map((m) => keyOf(m)!));
  const threadKey = keyOf(notifications[0] ?? ordered.find((m) => keyOf(m)) ?? ordered[0]!);
  const ties: TrackerTie[] = [];
  for (const message of ordered) {
    if (message.repoId === null || message.msgClass === 'github_mirror') continue;
    const key = keyOf(message);
    if (key && !isReplySubject(message.subject)) ties.push({ message, key, role: 'event', throughThread: false });
    else if (key) ties.push({ message, key, role: 'comment', throughThread: notified.has(key) });
    else if (threadKey) ties.push({ message, key: threadKey, role: 'comment', throughThread: true });
  }
  return ties;
}
