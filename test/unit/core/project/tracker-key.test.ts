import { describe, expect, it } from 'vitest';
import { githubNumbersOf, isGitHubRepo } from '../../../../src/core/project/github-references.js';
import { summarizeIssue } from '../../../../src/core/project/issue-state.js';
import { issueTitleOf, trackerAction, trackerKeyOf } from '../../../../src/core/project/tracker-key.js';
import type { IssueMail } from '../../../../src/core/store/project-records.js';

describe('trackerKeyOf', () => {
  it("names the tracker and where it lives, so two trackers' bug 123 are two keys", () => {
    expect(trackerKeyOf({ tracker: 'bugzilla', number: '64321', tracker_url: 'bz.apache.org/bugzilla' })).toBe(
      'bugzilla:bz.apache.org/bugzilla#64321',
    );
    expect(trackerKeyOf({ tracker: 'bugzilla', number: '64321', tracker_url: 'https://Bugs.Example.org/' })).toBe(
      'bugzilla:bugs.example.org#64321',
    );
    expect(trackerKeyOf({ tracker: 'debbugs', number: '0510516', tracker_host: 'bugs.debian.org' })).toBe(
      'debbugs:bugs.debian.org#510516',
    );
    expect(trackerKeyOf({ tracker: 'rt', number: '64321', tracker_host: 'rt.cpan.org' })).toBe('rt:rt.cpan.org#64321');
    expect(trackerKeyOf({ tracker: 'rt', number: '7', tracker_host: 'perl' })).toBe('rt:perl#7');
  });

  it('keeps every digit of a number too large for a float, so two such bugs are two keys', () => {
    const key = (number: string) => trackerKeyOf({ tracker: 'bugzilla', number, tracker_url: 'bz.example.org' });
    expect(key('99999999999999999999999999')).toBe('bugzilla:bz.example.org#99999999999999999999999999');
    expect(key('99999999999999999999999998')).toBe('bugzilla:bz.example.org#99999999999999999999999998');
    expect(key('9007199254740993')).toBe('bugzilla:bz.example.org#9007199254740993');
    expect(key('000')).toBe('bugzilla:bz.example.org#0');
  });

  it('keeps Jira keys as they were, and gives none to mail that names no tracker address', () => {
    expect(trackerKeyOf({ external_key: 'kafka-7', action: 'created' })).toBe('KAFKA-7');
    expect(trackerKeyOf({ tracker: 'debbugs', number: '510516' })).toBeNull();
    expect(trackerKeyOf({ tracker: 'bugzilla', number: 'x', tracker_url: 'bz.apache.org/bugzilla' })).toBeNull();
    expect(trackerKeyOf({ tracker: 'mantis', number: '3', tracker_host: 'mantis.example.org' })).toBeNull();
    expect(trackerKeyOf(null)).toBeNull();
  });
});

