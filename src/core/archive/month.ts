import type { Month } from './archive-source.js';

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function isMonth(text: string): boolean {
  return MONTH.test(text);
}

export function monthOf(date: Date): Month {
  return date.toISOString().slice(0, 7);
}

export function addMonths(month: Month, count: number): Month {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  const index = year * 12 + (mon - 1) + count;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Every month from `from` to `to`, both included. */
export function monthsBetween(from: Month, to: Month): Month[] {
  const months: Month[] = [];
  for (let month = from; month <= to; month = addMonths(month, 1)) months.push(month);
  return months;
}
