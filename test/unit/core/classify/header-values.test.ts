import { describe, expect, it } from 'vitest';
import {
  DATE_HEADER_LIMIT,
  RECIPIENT_FIELD_LIMIT,
  boundText,
  readIds,
  readInReplyTo,
  readPerson,
  readRecipients,
  readSender,
  readSentDate,
} from '../../../../src/core/classify/header-values.js';
import { isPlausibleSentAt } from '../../../../src/core/classify/envelope.js';
import { normalizeMessageId } from '../../../../src/core/archive/message-key.js';

const NOW = Date.UTC(2025, 5, 15);

describe('reading the Date header', () => {
  it('reads the UTC time and the sender offset, and keeps the header as found', () => {
    expect(readSentDate('Mon, 1 Jan 2024 10:00:00 +0100 (CET)', NOW)).toEqual({
      date: '2024-01-01T09:00:00.000Z',
      dateOffsetMinutes: 60,
      dateHeader: 'Mon, 1 Jan 2024 10:00:00 +0100 (CET)',
    });
  });

  it('gives no date and no offset for year 99999, keeping the header text', () => {
    expect(readSentDate('Mon, 01 Jan 99999 00:00:00 +0000', NOW)).toEqual({
      date: null,
      dateOffsetMinutes: null,
      dateHeader: 'Mon, 01 Jan 99999 00:00:00 +0000',
    });
  });

  it('gives no date before 1970', () => {
    expect(readSentDate('Wed, 31 Dec 1969 23:59:59 +0000', NOW).date).toBeNull();
    expect(readSentDate('Thu, 01 Jan 1970 00:30:00 +0100', NOW).date).toBeNull(); // 23:30 UTC the day before
    expect(readSentDate('Thu, 01 Jan 1970 00:00:00 +0000', NOW).date).toBe('1970-01-01T00:00:00.000Z');
  });

  it('accepts dates through the end of next year and no later', () => {
    expect(readSentDate('Wed, 31 Dec 2026 23:59:59 +0000', NOW).date).toBe('2026-12-31T23:59:59.000Z');
    expect(readSentDate('Fri, 01 Jan 2027 00:00:00 +0000', NOW)).toMatchObject({ date: null, dateOffsetMinutes: null });
    expect(isPlausibleSentAt(Date.UTC(2027, 0, 1) - 1, NOW)).toBe(true);
    expect(isPlausibleSentAt(Date.UTC(2027, 0, 1), NOW)).toBe(false);
    expect(isPlausibleSentAt(Number.NaN, NOW)).toBe(false);
  });

  it('gives no date for an unreadable header rather than the time of parsing', () => {
    expect(readSentDate('Whenever', NOW)).toEqual({ date: null, dateOffsetMinutes: null, dateHeader: 'Whenever' });
    expect(readSentDate(undefined, NOW)).toEqual({ date: null, dateOffsetMinutes: null, dateHeader: null });
  });

  it('reads -0000 as an unknown offset', () => {
    expect(readSentDate('Mon, 1 Jan 2024 10:00:00 -0000', NOW)).toMatchObject({
      date: '2024-01-01T10:00:00.000Z',
      dateOffsetMinutes: null,
    });
  });

  it('keeps at most 256 characters of a long header, decoded, and reads no date from it', () => {
    const long = `Mon, 1 Jan 2024 10:00:00 +0000 ${'('.repeat(1_000_000)}`;
    const read = readSentDate(long, NOW);
    expect(read.date).toBeNull();
    expect(read.dateHeader).toBe(long.slice(0, DATE_HEADER_LIMIT));
    // Header bytes are held as latin1 text: C3 A9 is UTF-8 é.
    expect(readSentDate('Lun, 1 Jan 2024 10:00:00 +0000 (heure d\u00c3\u00a9t\u00c3\u00a9)', NOW).dateHeader).toBe(
      'Lun, 1 Jan 2024 10:00:00 +0000 (heure dété)',
    );
  });

  it('never cuts a surrogate pair in two when bounding text', () => {
    const text = `${'a'.repeat(DATE_HEADER_LIMIT - 1)}😀`;
    expect(boundText(text, DATE_HEADER_LIMIT)).toBe('a'.repeat(DATE_HEADER_LIMIT - 1));
    expect(boundText('short', DATE_HEADER_LIMIT)).toBe('short');
  });
});

describe('reading Message-ID lists', () => {
  it('keeps each id once, in the order first seen', () => {
    expect(readIds('<b@x> <a@x>\n <b@x> junk <c@x> <a@x>')).toEqual(['b@x', 'a@x', 'c@x']);
  });
});

