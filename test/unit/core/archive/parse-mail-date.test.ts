import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageMonth } from '../../../../src/core/archive/message-month.js';
import { parseMailDate } from '../../../../src/core/archive/parse-mail-date.js';
import { readSentDate } from '../../../../src/core/classify/header-values.js';

const NOW = new Date('2026-01-15T00:00:00Z');
const iso = (text: string) => new Date(parseMailDate(text)).toISOString();

// Chatham is UTC+13:45 in January: far from UTC, and not a whole hour.
describe.each(['Pacific/Chatham', 'America/Los_Angeles', 'UTC'])('mail dates with the machine in %s', (zone) => {
  const before = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = zone; // Node reads TZ again when it changes; each test file runs in its own process
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  });

  it('the machine zone is in force (else this suite proves nothing)', () => {
    const offset = { 'Pacific/Chatham': -825, 'America/Los_Angeles': 480, UTC: 0 }[zone];
    expect(new Date(2023, 0, 1).getTimezoneOffset()).toBe(offset);
  });

  it('reads a date without a zone as UTC', () => {
    expect(iso('Sun, 1 Jan 2023 00:30:00')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('1 Jan 2023 00:30:00 (no zone given)')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('2023-01-01 00:30:00')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('2023-01-01T00:30:00')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('Sun Jan  1 00:30:00 2023')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('1 Jan 2023')).toBe('2023-01-01T00:00:00.000Z');
  });

  it('reads a date with a zone in that zone', () => {
    expect(iso('Sun, 1 Jan 2023 00:30:00 +0100')).toBe('2022-12-31T23:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 +0100 (CET)')).toBe('2022-12-31T23:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 -0000')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 -07:00')).toBe('2023-01-01T07:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 GMT')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 EST')).toBe('2023-01-01T05:30:00.000Z');
    expect(iso('Sun Jan  1 00:30:00 PST 2023')).toBe('2023-01-01T08:30:00.000Z');
    expect(iso('2023-01-01T00:30:00Z')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('2023-01-01T00:30:00.000+05:30')).toBe('2022-12-31T19:00:00.000Z');
    expect(parseMailDate('garbage')).toBeNaN();
    expect(parseMailDate('Sun, 1 Jan 2023 00:30:00 CET')).toBeNaN();
  });

  it('finds no date in a year of four digits before 1000, which the parser reads as this century', () => {
    expect(parseMailDate('Sat, 1 Jan 0000 00:00:00 +0000')).toBeNaN();
    expect(parseMailDate('Mon, 1 Jan 0024 00:00:00 +0100')).toBeNaN();
    expect(parseMailDate('Mon Jan  1 00:00:00 0024')).toBeNaN();
    expect(iso('Mon, 1 Jan 2024 00:00:00 -0100')).toBe('2024-01-01T01:00:00.000Z');
  });

  it('reads a date whose numeric zone no clock has as one without a zone, in UTC, with no offset', () => {
    expect(iso('Sun, 1 Jan 2023 00:30:00 +9999')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 -0160')).toBe('2023-01-01T00:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 +24:00 (a day ahead)')).toBe('2023-01-01T00:30:00.000Z');
    // The farthest zones there are, and an hour that RFC 5322's syntax allows, are read as given.
    expect(iso('Sun, 1 Jan 2023 00:30:00 +1400')).toBe('2022-12-31T10:30:00.000Z');
    expect(iso('Sun, 1 Jan 2023 00:30:00 -2359')).toBe('2023-01-02T00:29:00.000Z');
    expect(readSentDate('Sun, 1 Jan 2023 00:30:00 +9999', NOW.getTime())).toEqual({
      date: '2023-01-01T00:30:00.000Z',
      dateOffsetMinutes: null,
      dateHeader: 'Sun, 1 Jan 2023 00:30:00 +9999',
    });
    expect(
      messageMonth(Buffer.from('Date: Tue, 31 Jan 2023 23:30:00 -9959\n\nbody\n'), '1999-01', undefined, NOW),
    ).toBe('2023-01');
  });

  it("classify's envelope date and fetch's month agree on a zone-less Date header", () => {
    const sent = readSentDate('Sun, 1 Jan 2023 00:30:00', NOW.getTime());
    expect(sent).toEqual({
      date: '2023-01-01T00:30:00.000Z',
      dateOffsetMinutes: null,
      dateHeader: 'Sun, 1 Jan 2023 00:30:00',
    });
    expect(messageMonth(Buffer.from('Date: Sun, 1 Jan 2023 00:30:00\n\nbody\n'), '1999-01', undefined, NOW)).toBe(
      '2023-01',
    );
    expect(messageMonth(Buffer.from('Date: Tue, 31 Jan 2023 23:30:00\n\nbody\n'), '1999-01', undefined, NOW)).toBe(
      '2023-01',
    );
  });
});
