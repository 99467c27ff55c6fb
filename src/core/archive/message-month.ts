import type { Month } from './archive-source.js';
import { monthOf } from './month.js';
import { parseMailDate } from './parse-mail-date.js';
import { firstField, firstHeaderField, type HeaderBlock } from './raw-headers.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const ASCTIME =
  /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\s+\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?\s+(?:[A-Z]{3,4}\s+)?(\d{4})\b/i;

/** Dates tools write into From_ lines when they have none: the epoch (public-inbox, b4) and git format-patch's. */
const PLACEHOLDER_DATES = /Jan\s+1 00:00:00 1970|Sep 17 00:00:00 2001/;

/**
 * The month a local message is filed under (docs/archive-backends.md): its
 * Date header; else the date of its From_ line; else the fallback the source
 * gives (a file's modification month), so a message without a usable date is
 * still read, never dropped. Dates before 1970 or more than a year ahead are
 * not usable, nor are the placeholder dates tools put in From_ lines. A
 * date without a zone is UTC, whatever the machine's zone. No message is
 * filed after the month of `now`: fetch reads no month still to come, so
 * mail dated ahead (a sender's clock set wrong, a file touched in the
 * future) is filed under the current month, as public-inbox files a commit
 * dated ahead. Takes the raw message, or its header block when the caller
 * has read it already.
 */
export function messageMonth(
  message: Buffer | HeaderBlock,
  fallback: Month,
  fromLine?: string,
  now = new Date(),
): Month {
  const month = datedMonth(message, fallback, fromLine, now);
  const current = monthOf(now);
  return month > current ? current : month;
}

function datedMonth(message: Buffer | HeaderBlock, fallback: Month, fromLine: string | undefined, now: Date): Month {
  const date = Buffer.isBuffer(message) ? firstHeaderField(message, 'date') : firstField(message, 'date');
  if (date) {
    const parsed = new Date(parseMailDate(date));
    if (plausible(parsed, now)) return monthOf(parsed);
  }
  const asctime = fromLine && !PLACEHOLDER_DATES.test(fromLine) && ASCTIME.exec(fromLine.slice(5));
  if (asctime) {
    const month = `${asctime[2]}-${String(MONTHS.indexOf(asctime[1]!.slice(0, 3).toLowerCase()) + 1).padStart(2, '0')}`;
    if (plausible(new Date(`${month}-15T00:00:00Z`), now)) return month;
  }
  return fallback;
}

function plausible(date: Date, now: Date): boolean {
  const time = date.getTime();
  return !Number.isNaN(time) && time > 0 && time <= now.getTime() + 366 * 24 * 3600 * 1000;
}