describe('trackerAction and issueTitleOf', () => {
  it('reads the state change each tracker announces', () => {
    expect(trackerAction({ tracker: 'bugzilla', action: 'created', status: 'NEW' })).toBe('created');
    expect(trackerAction({ tracker: 'bugzilla', status: 'RESOLVED' })).toBe('resolved');
    expect(trackerAction({ tracker: 'bugzilla', status: 'VERIFIED' })).toBe('resolved');
    expect(trackerAction({ tracker: 'bugzilla', status: 'CLOSED' })).toBe('closed');
    expect(trackerAction({ tracker: 'bugzilla', status: 'REOPENED' })).toBe('reopened');
    expect(trackerAction({ tracker: 'bugzilla' })).toBeUndefined();
    expect(trackerAction({ tracker: 'debbugs', event: 'Acknowledgement' })).toBe('created');
    expect(trackerAction({ tracker: 'debbugs', event: 'marked as done' })).toBe('closed');
    expect(trackerAction({ tracker: 'debbugs', event: 'Info received' })).toBe('commented');
    expect(trackerAction({ tracker: 'rt', event: 'Resolved' })).toBe('closed');
  });

  it("takes the title from each tracker's subject", () => {
    const bz = 'bugzilla:bz.apache.org/bugzilla#64321';
    expect(issueTitleOf('[Bug 64321] New: Connector leaks file handles', bz)).toBe('Connector leaks file handles');
    expect(issueTitleOf('DO NOT REPLY [Bug 64321] New: Connector leaks', bz)).toBe('Connector leaks');
    expect(issueTitleOf('[Bug 64321] Connector leaks', bz)).toBe('Connector leaks');
    const deb = 'debbugs:bugs.debian.org#510516';
    expect(issueTitleOf('Bug#510516: Acknowledgement (kafka: is not a native package)', deb)).toBe(
      'kafka: is not a native package',
    );
    expect(issueTitleOf('Bug#510516: marked as done (kafka: is not a native package)', deb)).toBe(
      'kafka: is not a native package',
    );
    expect(issueTitleOf('Bug#510516: kafka: is not a native package', deb)).toBe('kafka: is not a native package');
    const rt = 'rt:rt.cpan.org#64321';
    expect(issueTitleOf('[rt.cpan.org #64321] Resolved: Producer drops messages ', rt)).toBe('Producer drops messages');
    expect(issueTitleOf('[jira] [Created] (KAFKA-9) Producer drops records', 'KAFKA-9')).toBe('Producer drops records');
  });

  it("works out a numbered tracker's issue from all its mail, as Jira's", () => {
    const key = 'debbugs:bugs.debian.org#510516';
    const mail = (
      messageKey: string,
      sentAt: string,
      subject: string,
      captures: Record<string, string>,
      role: IssueMail['role'] = 'event',
    ): IssueMail => ({
      issueId: -1,
      role,
      authorId: null,
      sentAt,
      messageKey,
      subject,
      captures: { tracker: 'debbugs', number: '510516', ...captures },
    });
    const done = mail('c', '2009-01-17T08:36:10Z', 'Bug#510516: marked as done (kafka: not native)', {
      event: 'marked as done',
    });
    const ack = mail('a', '2009-01-02T18:27:03Z', 'Bug#510516: Acknowledgement (kafka: not native)', {
      event: 'Acknowledgement',
    });
    const reply = mail('b', '2009-01-03T09:12:44Z', 'Bug#510516: kafka: not native', {}, 'comment');
    expect(summarizeIssue(-1, key, [done, reply, ack])).toMatchObject({
      title: 'kafka: not native',
      state: 'closed',
      commentCount: 3,
      createdAt: ack.sentAt,
      updatedAt: done.sentAt,
    });
    expect(summarizeIssue(-1, key, [ack, reply])).toMatchObject({ state: 'open' });
  });
});

describe('GitHub numbers in subjects', () => {
  it('reads GH-N anywhere and #N standing as a word, each number once', () => {
    expect(githubNumbersOf('GH-6: reader stalls')).toEqual([6]);
    expect(githubNumbersOf('Re: [DISCUSS] gh-12 and GH-6 (#12)')).toEqual([12, 6]);
    expect(githubNumbersOf('Crash on startup (#3)')).toEqual([3]);
    expect(githubNumbersOf('[#44] flaky test')).toEqual([44]);
    expect(githubNumbersOf('#45: title')).toEqual([45]);
    // Not GitHub's: a debbugs or RT number, a channel, an anchor, a version.
    expect(githubNumbersOf('Bug#510516: foo')).toEqual([]);
    expect(githubNumbersOf('Re: [rt.cpan.org #64321] Producer drops messages')).toEqual([]);
    expect(githubNumbersOf('C#7 bindings, page#2, issue #1a, GH-0')).toEqual([]);
    expect(githubNumbersOf(null)).toEqual([]);
  });

  it('knows a GitHub repo by its URL', () => {
    expect(isGitHubRepo('https://github.com/acme/widget')).toBe(true);
    expect(isGitHubRepo('https://gitlab.com/acme/widget')).toBe(false);
    expect(isGitHubRepo(undefined)).toBe(false);
  });
});
