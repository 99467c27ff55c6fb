/**
 * LISTMINER_LONG=1 (set by `.ci/run --long`) runs the reliability suites with
 * more points; without it they stay short enough for every `npm test`.
 */
export const LONG_MODE = process.env.LISTMINER_LONG === '1';

/** The short count by default, the long one under LISTMINER_LONG=1. */
export function shortOrLong(short: number, long: number): number {
  return LONG_MODE ? long : short;
}