describe('reading In-Reply-To', () => {
  const PARENT = '20090303.abc@example.org';

  it('takes the id, not the address, out of the phrases old mailers wrote', () => {
    expect(
      readInReplyTo(
        'Message from John Doe <john@example.org> of "Tue, 3 Mar 2009 10:00:00 +0100." <20090303.abc@example.org>',
      ),
    ).toBe(PARENT);
    expect(
      readInReplyTo('<john@example.org>\'s message of "Tue, 3 Mar 2009 10:00:00 +0100" <20090303.abc@example.org>'),
    ).toBe(PARENT);
    expect(readInReplyTo('John Doe <john@example.org>’s message of Tue, 3 Mar 2009 <20090303.abc@example.org>')).toBe(
      PARENT,
    );
    expect(readInReplyTo('Your message of "Tue, 3 Mar 2009 10:00:00 +0100."\n <20090303.abc@example.org>')).toBe(
      PARENT,
    );
    expect(readInReplyTo('<20090303.abc@example.org> from "John Doe <john@example.org>"')).toBe(PARENT);
    expect(readInReplyTo('<20090303.abc@example.org> from John Doe <john@example.org>')).toBe(PARENT);
    expect(readInReplyTo('Your message from Tue, 3 Mar 2009 10:00:00 +0100 <20090303.abc@example.org>')).toBe(PARENT);
  });

  it('reads no id out of a comment', () => {
    expect(
      readInReplyTo('<20090303.abc@example.org> (message from John Doe <john@example.org> on Tue, 3 Mar 2009)'),
    ).toBe(PARENT);
  });

  it('takes the first of several ids, reading a mangled one as its Message-ID is read', () => {
    expect(readInReplyTo('<20090303.abc@example.org> <other@example.org>')).toBe(PARENT);
    expect(readInReplyTo('<20090303.abc@example.org>, <other@example.org>')).toBe(PARENT);
    const mangled = '<hostile.1"><script>x</script>@example.com>';
    expect(readInReplyTo(mangled)).toBe(normalizeMessageId(mangled));
  });

  it('gives no parent when the phrase names only the sender', () => {
    expect(readInReplyTo('Message from John Doe <john@example.org> of "Tue, 3 Mar 2009 10:00:00 +0100."')).toBeNull();
    expect(readInReplyTo("<john@example.org>'s message of Tue, 3 Mar 2009")).toBeNull();
    expect(readInReplyTo('your message of yesterday')).toBeNull();
  });

  it('still reads a plain, a bare and a bracketed id without @', () => {
    expect(readInReplyTo('<20090303.abc@example.org>')).toBe(PARENT);
    expect(readInReplyTo(' 20090303.abc@example.org ')).toBe(PARENT);
    expect(readInReplyTo('<local-id-without-host>')).toBe('local-id-without-host');
  });

  it('reads a hostile field of unclosed brackets, comments and quotes in one pass', () => {
    // A pattern that backtracks takes minutes over these.
    expect(readInReplyTo(`${'(<'.repeat(300_000)}<20090303.abc@example.org>`)).toBe(PARENT);
    expect(readInReplyTo(`${'from x <a@b> '.repeat(100_000)}`)).toBeNull();
    expect(readInReplyTo(`"${'\\"'.repeat(300_000)}<20090303.abc@example.org>`)).toBe(PARENT);
    expect(readInReplyTo(`<20090303.abc@example.org>${' '.repeat(500_000)}x`)).toBe(PARENT);
  });
});

describe('reading senders and recipients', () => {
  it('reads the usual forms of a sender', () => {
    expect(readSender('"Doe, Jane" <Jane@Example.org>')).toEqual({ name: 'Doe, Jane', address: 'jane@example.org' });
    expect(readSender('jane@example.org (Jane Doe)')).toEqual({ name: 'Jane Doe', address: 'jane@example.org' });
    expect(readSender('jane at example.org (Jane Doe)')).toEqual({ name: 'Jane Doe', address: 'jane@example.org' });
    expect(readSender('=?ISO-8859-1?Q?G=F6ran?= <g@example.org>')).toEqual({ name: 'Göran', address: 'g@example.org' });
    expect(readSender('g@example.org <g@example.org>')).toEqual({ name: null, address: 'g@example.org' });
  });

  it('takes the address outside the quotes, never one written inside the display name', () => {
    expect(readSender('"Evil <victim@x.example>" <real@evil.example>')).toEqual({
      name: 'Evil <victim@x.example>',
      address: 'real@evil.example',
    });
    expect(readPerson('"a \\" <b@x>" <c@y>')).toEqual({ name: 'a " <b@x>', address: 'c@y' });
    // A quote left open is read as if it were none, as before.
    expect(readSender('"Jane Doe <jane@example.org>')).toEqual({ name: 'Jane Doe', address: 'jane@example.org' });
    // Quotes and angle brackets by the thousand, with no address at all, in one pass.
    expect(readPerson(`${'"<'.repeat(50_000)}`).address).toBeNull();
    expect(readPerson(`${'"x" '.repeat(50_000)}<y@z>`).address).toBe('y@z');
  });

  it('reads a pipermail sender only when the host has a dot inside it', () => {
    expect(readSender('jane at localhost').address).toBeNull();
    expect(readSender('jane at .org').address).toBeNull();
  });

  it('reads hostile senders (long blank runs, dotted hosts without end) in one pass', () => {
    // Each of these took seconds to minutes with backtracking patterns.
    expect(readSender(`a at ${'x.'.repeat(200_000)}<`)).toEqual({
      name: `a at ${'x.'.repeat(200_000)}<`,
      address: null,
    });
    expect(readSender(`Jane${' '.repeat(400_000)}Doe <jane@example.org>`)).toEqual({
      name: 'Jane Doe',
      address: 'jane@example.org',
    });
    expect(readPerson(`a${' '.repeat(400_000)}"${'"'.repeat(400_000)}b`).name).toBe(`a "${'"'.repeat(400_000)}b`);
  });

  it('reads recipient lists with quoted names, groups and semicolons', () => {
    expect(
      readRecipients(['"dev@kafka.apache.org" <Jane@Example.org>, Group: a@b.org, c@d.org;', 'x@y.org; Z <Z@Y.org>']),
    ).toEqual(['jane@example.org', 'a@b.org', 'c@d.org', 'x@y.org', 'z@y.org']);
  });

  it('reads only the start of a recipient field of tens of thousands of addresses', () => {
    const field = Array.from({ length: 60_000 }, (_, i) => `"Person ${i}" <p${i}@example.org>`).join(', ');
    const addresses = readRecipients([field]);
    expect(addresses[0]).toBe('p0@example.org');
    expect(addresses.length).toBeGreaterThan(1_000);
    expect(addresses.join(', ').length).toBeLessThan(RECIPIENT_FIELD_LIMIT);
  });
});
