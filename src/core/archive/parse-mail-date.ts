/** A zone the JavaScript date parser knows by name (RFC 5322's obsolete zones, less the military letters it refuses). */
const NAMED_ZONE = /(?:^|[^a-z])(?:UTC?|GMT|Z|[ECMP][SD]T)(?![a-z])/i;
/** A numeric offset after the time of day: `00:30:00 +0100`, `00:30-07:00`, `00:30:00.000Z` is caught above. */
const NUMERIC_ZONE = /\d:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[AP]M\s*)?[+-]\d/i;

/**
 * A year of four digits before 1000 (`1 Jan 0024`), which the JavaScript
 * parser reads as 2024: no mail is that old, so the date is unreadable.
 * A zone's digits (`+0100`) follow a sign and are not taken for it.
 */
const YEAR_BEFORE_1000 = /(?:^|[\s,])0\d{3}(?=$|[\s,])/;

/** A numeric zone ending a date: `+0100`, `-07:00`. */
export const TRAILING_OFFSET = /([+-])(\d{2}):?(\d{2})$/;

/**
 * Whether a TRAILING_OFFSET match is an offset a clock can have: minutes
 * 00–59 (RFC 5322 §3.3) and less than a day. The JavaScript parser reads
 * `+9999` as 100 hours 39 minutes, four days off.
 */
export function possibleOffset(match: RegExpExecArray): boolean {
  return Number(match[2]) <= 23 && Number(match[3]) <= 59;
}

/**
 * The time of a mail date (a Date header or a From_ line's date), in
 * milliseconds since the epoch, NaN when unreadable. A date that names no
 * zone is read as UTC: the JavaScript parser reads it in the machine's zone,
 * which made two machines sharing one database file the same mail in
 * different months, and so is one whose numeric zone no clock has
 * (`+9999`). Comments (`(CET)`) are ignored.
 */
export function parseMailDate(value: string): number {
  const text = value.replace(/\([^)]*\)/g, ' ').trim();
  if (!text || YEAR_BEFORE_1000.test(text)) return Number.NaN;
  // A zone no clock has says nothing of the sender's: the time is read as one with no zone.
  const offset = TRAILING_OFFSET.exec(text);
  if (offset && !possibleOffset(offset)) return parseMailDate(text.slice(0, offset.index));
  if (NAMED_ZONE.test(text) || NUMERIC_ZONE.test(text)) return Date.parse(text);
  // ISO forms take a `Z`, the others a ` GMT` word; whichever the parser accepts.
  const utc = Date.parse(`${text} GMT`);
  return Number.isNaN(utc) ? Date.parse(`${text}Z`) : utc;
}
