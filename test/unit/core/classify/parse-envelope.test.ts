import { describe, expect, it } from 'vitest';
import { readHeaderBlock } from '../../../../src/core/archive/raw-headers.js';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../../../src/core/classify/parse-envelope.js';
import { readCommonMessage } from '../../../../src/core/classify/read-common-message.js';
import { corpusMessages } from '../../../helpers/corpus-mail.js';
import { corpusMissing } from '../../../helpers/corpus.js';

const first = (file: string) => parseEnvelope(corpusMessages(file)[0]!);
const nth = async (file: string, n: number) => parseEnvelope(corpusMessages(file)[n]!);

describe.skipIf(corpusMissing)('envelope of real mail: charsets and MIME', () => {
  it('decodes an ISO-2022-JP body', async () => {
    const e = await first('public-inbox/t/iso-2202-jp.eml');
    expect(e.subject).toBe('[ruby-dev:4]');
    expect(e.body).toBe('|けいじゅ＠今はフリー(^^;;;です.\n');
    expect(e.date).toBe('1997-07-28T15:08:29.000Z');
    expect(e.dateOffsetMinutes).toBe(540);
  });

  it('decodes a windows-1256 (Arabic) article and its RFC 2047 subject', async () => {
    const e = await first('grimoirelab-perceval/tests/data/nntp/nntp_parsing_error.txt');
    expect(e.subject).toBe('Re: بعد المغرب السودان');
    expect(e.body).toContain('> السلام عليكم جميعا،');
    expect(e.listId).toBe('community-arab-world.lists.mozilla.org');
    expect(e.inReplyTo).toBe('CABmD4sb6gd1k-QXnXq=8U-M7UPYrhq-nMwmVYahxXyrn8P=wUg@mail.gmail.com');
  });

  it('decodes windows-1252 quoted-printable text and subject', async () => {
    const e = await first('stalwart-mail-parser/resources/eml/legacy/012.eml');
    expect(e.subject).toBe('Die Hasen und die Frösche (Microsoft Outlook 00)');
    expect(e.body).toMatch(/^Die Hasen und die Frösche\n\nDie Hasen klagten einst über ihre mißliche Lage; "wir leben", sprach ein Redner/);
    expect(e.fromName).toBe('Doug Sauder');
    expect(e.dateOffsetMinutes).toBe(-240);
  });

  it('decodes UTF-7 text and subject (through mailparser)', async () => {
    const e = await first('stalwart-mail-parser/resources/eml/legacy/001.eml');
    expect(e.subject).toBe('Die Hasen und die Frösche (Microsoft Outlook 00)');
    expect(e.body).toContain('Die Hasen klagten einst über ihre mißliche Lage; "wir leben"');
  });

  it('reads ISO-8859-1 bytes in a message that declares nothing as Latin-1, not as U+FFFD', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/payload-iso8859.txt');
    expect(e.body).toBe('This message contains non-ascii characters:\né è ç à î ï ë ¤\n');
  });

  it('reads UTF-8 bytes in a message that declares nothing as UTF-8', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/payload-utf8.txt');
    expect(e.body).toBe('This message contains non-ascii characters:\né è ç à î ï ë €\n');
  });

  it('reads UTF-8 bytes under a us-ascii label as UTF-8', async () => {
    const raw = Buffer.from('From: A <a@x.org>\nSubject: caf\u00e9\nContent-Type: text/plain; charset=us-ascii\n\nna\u00efve\n', 'utf8');
    const e = await parseEnvelope(raw);
    expect(e.subject).toBe('café');
    expect(e.body).toBe('naïve\n');
  });

  it('still reads a body whose charset is unknown', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/payload-unknown.txt');
    expect(e.body).toBe('This message specifies an unknown content-type\n');
  });

  it('decodes RFC 2047 names in every charset HyperKitty tests with', async () => {
    const file = 'hyperkitty/hyperkitty/tests/testdata/non-ascii-headers.txt';
    expect((await nth(file, 0)).fromName).toBe('Vít Ondruch');
    expect((await nth(file, 2)).subject).toBe('[Fedora-fr-list] Compte-rendu de la réunion du 1 novembre 2009');
    expect((await nth(file, 2)).fromName).toBe('Björn Persson');
    expect((await nth(file, 3)).fromName).toBe('Marcela Mašláňová');
    expect((await nth(file, 4)).fromName).toBe('Dan Horák');
    expect((await nth(file, 4)).references).toHaveLength(3);
  });

  it('reads a name encoded as UTF-8 that is really Latin-1 as Latin-1', async () => {
    const e = await first('grimoirelab-perceval/tests/data/mbox/mbox_iso8859_encoding.mbox');
    expect(e.fromName).toBe('Lucía Charlie');
    expect(e.subject).toBe('[ovs-dev] Remittance Advice');
  });

  it('decodes GB2312 subjects and bodies', async () => {
    const e = await first('spamscope-mail-parser/tests/mails/mail_test_9');
    expect(e.subject).toBe('我把镜头拉近些，你们看看这个是什么屄，这种场合自然少不了内射');
    expect(e.body).toContain('13:33:39 13:33:39');
  });

  it('turns an HTML-only body into readable text', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/html-email-2.txt');
    expect(e.body).toMatch(/^Bonjour,\n\nVous connaissez \?/);
    expect(e.body).not.toMatch(/<[a-z]+/i);
  });

  it('prefers the text/plain part of multipart/alternative and leaves attachments out', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/attachment-4.txt');
    expect(e.subject).toBe('[List1] another try');
    expect(e.body).toMatch(/^This is a test, HTML message with accented letters : é è ç à\.\nAnd an attachment with an ac/);
  });

  it('decodes base64 and quoted-printable parts of nested MIME (nodemailer fixture)', async () => {
    const e = await first('nodemailer-mailparser/test/fixtures/nodemailer.eml');
    expect(e.subject).toBe('Nodemailer is unicode friendly ✔ (1476358788189)');
    expect(e.body).toBe('Hello to myself!');
    expect(e.fromName).toBe('Andris Kreata');
  });

  it('reads the MIME torture test without losing its plain text', async () => {
    const e = await first('postal-mime/test/fixtures/mimetorture.eml');
    expect(e.subject).toBe("Ryan Finnie's MIME Torture Test v1.0");
    expect(e.body).toMatch(/^Welcome to Ryan Finnie's MIME torture test\./);
  });

  it('reads several charsets of one message (UTF-16, EUC-JP)', async () => {
    const e = await first('stalwart-mail-parser/resources/eml/thirdparty/005.eml');
    expect(e.body).toContain('Test message');
    expect(e.body).toContain('『世界人権宣言』');
  });

  it('reads a text part whose Content-Type has no subtype', async () => {
    const e = await first('cpython/Lib/test/test_email/data/msg_14.txt');
    expect(e.body).toContain("I'm sorry but I'm using a drainbread ISP");
    expect(e.fromName).toBe('John X. Doe');
    expect(e.fromAddress).toBe('bbb@ddd.com');
  });

  it('reads pipermail-obfuscated senders', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/payload-utf8.txt');
    expect(e.fromAddress).toBe('test@example.com');
    expect(e.fromName).toBe('Dummy Person');
  });

  it('takes the id out of an RFC 822 style In-Reply-To', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/strange-in-reply-to-header.txt');
    expect(e.inReplyTo).toBe('200704070053.46646.other.person@example.com');
    const wrong = await first('hyperkitty/hyperkitty/tests/testdata/wrong-in-reply-to-header.txt');
    expect(wrong.inReplyTo).toBeNull();
  });

  it('reads comments inside an address (RFC 2822 A.5)', async () => {
    const e = await first('incubator-ponymail-foal/test/resources/rfc2822-A5.eml');
    expect(e.fromAddress).toBe('pete@silly.test');
  });

  it('leaves the date empty when the message has none rather than inventing one', async () => {
    const messages = corpusMessages('grimoirelab-perceval/tests/data/mbox/mbox_no_fields.mbox');
    const dates = await Promise.all(messages.map(async (raw) => (await parseEnvelope(raw)).date));
    expect(dates.some((d) => d === null)).toBe(true);
    for (const date of dates) if (date) expect(date < '2020').toBe(true);
  });

  it('reads the List-Id and list address of Apache mail', async () => {
    const e = await first('incubator-ponymail-foal/test/resources/users.kafka.apache.org-43276.eml');
    expect(e.listId).toBe('users.kafka.apache.org');
    expect(e.listAddress).toBe('users@kafka.apache.org');
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
    const e = await parseEnvelope(Buffer.from('From: a@b.org\nList-Id: <dev.kafka.apache.org>\nTo: dev@kafka.apache.org\nSubject: x\n\nbody\n'));
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
    const message = raw('From: =?UTF-7?Q?+2D0-?= <a@example.org>\nSubject: =?UTF-7?Q?+2D0-?= and =?UTF-7?Q?+3AA-?=', 'lone +2D0- surrogate');
    for (const e of [await parseEnvelope(message), await parseEnvelopeWithMailparser(message)]) {
      expect(e.subject).toBe('\uFFFD and \uFFFD');
      expect(e.fromName).toBe('\uFFFD');
      expect(e.body.trim()).toBe('lone \uFFFD surrogate');
      expect(JSON.stringify(e)).not.toMatch(/\\ud[89a-f][0-9a-f]{2}/i);
    }
  });

  it('keeps a surrogate pair whole', async () => {
    const e = await parseEnvelope(raw('From: =?UTF-7?Q?+2D3eAA-?= <a@example.org>\nSubject: =?UTF-8?Q?=F0=9F=98=80?=', 'smile +2D3eAA-'));
    expect(e.subject).toBe('\u{1F600}');
    expect(e.fromName).toBe('\u{1F600}');
    expect(e.body.trim()).toBe('smile \u{1F600}');
  });
});
