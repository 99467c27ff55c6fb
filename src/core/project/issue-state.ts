import type { IssueMail, SyntheticIssueUpdate } from '../store/project-records.js';
import type { Store } from '../store/store.js';
import { issueTitleOf, trackerAction } from './tracker-key.js';

/** The tracker actions that set an issue's state; the others (commented, updated, assigned, …) leave it. */
const STATE_OF_ACTION: Record<string, string> = {
  created: 'open',
  reopened: 'open',
  resolved: 'resolved',
  closed: 'closed',
};

/**
 * A synthetic issue as its mail describes it, worked out from all of it
 * every time, so the answer never depends on the order the mail was
 * projected in: created at the earliest mail, updated at the latest, the
 * state of the last state-changing notification in mail order (sent_at,
 * then message key), the title and reporter of the `created` notification
 * (else of the earliest notification), and one comment per linked mail.
 */
export function summarizeIssue(id: number, key: string, mail: readonly IssueMail[]): SyntheticIssueUpdate {
  const ordered = [...mail].sort(
    (a, b) => (a.sentAt ?? '').localeCompare(b.sentAt ?? '') || a.messageKey.localeCompare(b.messageKey),
  );
  const events = ordered.filter((m) => m.role === 'event');
  let state = 'open';
  for (const event of events) state = STATE_OF_ACTION[trackerAction(event.captures) ?? ''] ?? state;
  const opening = events.find((e) => trackerAction(e.captures) === 'created') ?? events[0] ?? ordered[0];
  const dates = ordered.map((m) => m.sentAt).filter((d): d is string => d !== null);
  return {
    id,
    title: opening ? issueTitleOf(opening.subject, key) : null,
    state,
    authorId: opening?.role === 'event' && trackerAction(opening.captures) === 'created' ? opening.authorId : null,
    commentCount: ordered.length,
    createdAt: dates.length ? dates.reduce((a, b) => (a < b ? a : b)) : null,
    updatedAt: dates.length ? dates.reduce((a, b) => (a > b ? a : b)) : null,
  };
}

/**
 * These issues' synthetic ones worked out again from all their mail (the
 * native ones are their import's), and those left with no mail deleted. Call
 * it in the transaction that changed their links, after locking them.
 */
export async function restateSyntheticIssues(tx: Store, issueIds: readonly number[]): Promise<void> {
  const synthetic = await tx.project.syntheticAmong(issueIds);
  if (synthetic.length === 0) return;
  const mail = await tx.project.issueMail(synthetic.map((s) => s.id));
  for (const issue of synthetic) {
    const own = mail.filter((m) => m.issueId === issue.id);
    if (own.length > 0) await tx.project.updateSyntheticIssue(summarizeIssue(issue.id, issue.key, own));
  }
  await tx.project.deleteEmptySyntheticIssues(synthetic.map((s) => s.id));
}
