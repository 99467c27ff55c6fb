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

/**
 * The time of a mail date (a Date header or a From_ line's date), in
 * milliseconds since the epoch, NaN when unreadable. A date that names no
 * zone is read as UTC: the JavaScript parser reads it in the machine's zone,
 * which made two machines sharing one database file the same mail in
 * different months. Comments (`(CET)`) are ignored.
 */
export function parseMailDate(value: string): number {
  const text = value.replace(/\([^)]*\)/g, ' ').trim();
  if (!text || YEAR_BEFORE_1000.test(text)) return Number.NaN;
  if (NAMED_ZONE.test(text) || NUMERIC_ZONE.test(text)) return Date.parse(text);
  // ISO forms take a `Z`, the others a ` GMT` word; whichever the parser accepts.
  const utc = Date.parse(`${text} GMT`);
  return Number.isNaN(utc) ? Date.parse(`${text}Z`) : utc;
}
