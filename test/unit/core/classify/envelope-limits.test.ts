import { describe, expect, it } from 'vitest';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../../../src/core/classify/parse-envelope.js';

/** A message whose References field holds `ids`, folded one id per line as mailers write it. */
function withReferences(ids: readonly string[], contentType = 'text/plain; charset=utf-8'): Buffer {
  const references = ids.map((id) => `<${id}>`).join('\n ');
  return Buffer.from(
    `From: a@example.org\nSubject: re: x\nMessage-ID: <self@example.org>\nContent-Type: ${contentType}\nReferences: ${references}\n\nbody\n`,
  );
}

// No time is asserted: a reader that is quadratic in the header's size runs past the test's default timeout.
describe('an envelope of a message with a huge References header', () => {
  it('keeps all of 40,000 ids once each, in first-seen order', async () => {
    const ids = Array.from({ length: 40_000 }, (_, i) => `${i}@example.org`);
    // Every id a second time after the first 40,000, and the first few again in between.
    const raw = withReferences([...ids.slice(0, 20_000), ...ids.slice(0, 100), ...ids.slice(20_000), ...ids]);
    const envelope = await parseEnvelope(raw);
    expect(envelope.references).toHaveLength(40_000);
    expect(envelope.references).toEqual(ids);
  });

  it('reads a 2 MB References header through both readers', async () => {
    const ids = Array.from(
      { length: 40_000 },
      (_, i) => `${String(i).padStart(8, '0')}.commit-notification.${i % 97}@lists.example.org`,
    );
    const raw = withReferences(ids);
    expect(raw.length).toBeGreaterThan(2_000_000);
    expect((await parseEnvelope(raw)).references).toEqual(ids);
    const mime = withReferences(ids, 'multipart/mixed; boundary="b"');
    expect((await parseEnvelopeWithMailparser(mime)).references).toEqual(ids);
  });
});

describe('an envelope of a message dated outside 1970 through next year', () => {
  const dated = (date: string) =>
    Buffer.from(`From: a@example.org\nSubject: x\nMessage-ID: <d@example.org>\nDate: ${date}\n\nbody\n`);

  it.each(['Mon, 01 Jan 99999 00:00:00 +0000', 'Tue, 31 Dec 1969 12:00:00 -0500', 'Sat, 01 Jan 10000 00:00:00 +0100'])(
    'has no date for %s but keeps the header',
    async (date) => {
      const envelope = await parseEnvelope(dated(date));
      expect(envelope).toMatchObject({ date: null, dateOffsetMinutes: null, dateHeader: date });
    },
  );

  it('keeps a date inside the range', async () => {
    expect(await parseEnvelope(dated('Mon, 1 Jan 2024 10:00:00 -0700'))).toMatchObject({
      date: '2024-01-01T17:00:00.000Z',
      dateOffsetMinutes: -420,
      dateHeader: 'Mon, 1 Jan 2024 10:00:00 -0700',
    });
  });

  it('bounds a huge Date header to 256 characters', async () => {
    const envelope = await parseEnvelope(dated(`Mon, 1 Jan 2024 10:00:00 -0700 ${'x'.repeat(2_000_000)}`));
    expect(envelope.date).toBeNull();
    expect(envelope.dateHeader).toHaveLength(256);
  });
});

describe('a message mailparser reads whose lines hold long runs of blanks', () => {
  it('is refused with the reason in moments, where mailparser would backtrack over each run for minutes', async () => {
    // Two From fields send it to mailparser; its quoted-printable decoder is quadratic in a blank run that does not end a line.
    const raw = Buffer.from(
      `From: a@example.org\nFrom: b@example.org\nSubject: s\nMIME-Version: 1.0\nContent-Type: text/plain\n` +
        `Content-Transfer-Encoding: quoted-printable\n\n${' '.repeat(60_000)}x\n`,
    );
    await expect(parseEnvelope(raw)).rejects.toThrow(/60000 blanks inside a line/);
  });

  it('is read when its runs of blanks are of the lengths real mail has', async () => {
    const line = `${'word '.repeat(10)}${' '.repeat(400)}end\n`;
    const raw = Buffer.from(
      `From: a@example.org\nFrom: b@example.org\nSubject: s\nContent-Transfer-Encoding: quoted-printable\n\n${line.repeat(200)}`,
    );
    expect((await parseEnvelope(raw)).body).toContain('end');
  });
});
