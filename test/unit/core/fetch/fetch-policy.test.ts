import { describe, expect, it } from 'vitest';
import {
  breakerOpenUntil,
  countsAgainstHost,
  holdsHostForRun,
  isGapMonth,
  isWaiting,
  scheduleRetry,
} from '../../../../src/core/fetch/fetch-policy.js';

const NOW = new Date('2024-06-01T00:00:00.000Z');
const after = (ms: number) => new Date(NOW.getTime() + ms);

describe('fetch policy', () => {
  it('waits 120 s times the failing runs squared, never less than the archive asked, and sets a list aside at its tenth', () => {
    expect(scheduleRetry(1, NOW)).toEqual({ retryAfter: after(120_000), sidelined: false });
    expect(scheduleRetry(3, NOW)).toEqual({ retryAfter: after(9 * 120_000), sidelined: false });
    expect(scheduleRetry(1, NOW, 7_200_000).retryAfter).toEqual(after(7_200_000));
    expect(scheduleRetry(9, NOW).sidelined).toBe(false);
    expect(scheduleRetry(10, NOW).sidelined).toBe(true);
  });

  it('makes a month a gap at its third failing run in a row', () => {
    expect([1, 2, 3, 4].map(isGapMonth)).toEqual([false, false, true, true]);
  });

  it("opens a host's breaker for an hour at its tenth transient failure in a row", () => {
    expect(breakerOpenUntil(9, NOW)).toBeUndefined();
    expect(breakerOpenUntil(10, NOW)).toEqual(after(3_600_000));
  });

  it('counts the host struggling against it, not the list being wrong; only a 429 holds the host for the run', () => {
    expect((['transient', 'rate_limited', 'permanent', 'error'] as const).map(countsAgainstHost)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect((['transient', 'rate_limited', 'permanent', 'error'] as const).map(holdsHostForRun)).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it('keeps a list waiting until its retry time', () => {
    expect(isWaiting({ retryAfter: null }, NOW)).toBe(false);
    expect(isWaiting({ retryAfter: after(1).toISOString() }, NOW)).toBe(true);
    expect(isWaiting({ retryAfter: NOW.toISOString() }, NOW)).toBe(false);
  });
});
