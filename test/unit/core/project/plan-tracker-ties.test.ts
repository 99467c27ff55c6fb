import { describe, expect, it } from 'vitest';
import { isReplySubject, syntheticIssueId, titleKey } from '../../../../src/core/project/issue-key.js';
import { summarizeIssue } from '../../../../src/core/project/issue-state.js';
import { seriesTitle } from '../../../../src/core/project/patch-title.js';
import { planTrackerTies } from '../../../../src/core/project/plan-tracker-ties.js';
import type { IssueMail, ProjectMessage } from '../../../../src/core/store/project-records.js';

let nextId = 1;
function message(subject: string, sentAt: string, fields: Partial<ProjectMessage> = {}): ProjectMessage {
  const id = nextId++;
  return {
    id,
    messageKey: `m${id}@x`,
    messageId: `m${id}@x`,
    repoId: 1,
    senderId: null,
    fromAddress: 'jira@apache.org',
    isBot: true,
    subject,
    sentAt,
    msgClass: 'discuss',
    captures: null,
    threadRootId: null,
    signaledRepoUrl: null,
    projectedKind: null,
    patchSeriesId: null,
    ...fields,
  };
}
const jira = (subject: string, sentAt: string, key: string, action: string) =>
  message(subject, sentAt, { msgClass: 'issue_event', captures: { external_key: key, action } });

describe('planTrackerTies', () => {
  it('ties a notification by its key, a quoted reply and keyless discussion through the thread', () => {
    const created = jira('[jira] [Created] (KAFKA-9) Drops', '2024-01-02', 'KAFKA-9', 'created');
    const reply = jira('Re: [jira] [Created] (KAFKA-9) Drops', '2024-01-03', 'KAFKA-9', 'created');
    const talk = message('Re: drops', '2024-01-04');
    const ties = planTrackerTies([talk, reply, created]).map((t) => [t.message.id, t.key, t.role, t.throughThread]);
    expect(ties).toEqual([
      [created.id, 'KAFKA-9', 'event', false],
      [reply.id, 'KAFKA-9', 'comment', true],
      [talk.id, 'KAFKA-9', 'comment', true],
    ]);
  });

  it('ties a keyed reply whose notification never reached the list by its key, and never a KIP number of a discussion', () => {
    const reply = jira('Re: [jira] [Commented] (KAFKA-3) X', '2024-01-03', 'KAFKA-3', 'commented');
    const kip = message('[DISCUSS] KIP-500', '2024-01-01', { captures: { external_key: 'KIP-500' } });
    expect(planTrackerTies([reply]).map((t) => [t.key, t.role, t.throughThread])).toEqual([
      ['KAFKA-3', 'comment', false],
    ]);
    expect(planTrackerTies([kip])).toEqual([]);
  });
});

describe('summarizeIssue', () => {
  const mail = (sentAt: string, action: string, role: IssueMail['role'] = 'event'): IssueMail => ({
    issueId: -1,
    role,
    authorId: null,
    sentAt,
    messageKey: `${sentAt}@x`,
    subject: `[jira] [${action}] (KAFKA-9) Producer drops records`,
    captures: { action },
  });
  it('takes the state of the last state-changing notification in mail order, whatever order it is given in', () => {
    const life = [
      mail('2024-01-02', 'created'),
      mail('2024-01-05', 'resolved'),
      mail('2024-01-06', 'reopened'),
      mail('2024-01-07', 'commented'),
      mail('2024-01-08', 'closed'),
    ];
    const forward = summarizeIssue(-1, 'KAFKA-9', life);
    expect(forward).toEqual({
      id: -1,
      title: 'Producer drops records',
      state: 'closed',
      authorId: null,
      commentCount: 5,
      createdAt: '2024-01-02',
      updatedAt: '2024-01-08',
    });
    expect(summarizeIssue(-1, 'KAFKA-9', [...life].reverse())).toEqual(forward);
    expect(summarizeIssue(-1, 'KAFKA-9', life.slice(0, 3)).state).toBe('open');
  });
});

describe('issue keys and series titles', () => {
  it('derives one negative id per repo and key, the same in every process', () => {
    const id = syntheticIssueId('https://github.com/apache/kafka', 'KAFKA-9');
    expect(id).toBeLessThan(0);
    expect(Number.isSafeInteger(id)).toBe(true);
    expect(syntheticIssueId('https://github.com/apache/kafka', 'KAFKA-9')).toBe(id);
    expect(syntheticIssueId('https://github.com/apache/kafka', 'KAFKA-10')).not.toBe(id);
    expect(syntheticIssueId('https://github.com/apache/kafka', 'KAFKA-9', 1)).not.toBe(id);
  });
  it('reads replies, title keys and series titles', () => {
    expect([
      isReplySubject('Re: [jira] x'),
      isReplySubject('[jira] [Created] (A-1) x'),
      isReplySubject('[dev] AW: x'),
    ]).toEqual([true, false, true]);
    expect([titleKey('[KAFKA-7] Fix'), titleKey('KAFKA-7: Fix'), titleKey('[kafka-7] x')]).toEqual([
      'KAFKA-7',
      null,
      'KAFKA-7',
    ]);
    expect(seriesTitle('Re: [dpdk-dev] [PATCH net-next v3 2/7]  net: fix  x')).toBe('net: fix x');
  });
});
