import { describe, expect, it } from 'vitest';
import { describeOutcomes } from '../../../../src/core/project/project-lists.js';
import { describeSyncFailures, type SyncResult } from '../../../../src/core/sync/sync-lists.js';

const fetchResult = (lists: SyncResult['fetch']['lists']): SyncResult['fetch'] => ({
  lists,
  totals: {
    lists: lists.length,
    months: 0,
    seen: 0,
    staged: 0,
    tooLarge: 0,
    duplicates: 0,
    deletions: 0,
    failed: lists.filter((l) => l.status === 'failed').length,
  },
  interrupted: false,
  breakers: [],
  waiting: [],
  heldElsewhere: [],
});

describe('sync summaries', () => {
  it("calls a message with no tracker tie 'mailing-list only', in the progress view and the table alike", () => {
    expect(describeOutcomes({ linked: 1, created: 2, inherited: 3, mirror: 4, none: 5 })).toBe(
      '1 linked, 2 created, 3 inherited, 4 mirror, 5 mailing-list only',
    );
  });

  it('names every failed list of every stage on its own line, with the month and the next try for fetch', () => {
    const result: SyncResult = {
      fetch: fetchResult([
        {
          listId: 1,
          system: 'apache_ponymail',
          list: 'dev@quarry.apache.org',
          status: 'failed',
          monthsPlanned: 3,
          monthsFetched: 1,
          seen: 0,
          staged: 0,
          tooLarge: 0,
          duplicates: 0,
          deletions: 0,
          pid: 1,
          error: {
            kind: 'transient',
            message:
              'lists.apache.org answered 503 for https://lists.apache.org/api/mbox.lua?list=dev&domain=quarry.apache.org&date=2024-03.',
            month: '2024-03',
            retryAfter: '2024-04-01T12:40:00.000Z',
          },
        },
        {
          listId: 2,
          system: 'mbox',
          list: '/srv/a.mbox',
          status: 'done',
          monthsPlanned: 1,
          monthsFetched: 1,
          seen: 1,
          staged: 1,
          tooLarge: 0,
          duplicates: 0,
          deletions: 0,
          pid: 1,
        },
      ]),
      drain: {
        lists: [
          {
            listId: 3,
            system: 'mbox',
            name: '/srv/b.mbox',
            status: 'failed',
            error: 'the row was refused',
            drained: 0,
            deferred: 0,
            shunted: 0,
            threadsRepaired: 0,
          },
        ],
        drained: 0,
        deferred: 0,
        shunted: 0,
        interrupted: false,
      } as unknown as SyncResult['drain'],
      failed: 2,
      interrupted: false,
    };
    expect(describeSyncFailures(result)).toEqual([
      'apache_ponymail dev@quarry.apache.org 2024-03: lists.apache.org answered 503 for https://lists.apache.org/api/mbox.lua?list=dev&domain=quarry.apache.org&date=2024-03. (next try after 2024-04-01T12:40:00.000Z)',
      'mbox /srv/b.mbox: drain failed: the row was refused',
    ]);
  });
});
