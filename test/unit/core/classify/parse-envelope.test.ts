import { describe, expect, it } from 'vitest';
import { readHeaderBlock } from '../../../../src/core/archive/raw-headers.js';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../../../src/core/classify/parse-envelope.js';
import { readCommonMessage } from '../../../../src/core/classify/read-common-message.js';
import { fixtureMessages } from '../../../helpers/mail-files.js';

/** Mail written as each mailer writes it, one feature a file (test/fixtures/envelope). */
const first = (file: string) => parseEnvelope(fixtureMessages(`envelope/${file}`)[0]!);
const nth = async (file: string, n: number) => parseEnvelope(fixtureMessages(`envelope/${file}`)[n]!);

const CASES: Array<[behaviour: string, file: string, envelope: Record<string, unknown>]> = [
  [
    'decodes an ISO-2022-JP body',
    'iso-2022-jp.eml',
    {
      subject: '[ruby-dev:4]',
      body: '|けいじゅ＠今はフリー(^^;;;です.\n',
      date: '1997-07-28T15:08:29.000Z',
      dateOffsetMinutes: 540,
    },
  ],
  [
    'decodes a windows-1256 (Arabic) article and its RFC 2047 subject',
    'windows-1256.eml',
    {
      subject: 'Re: بعد المغرب السودان',
      body: expect.stringContaining('> السلام عليكم جميعا،'),
      listId: 'community-arab-world.lists.mozilla.org',
      inReplyTo: 'CABmD4sb6gd1k-arab-1@mail.example.com',
    },
  ],
  [
    'decodes windows-1252 quoted-printable text and subject',
    'windows-1252-qp.eml',
    {
      subject: 'Die Hasen und die Frösche (Microsoft Outlook 00)',
      body: expect.stringMatching(
        /^Die Hasen und die Frösche\n\nDie Hasen klagten einst über ihre mißliche Lage; "wir leben", sprach ein Redner/,
      ),
      fromName: 'Doug Sauder',
      dateOffsetMinutes: -240,
    },
  ],
  [
    'decodes UTF-7 text and subject (through mailparser)',
    'utf-7.eml',
    {
      subject: 'Die Hasen und die Frösche (Microsoft Outlook 00)',
      body: expect.stringContaining('Die Hasen klagten einst über ihre mißliche Lage; "wir leben"'),
    },
  ],
  [
    'reads ISO-8859-1 bytes in a message that declares nothing as Latin-1, not as U+FFFD',
    'payload-iso8859.eml',
    { body: 'This message contains non-ascii characters:\né è ç à î ï ë ¤\n' },
  ],
  [
    'reads UTF-8 bytes in a message that declares nothing as UTF-8',
    'payload-utf8.eml',
    { body: 'This message contains non-ascii characters:\né è ç à î ï ë €\n' },
  ],
  [
    'still reads a body whose charset is unknown',
    'payload-unknown.eml',
    { body: 'This message specifies an unknown content-type\n' },
  ],
  [
    'reads a name encoded as UTF-8 that is really Latin-1 as Latin-1',
    'latin1-as-utf8-name.eml',
    { fromName: 'Lucía Charlie', subject: '[ovs-dev] Remittance Advice' },
  ],
  [
    'decodes GB2312 subjects and bodies',
    'gb2312.eml',
    { subject: '你们看看这个是什么，开会时间定了', body: expect.stringContaining('13:33:39 13:33:39') },
  ],
  [
    'decodes base64 and quoted-printable parts of nested MIME',
    'nested-base64-qp.eml',
    {
      subject: 'Nodemailer is unicode friendly ✔ (1476358788189)',
      body: 'Hello to myself!',
      fromName: 'Andris Kreata',
    },
  ],
  [
    'reads a text part whose Content-Type has no subtype',
    'type-without-subtype.eml',
    {
      body: expect.stringContaining("I'm sorry but I'm using a drainbread ISP"),
      fromName: 'John X. Doe',
      fromAddress: 'bbb@example.com',
    },
  ],
  [
    'reads pipermail-obfuscated senders',
    'payload-utf8.eml',
    { fromAddress: 'test@example.com', fromName: 'Dummy Person' },
  ],
  ['reads comments inside an address (RFC 2822 A.5)', 'rfc2822-a5.eml', { fromAddress: 'pete@silly.test' }],
  [
    'reads the List-Id and list address of Apache mail',
    'apache-list.eml',
    { listId: 'users.kafka.apache.org', listAddress: 'users@kafka.apache.org' },
  ],
];

