import type { Month } from '../archive/archive-source.js';
import { addMonths, monthsBetween } from '../archive/month.js';

/** Months fetched for a list never scanned, unless --months, backfill_months or --full say otherwise. */
export const DEFAULT_BACKFILL_MONTHS = 12;
/** Mail an archive files late (slow relays, Date-filed archives) still lands this long after a month ends. */
export const MONTH_SETTLE_MS = 2 * 86_400_000;

export interface MonthPlanInput {
  /** The list's checkpoint, and when that month was checkpointed. */
  lastMonth: Month | null;
  lastCheckpointAt?: string;
  /** Oldest month the archive holds; undefined when it holds nothing. */
  firstMonth?: Month;
  /** Oldest month already fetched, for --full on a list fetched with a window. */
  earliestFetched?: Month;
  /** Newest month that can hold mail: the current one. */
  lastArchiveMonth: Month;
  now: Date;
  full: boolean;
  months?: number;
  backfillMonths?: number;
}

/**
 * The months a fetch reads, oldest first. A scanned list resumes after its
 * checkpoint, except that a month checkpointed before it was over (plus a
 * settling time) is read again: mail kept arriving after the checkpoint.
 * A list never scanned starts at a recent window, or at its first month
 * under --full; --full on a list fetched with a window also fills the
 * months before it.
 */
export function planMonths(input: MonthPlanInput): Month[] {
  const end = input.lastArchiveMonth;
  if (input.lastMonth) {
    const resume = monthWasOver(input.lastMonth, input.lastCheckpointAt) ? addMonths(input.lastMonth, 1) : input.lastMonth;
    const gap =
      input.full && input.firstMonth && input.earliestFetched && input.firstMonth < input.earliestFetched
        ? monthsBetween(input.firstMonth, addMonths(input.earliestFetched, -1))
        : [];
    return [...gap, ...(resume <= end ? monthsBetween(resume, end) : [])];
  }
  if (!input.firstMonth) return [];
  const window = input.months ?? input.backfillMonths ?? DEFAULT_BACKFILL_MONTHS;
  const recent = addMonths(end, -(window - 1));
  const start = input.full || input.firstMonth > recent ? input.firstMonth : recent;
  return start <= end ? monthsBetween(start, end) : [];
}

/** True when the month had ended (and settled) by the time it was checkpointed. */
export function monthWasOver(month: Month, checkpointedAt: string | undefined): boolean {
  if (!checkpointedAt) return false;
  const next = addMonths(month, 1);
  const ended = Date.parse(`${next}-01T00:00:00Z`) + MONTH_SETTLE_MS;
  return Date.parse(checkpointedAt) >= ended;
}
