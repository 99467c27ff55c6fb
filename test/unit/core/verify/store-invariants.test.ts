import { describe, expect, it } from 'vitest';
import type { FetchGap } from '../../../../src/core/store/fetch-state-records.js';
import type { FailedListCheckpoints, ListFigures } from '../../../../src/core/store/report-records.js';
import { checkpointsKeptFailures } from '../../../../src/core/verify/store-invariants.js';

const list = (over: Partial<ListFigures> = {}): ListFigures => ({
  id: 1,
  system: 'mbox',
  name: 'dev',
  repoId: null,
  repoUrl: null,
  firstMonth: '2024-01',
  lastMonth: '2024-03',
  scanComplete: false,
  failedAttempts: 1,
  lastFailure: 'x',
  lastFailureAt: '2024-04-01T00:00:00.000Z',
  retryAfter: null,
  sidelinedAt: null,
  monthsScanned: 3,
  lastFetchedMonth: '2024-03',
  lastMailMonth: '2024-03',
  total: 0,
  stored: 0,
  statuses: { staged: 0, classified: 0, drained: 0, deferred: 0, shunted: 0, other: 0 },
  ...over,
});
const failed = (over: Partial<FailedListCheckpoints> = {}): FailedListCheckpoints => ({
  listId: 1,
  scanComplete: false,
  lastFailureAt: '2024-04-01T00:00:00.000Z',
  cursorAtFailure: '2024-03',
  firstMonthAfter: null,
  ...over,
});
const judge = (lists: ListFigures[], failures: FailedListCheckpoints[], gaps: FetchGap[] = []) =>
  checkpointsKeptFailures(lists, failures, (id) => `list ${id}`, gaps);
const gap = (month: string, listId = 1): FetchGap => ({
  listId,
  system: 'mbox',
  list: 'dev',
  month,
  failures: 3,
  lastError: 'cut short',
  lastFailedAt: '2024-04-02T00:00:00.000Z',
  gapSince: '2024-04-02T00:00:00.000Z',
});

describe('no month checkpointed past a failure', () => {
  it('holds for a failed list whose retry resumed at the failing month, even when the retry was interrupted', () => {
    expect(judge([list()], [failed({ firstMonthAfter: '2024-04' })]).ok).toBe(true);
    // The current month read again: the retry starts at the cursor itself.
    expect(judge([list()], [failed({ firstMonthAfter: '2024-03' })]).ok).toBe(true);
    expect(judge([list()], [failed()]).ok).toBe(true);
  });

  it('breaks when the first month checkpointed after the failure lies past the month the list had to resume from', () => {
    const result = judge([list()], [failed({ firstMonthAfter: '2024-05' })]);
    expect(result).toMatchObject({ ok: false, violations: 1 });
    expect(result.details[0]).toMatch(/list 1: .*2024-05, past 2024-04/);
  });

  it('holds when the months stepped over after the failure are recorded gaps, and breaks when one is not', () => {
    expect(judge([list()], [failed({ firstMonthAfter: '2024-06' })], [gap('2024-04'), gap('2024-05')]).ok).toBe(true);
    expect(judge([list()], [failed({ firstMonthAfter: '2024-06' })], [gap('2024-04')]).ok).toBe(false);
    expect(judge([list()], [failed({ firstMonthAfter: '2024-05' })], [gap('2024-04', 2)]).ok).toBe(false);
  });

  it('breaks when a scan is marked complete while its failure stands', () => {
    expect(judge([list()], [failed({ scanComplete: true })]).ok).toBe(false);
  });

  it("breaks when the list's cursor is not its latest checkpointed month", () => {
    expect(judge([list({ lastMonth: '2024-02' })], []).details).toEqual([
      'list 1: cursor at 2024-02, latest checkpoint 2024-03',
    ]);
    expect(judge([list({ lastMonth: null, lastFetchedMonth: null })], []).ok).toBe(true);
  });
});
