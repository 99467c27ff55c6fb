import { describe, expect, it } from 'vitest';
import { monthWasOver, planMonths, type MonthPlanInput } from '../../../../src/core/fetch/plan-months.js';

const base: MonthPlanInput = {
  lastMonth: null,
  firstMonth: '2020-01',
  lastArchiveMonth: '2024-06',
  now: new Date('2024-06-15T00:00:00Z'),
  full: false,
};

describe('planMonths', () => {
  it('reads a recent window of a list never fetched, twelve months unless told', () => {
    expect(planMonths(base)).toEqual([
      '2023-07',
      '2023-08',
      '2023-09',
      '2023-10',
      '2023-11',
      '2023-12',
      '2024-01',
      '2024-02',
      '2024-03',
      '2024-04',
      '2024-05',
      '2024-06',
    ]);
    expect(planMonths({ ...base, months: 2 })).toEqual(['2024-05', '2024-06']);
    expect(planMonths({ ...base, backfillMonths: 1 })).toEqual(['2024-06']);
  });

  it('reads a local archive whole on its first fetch, whatever window remote lists use', () => {
    expect(planMonths({ ...base, whole: true })).toHaveLength(54);
    expect(planMonths({ ...base, whole: true, months: 2 })[0]).toBe('2020-01');
    expect(planMonths({ ...base, whole: true, backfillMonths: 1 })[0]).toBe('2020-01');
  });

  it('reads of a local archive read before only what changed, and the months before a window it was once read with', () => {
    const read = {
      ...base,
      whole: true,
      lastMonth: '2024-06',
      lastCheckpointAt: '2024-06-14T00:00:00Z',
      earliestFetched: '2020-01',
    };
    expect(planMonths(read)).toEqual([]);
    expect(planMonths({ ...read, changedMonths: ['2021-03'] })).toEqual(['2021-03']);
    expect(planMonths({ ...read, earliestFetched: '2023-07' })).toHaveLength(42);
    expect(planMonths({ ...read, earliestFetched: '2023-07' }).at(-1)).toBe('2023-06');
  });

  it('reads the whole history of a list never fetched under --full', () => {
    expect(planMonths({ ...base, full: true })).toHaveLength(54);
    expect(planMonths({ ...base, full: true })[0]).toBe('2020-01');
  });

  it('goes on from a month that failed before any checkpoint, not from a recent window', () => {
    // A first --full run failed at the archive's first month and checkpointed nothing: the next run reads from there.
    const plan = planMonths({ ...base, failedMonths: ['2020-01'] });
    expect(plan[0]).toBe('2020-01');
    expect(plan).toHaveLength(54);
    // A failure inside the window changes nothing; one the archive no longer holds is not read.
    expect(planMonths({ ...base, failedMonths: ['2024-01'] })).toEqual(planMonths(base));
    expect(planMonths({ ...base, firstMonth: '2021-01', failedMonths: ['2020-03'] })).toEqual(
      planMonths({ ...base, firstMonth: '2021-01' }),
    );
  });

  it('reads again a month whose failure stands behind the checkpoint, with the months after the checkpoint', () => {
    // A store where a run went past a failing month (an older listminer): the month is read, not left behind.
    const plan = planMonths({
      ...base,
      lastMonth: '2024-04',
      lastCheckpointAt: '2024-05-10T00:00:00Z',
      failedMonths: ['2021-06'],
    });
    expect(plan).toEqual(['2021-06', '2024-05', '2024-06']);
  });

  it('never starts before the archive does, and reads nothing from an empty archive', () => {
    expect(planMonths({ ...base, firstMonth: '2024-05' })).toEqual(['2024-05', '2024-06']);
    expect(planMonths({ ...base, firstMonth: undefined })).toEqual([]);
  });

  it('resumes after a month checkpointed once it was over', () => {
    expect(planMonths({ ...base, lastMonth: '2024-03', lastCheckpointAt: '2024-04-10T00:00:00Z' })).toEqual([
      '2024-04',
      '2024-05',
      '2024-06',
    ]);
  });

  it('reads again a month checkpointed while it was still growing', () => {
    expect(planMonths({ ...base, lastMonth: '2024-06', lastCheckpointAt: '2024-06-14T00:00:00Z' })).toEqual([
      '2024-06',
    ]);
    expect(planMonths({ ...base, lastMonth: '2024-05', lastCheckpointAt: '2024-06-01T05:00:00Z' })).toEqual([
      '2024-05',
      '2024-06',
    ]);
  });

  it('reads the whole history of a list already fetched under --full, checkpointed months included', () => {
    const plan = planMonths({
      ...base,
      full: true,
      firstMonth: '2024-01',
      earliestFetched: '2024-04',
      lastMonth: '2024-05',
      lastCheckpointAt: '2024-06-10T00:00:00Z',
    });
    expect(plan).toEqual(['2024-01', '2024-02', '2024-03', '2024-04', '2024-05', '2024-06']);
    expect(
      planMonths({
        ...base,
        full: true,
        firstMonth: '2024-03',
        earliestFetched: '2024-03',
        lastMonth: '2024-06',
        lastCheckpointAt: '2024-06-10T00:00:00Z',
      }),
    ).toEqual(['2024-03', '2024-04', '2024-05', '2024-06']);
  });

  it('reads again the checkpointed months whose content changed, oldest first, each once', () => {
    const plan = planMonths({
      ...base,
      firstMonth: '2024-01',
      earliestFetched: '2024-01',
      lastMonth: '2024-05',
      lastCheckpointAt: '2024-06-10T00:00:00Z',
      changedMonths: ['2024-03', '2024-01', '2024-06'],
    });
    expect(plan).toEqual(['2024-01', '2024-03', '2024-06']);
  });

  it('follows a history that grew backwards when the list was read from its first month, and not a window', () => {
    const fetched = {
      ...base,
      earliestFetched: '2024-02',
      lastMonth: '2024-06',
      lastCheckpointAt: '2024-06-10T00:00:00Z',
    };
    expect(planMonths({ ...fetched, firstMonth: '2023-11', coversHistory: true })).toEqual([
      '2023-11',
      '2023-12',
      '2024-01',
      '2024-06',
    ]);
    expect(planMonths({ ...fetched, firstMonth: '2023-11', coversHistory: false })).toEqual(['2024-06']);
  });
});

