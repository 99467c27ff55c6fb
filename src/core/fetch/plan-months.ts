import type { Month } from '../archive/archive-source.js';
import { addMonths, monthsBetween } from '../archive/month.js';

/** Months fetched for a list never scanned, unless --months, backfill_months or --full say otherwise. */
export const DEFAULT_BACKFILL_MONTHS = 12;
/** Mail an archive files late (slow relays) still lands this long after a month ends, unless its source says otherwise (ArchiveSource.monthSettleMs). */
export const MONTH_SETTLE_MS = 2 * 86_400_000;

export interface MonthPlanInput {
  /** The list's checkpoint, and when that month was checkpointed. */
  lastMonth: Month | null;
  lastCheckpointAt?: string;
  /** How long after a month ends the archive may still file mail under it; MONTH_SETTLE_MS when not given. */
  settleMs?: number;
  /**
   * When the months just before `lastMonth` were checkpointed (the ones a
   * long settling time may still cover): one checkpointed before it had
   * settled is read again with the months after it.
   */
  recentCheckpoints?: ReadonlyMap<Month, string>;
  /** Oldest month the archive holds; undefined when it holds nothing. */
  firstMonth?: Month;
  /** Oldest month already fetched. */
  earliestFetched?: Month;
  /** Months already fetched whose content changed since (a local file or Maildir that was rewritten or grew). */
  changedMonths?: readonly Month[];
  /**
   * Months whose last read failed and that are not gaps: a run stops at its
   * failing month and retries it next time, so each is read again, and a list
   * that failed before its first checkpoint goes on from the earliest.
   */
  failedMonths?: readonly Month[];
  /** The list was read from the archive's first month on (not a window), so months the archive gains before it are read too. */
  coversHistory?: boolean;
  /**
   * A local archive (ArchiveSource.local): read whole, whatever window the
   * remote lists use, and read again only where `changedMonths` says so.
   */
  whole?: boolean;
  /** Newest month that can hold mail: the current one. */
  lastArchiveMonth: Month;
  now: Date;
  full: boolean;
  months?: number;
  backfillMonths?: number;
}

/**
 * The months a fetch reads, oldest first. --full reads the whole history,
 * months fetched before included: staging stores nothing twice, and it is
 * the one way to make sure nothing an archive holds was missed. Otherwise a
 * scanned list resumes after its checkpoint, except that a month
 * checkpointed before it was over (plus a settling time) is read again:
 * mail kept arriving after the checkpoint. Months a local source reports as
 * changed are read again too, and a list read from its first month follows
 * a history that grew backwards. A list never scanned starts at a recent
 * window, or at its first month under --full, or at a month that failed
 * before its first checkpoint. A month whose read failed is read again
 * until it is read whole or becomes a gap. A local archive is complete
 * and costs no one anything to read: it is read whole, and once read, its
 * months' fingerprints alone say what to read again (no settling time).
 */
export function planMonths(input: MonthPlanInput): Month[] {
  const end = input.lastArchiveMonth;
  if (input.full && input.firstMonth) return input.firstMonth <= end ? monthsBetween(input.firstMonth, end) : [];
  const failed = (input.failedMonths ?? []).filter((month) => input.firstMonth && month >= input.firstMonth);
  if (input.lastMonth) {
    let resume =
      input.whole || monthWasOver(input.lastMonth, input.lastCheckpointAt, input.settleMs)
        ? addMonths(input.lastMonth, 1)
        : input.lastMonth;
    if (!input.whole)
      for (const [month, at] of input.recentCheckpoints ?? [])
        if (month < resume && !monthWasOver(month, at, input.settleMs)) resume = month;
    const gap =
      (input.coversHistory || input.whole) &&
      input.firstMonth &&
      input.earliestFetched &&
      input.firstMonth < input.earliestFetched
        ? monthsBetween(input.firstMonth, addMonths(input.earliestFetched, -1))
        : [];
    const months = new Set([
      ...gap,
      ...(input.changedMonths ?? []),
      ...failed,
      ...(resume <= end ? monthsBetween(resume, end) : []),
    ]);
    return [...months].filter((month) => month <= end).sort();
  }
  if (!input.firstMonth) return [];
  const window = input.months ?? input.backfillMonths ?? DEFAULT_BACKFILL_MONTHS;
  const recent = addMonths(end, -(window - 1));
  let start = input.full || input.whole || input.firstMonth > recent ? input.firstMonth : recent;
  // The run that failed had got that far into the months it was asked for (a --full one, say): this one goes on from there.
  for (const month of failed) if (month < start) start = month;
  return start <= end ? monthsBetween(start, end) : [];
}

/** True when the month had ended (and settled) by the time it was checkpointed. */
export function monthWasOver(month: Month, checkpointedAt: string | undefined, settleMs = MONTH_SETTLE_MS): boolean {
  if (!checkpointedAt) return false;
  const next = addMonths(month, 1);
  const ended = Date.parse(`${next}-01T00:00:00Z`) + settleMs;
  return Date.parse(checkpointedAt) >= ended;
}
