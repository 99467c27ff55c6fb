import { describe, expect, it } from 'vitest';
import { messageMonth } from '../../../../src/core/archive/message-month.js';

const raw = (headers: string) => Buffer.from(`${headers}\n\nbody\n`);
const NOW = new Date('2026-01-15T00:00:00Z');

describe('messageMonth', () => {
  it('reads the Date header in UTC, comments and all', () => {
    expect(messageMonth(raw('Date: Wed, 31 Jan 2024 23:30:00 -0100'), '1999-01', undefined, NOW)).toBe('2024-02');
    expect(messageMonth(raw('Date: Tue, 10 Jul 2012 11:29:44 +0200 (CEST)'), '1999-01', undefined, NOW)).toBe(
      '2012-07',
    );
  });

  it('falls back to the From_ line date, then to the fallback month', () => {
    expect(messageMonth(raw('Subject: x'), '1999-01', 'From foo at bar.org  Wed Dec  1 08:26:40 2010', NOW)).toBe(
      '2010-12',
    );
    expect(messageMonth(raw('Date: garbage'), '1999-01', 'From x', NOW)).toBe('1999-01');
  });

  it('does not trust placeholder From_ dates or dates far in the future', () => {
    expect(messageMonth(raw('Subject: x'), '2020-05', 'From mboxrd@z Thu Jan  1 00:00:00 1970', NOW)).toBe('2020-05');
    expect(messageMonth(raw('Subject: x'), '2020-05', 'From 0123abc Mon Sep 17 00:00:00 2001', NOW)).toBe('2020-05');
    expect(messageMonth(raw('Date: Mon, 1 Jan 2091 00:00:00 +0000'), '2020-05', undefined, NOW)).toBe('2020-05');
  });

  it('files a message dated ahead of the current month, or with a fallback ahead of it, under the current month', () => {
    expect(messageMonth(raw('Date: Sun, 15 Mar 2026 00:00:00 +0000'), '2020-05', undefined, NOW)).toBe('2026-01');
    expect(messageMonth(raw('Subject: x'), '2286-11', undefined, NOW)).toBe('2026-01');
    expect(messageMonth(raw('Subject: x'), '2026-02', 'From x Sun Mar 15 00:00:00 2026', NOW)).toBe('2026-01');
  });
});