describe('monthWasOver', () => {
  it('needs the checkpoint to come two days after the month ended', () => {
    expect(monthWasOver('2024-01', '2024-02-02T23:59:59Z')).toBe(false);
    expect(monthWasOver('2024-01', '2024-02-03T00:00:00Z')).toBe(true);
    expect(monthWasOver('2024-01', undefined)).toBe(false);
  });
});

describe('planMonths with a source that files mail late', () => {
  const base = { lastArchiveMonth: '2024-06', now: new Date('2024-06-20T00:00:00Z'), full: false } as const;
  const weeks = 17 * 86_400_000;

  it('reads again a month checkpointed within the source settling time, not only two days', () => {
    const input = { ...base, lastMonth: '2024-05', lastCheckpointAt: '2024-06-10T00:00:00Z' };
    expect(planMonths(input)).toEqual(['2024-06']);
    expect(planMonths({ ...input, settleMs: weeks })).toEqual(['2024-05', '2024-06']);
    expect(planMonths({ ...input, settleMs: weeks, lastCheckpointAt: '2024-06-18T00:00:00Z' })).toEqual(['2024-06']);
  });

  it('reads again an earlier month checkpointed before it settled, with every month after it', () => {
    const input = { ...base, lastMonth: '2024-06', lastCheckpointAt: '2024-06-05T00:00:00Z', settleMs: weeks };
    expect(planMonths({ ...input, recentCheckpoints: new Map([['2024-05', '2024-06-05T00:00:00Z']]) })).toEqual([
      '2024-05',
      '2024-06',
    ]);
    expect(planMonths({ ...input, recentCheckpoints: new Map([['2024-05', '2024-06-19T00:00:00Z']]) })).toEqual([
      '2024-06',
    ]);
  });
});
