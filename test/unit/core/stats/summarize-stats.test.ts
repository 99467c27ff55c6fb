import { describe, expect, it } from 'vitest';
import { classShares, mirrorShare, monthlyChart, stuckLists } from '../../../../src/core/stats/summarize-stats.js';
import type { ListFigures } from '../../../../src/core/store/report-records.js';

const list = (over: Partial<ListFigures>): ListFigures => ({
  id: 1,
  system: 'apache_ponymail',
  name: 'users@kafka.apache.org',
  repoId: null,
  repoUrl: null,
  firstMonth: null,
  lastMonth: null,
  scanComplete: false,
  failedAttempts: 0,
  lastFailure: null,
  lastFailureAt: null,
  retryAfter: null,
  sidelinedAt: null,
  monthsScanned: 0,
  lastFetchedMonth: null,
  lastMailMonth: null,
  total: 0,
  stored: 0,
  statuses: { staged: 0, classified: 0, drained: 0, deferred: 0, shunted: 0, other: 0 },
  ...over,
});

describe('stats summaries', () => {
  it('lists every class with its share, unclassified included, and the mirror share', () => {
    const counts = new Map([
      ['discuss', 6],
      ['github_mirror', 1],
      ['commit_notify', 1],
      ['unclassified', 2],
    ]);
    const shares = classShares(counts);
    expect(shares.map((c) => c.msgClass)).toHaveLength(11);
    expect(shares.find((c) => c.msgClass === 'unclassified')).toEqual({
      msgClass: 'unclassified',
      count: 2,
      share: 0.2,
    });
    expect(mirrorShare(counts)).toEqual({ count: 2, share: 0.2 });
    expect(classShares(new Map()).every((c) => c.share === 0)).toBe(true);
  });

  it('names each list whose mail waits for a repo with the command that gives it one', () => {
    const waiting = list({
      id: 2,
      statuses: { staged: 1, classified: 2, drained: 0, deferred: 5, shunted: 0, other: 0 },
    });
    const known = list({
      id: 3,
      name: '/data/my list.mbox',
      system: 'mbox',
      repoUrl: 'https://github.com/apache/kafka',
      statuses: { staged: 0, classified: 0, drained: 0, deferred: 1, shunted: 0, other: 0 },
    });
    const fine = list({
      id: 4,
      repoId: 9,
      statuses: { staged: 0, classified: 3, drained: 0, deferred: 0, shunted: 0, other: 0 },
    });
    expect(stuckLists([waiting, known, fine, list({ id: 5 })])).toEqual([
      {
        id: 2,
        system: 'apache_ponymail',
        name: 'users@kafka.apache.org',
        waiting: 7,
        fix: 'listminer lists add users@kafka.apache.org --system apache_ponymail --repo URL',
      },
      {
        id: 3,
        system: 'mbox',
        name: '/data/my list.mbox',
        waiting: 1,
        fix: "listminer lists add '/data/my list.mbox' --system mbox --repo https://github.com/apache/kafka",
      },
    ]);
  });

  it('fills the months between the first and last with mail, and counts undated mail apart', () => {
    const chart = monthlyChart({ id: 1, system: 'mbox', name: 'dev' }, [
      { month: null, count: 2 },
      { month: '2023-11', count: 4 },
      { month: '2024-02', count: 1 },
    ]);
    expect(chart.months).toEqual([
      { month: '2023-11', count: 4 },
      { month: '2023-12', count: 0 },
      { month: '2024-01', count: 0 },
      { month: '2024-02', count: 1 },
    ]);
    expect(chart.undated).toBe(2);
  });
});
