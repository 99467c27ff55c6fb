import { describe, expect, it } from 'vitest';
import { monthOf } from '../../../../src/core/archive/month.js';

describe('monthOf', () => {
  it("gives the UTC month that the date's ISO form begins with", () => {
    const times = [
      Date.UTC(2024, 0, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59),
      Date.UTC(1970, 0, 1),
      new Date('0024-06-15T00:00:00Z').getTime(),
      Date.UTC(9999, 11, 31),
      -1,
    ];
    // Every day of a leap year and of the years around the epoch, at an hour that crosses midnight in some zones.
    for (let day = 0; day < 3 * 366; day++) times.push(Date.UTC(2023, 11, 31, 23, 30) + day * 86_400_000);
    for (const time of times) {
      const date = new Date(time);
      expect(monthOf(date), date.toISOString()).toBe(date.toISOString().slice(0, 7));
    }
  });

  it('says what toISOString says outside four-digit years, and refuses an invalid date as it does', () => {
    for (const date of [new Date(Date.UTC(10_000, 0, 1)), new Date(Date.UTC(-1, 6, 1)), new Date(8.64e15)])
      expect(monthOf(date)).toBe(date.toISOString().slice(0, 7));
    expect(() => monthOf(new Date(Number.NaN))).toThrow(RangeError);
  });
});