describe('envelope of list mail: charsets and MIME', () => {
  it.each(CASES)('%s', async (_, file, expected) => {
    expect(await first(file)).toMatchObject(expected);
  });

  it('reads UTF-8 bytes under a us-ascii label as UTF-8', async () => {
    const raw = Buffer.from(
      'From: A <a@x.org>\nSubject: caf\u00e9\nContent-Type: text/plain; charset=us-ascii\n\nna\u00efve\n',
      'utf8',
    );
    const e = await parseEnvelope(raw);
    expect(e.subject).toBe('café');
    expect(e.body).toBe('naïve\n');
  });

  it('decodes RFC 2047 names in UTF-8, ISO-8859-1 and ISO-8859-2, B and Q', async () => {
    const file = 'non-ascii-headers.mbox';
    expect((await nth(file, 0)).fromName).toBe('Vít Ondruch');
    expect((await nth(file, 1)).subject).toBe('[Fedora-fr-list] Compte-rendu de la réunion du 1 novembre 2009');
    expect((await nth(file, 1)).fromName).toBe('Björn Persson');
    expect((await nth(file, 2)).fromName).toBe('Marcela Mašláňová');
    expect((await nth(file, 3)).fromName).toBe('Dan Horák');
    expect((await nth(file, 3)).references).toHaveLength(3);
  });

  it('turns an HTML-only body into readable text', async () => {
    const e = await first('html-only.eml');
    expect(e.body).toMatch(/^Bonjour,\n\nVous connaissez \?/);
    expect(e.body).not.toMatch(/<[a-z]+/i);
  });

  it('prefers the text/plain part of multipart/alternative and leaves attachments out', async () => {
    const e = await first('alternative-attachment.eml');
    expect(e.subject).toBe('[List1] another try');
    expect(e.body).toMatch(
      /^This is a test, HTML message with accented letters : é è ç à\.\nAnd an attachment with an ac/,
    );
    expect(e.body).not.toContain('pièce jointe');
  });

  it('reads several charsets of one message (UTF-16, EUC-JP)', async () => {
    const e = await first('utf16-eucjp.eml');
    expect(e.body).toContain('Test message');
    expect(e.body).toContain('『世界人権宣言』');
  });

  it('takes the id out of an RFC 822 style In-Reply-To', async () => {
    const e = await first('strange-in-reply-to.eml');
    expect(e.inReplyTo).toBe('200704070053.46646.other.person@example.com');
    const wrong = await first('wrong-in-reply-to.eml');
    expect(wrong.inReplyTo).toBeNull();
  });

  it('leaves the date empty when the message has none rather than inventing one', async () => {
    const dates = await Promise.all(
      fixtureMessages('envelope/no-date.mbox').map(async (raw) => (await parseEnvelope(raw)).date),
    );
    expect(dates).toEqual([null, '2009-01-05T11:00:00.000Z']);
  });
});

describe('envelope details', () => {
  it('finds patches inline and as attachments, and the series facts', async () => {
    const raw = Buffer.from(
      'From: Dev <dev@example.org>\nSubject: [RFC PATCH v3 2/7] mm: fix\nMessage-ID: <p@x>\n\nfix\n\nSigned-off-by: Dev <Dev@Example.org>\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n',
    );
    const e = await parseEnvelope(raw);
    expect(e.hasPatch).toBe(true);
    expect(e.series).toEqual({ version: 3, index: 2, total: 7, rfc: true, resend: false, gitPull: false });
    expect(e.trailers).toEqual([{ kind: 'Signed-off-by', name: 'Dev', address: 'dev@example.org' }]);
  });

  it('treats a bare List-Id as the id, not as a name', async () => {
    const e = await parseEnvelope(
      Buffer.from('From: a@b.org\nList-Id: <dev.kafka.apache.org>\nTo: dev@kafka.apache.org\nSubject: x\n\nbody\n'),
    );
    expect(e.listId).toBe('dev.kafka.apache.org');
    expect(e.listAddress).toBe('dev@kafka.apache.org');
  });

  it('refuses bytes with no header fields at all', async () => {
    await expect(parseEnvelope(Buffer.from('\u0000\u0001garbage without headers'))).rejects.toThrow(/no header fields/);
  });
});

describe('our reader agrees with mailparser on dates', () => {
  it.each([
    ['a plausible date', 'Mon, 1 Jan 2024 10:00:00 +0100 (CET)'],
    ['year 99999', 'Mon, 01 Jan 99999 00:00:00 +0000'],
    ['year 1969', 'Tue, 31 Dec 1969 12:00:00 -0500'],
    ['an unreadable date', 'Whenever'],
    ['an unknown offset', 'Mon, 1 Jan 2024 10:00:00 -0000'],
  ])('gives the same date, offset and Date header for %s', async (_, date) => {
    const raw = Buffer.from(`From: a@example.org\nSubject: x\nMessage-ID: <d@example.org>\nDate: ${date}\n\nbody\n`);
    expect(readCommonMessage(raw, readHeaderBlock(raw))).toHaveProperty('body');
    const ours = await parseEnvelope(raw);
    expect(ours.dateHeader).toBe(date);
    expect(await parseEnvelopeWithMailparser(raw)).toEqual(ours);
  });
});

describe('envelope text is valid Unicode', () => {
  const raw = (headers: string, body: string, contentType = 'text/plain; charset=utf-7') =>
    Buffer.from(`${headers}\nContent-Type: ${contentType}\nMessage-ID: <u@x>\n\n${body}\n`);

  it('turns a lone surrogate from a UTF-7 word into U+FFFD in every field, on both readers', async () => {
    const message = raw(
      'From: =?UTF-7?Q?+2D0-?= <a@example.org>\nSubject: =?UTF-7?Q?+2D0-?= and =?UTF-7?Q?+3AA-?=',
      'lone +2D0- surrogate',
    );
    for (const e of [await parseEnvelope(message), await parseEnvelopeWithMailparser(message)]) {
      expect(e.subject).toBe('\uFFFD and \uFFFD');
      expect(e.fromName).toBe('\uFFFD');
      expect(e.body.trim()).toBe('lone \uFFFD surrogate');
      expect(JSON.stringify(e)).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    }
  });

  it('keeps a surrogate pair whole', async () => {
    const e = await parseEnvelope(
      raw('From: =?UTF-7?Q?+2D3eAA-?= <a@example.org>\nSubject: =?UTF-8?Q?=F0=9F=98=80?=', 'smile +2D3eAA-'),
    );
    expect(e.subject).toBe('\u{1F600}');
    expect(e.fromName).toBe('\u{1F600}');
    expect(e.body.trim()).toBe('smile \u{1F600}');
  });
});
