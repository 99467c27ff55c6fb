import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../src/core/classify/parse-envelope.js';
import { corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';

const first = (file: string) => parseEnvelope(corpusMessages(file)[0]!);
const nth = async (file: string, n: number) => parseEnvelope(corpusMessages(file)[n]!);

const CASES: Array<[behaviour: string, file: string, envelope: Record<string, unknown>]> = [
  [
    'decodes an ISO-2022-JP body',
    'public-inbox/t/iso-2202-jp.eml',
    {
      subject: '[ruby-dev:4]',
      body: '|けいじゅ＠今はフリー(^^;;;です.\n',
      date: '1997-07-28T15:08:29.000Z',
      dateOffsetMinutes: 540,
    },
  ],
  [
    'decodes a windows-1256 (Arabic) article and its RFC 2047 subject',
    'grimoirelab-perceval/tests/data/nntp/nntp_parsing_error.txt',
    {
      subject: 'Re: بعد المغرب السودان',
      body: expect.stringContaining('> السلام عليكم جميعا،'),
      listId: 'community-arab-world.lists.mozilla.org',
      inReplyTo: 'CABmD4sb6gd1k-QXnXq=8U-M7UPYrhq-nMwmVYahxXyrn8P=wUg@mail.gmail.com',
    },
  ],
  [
    'decodes windows-1252 quoted-printable text and subject',
    'stalwart-mail-parser/resources/eml/legacy/012.eml',
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
    'stalwart-mail-parser/resources/eml/legacy/001.eml',
    {
      subject: 'Die Hasen und die Frösche (Microsoft Outlook 00)',
      body: expect.stringContaining('Die Hasen klagten einst über ihre mißliche Lage; "wir leben"'),
    },
  ],
  [
    'reads ISO-8859-1 bytes in a message that declares nothing as Latin-1, not as U+FFFD',
    'hyperkitty/hyperkitty/tests/testdata/payload-iso8859.txt',
    { body: 'This message contains non-ascii characters:\né è ç à î ï ë ¤\n' },
  ],
  [
    'reads UTF-8 bytes in a message that declares nothing as UTF-8',
    'hyperkitty/hyperkitty/tests/testdata/payload-utf8.txt',
    { body: 'This message contains non-ascii characters:\né è ç à î ï ë €\n' },
  ],
  [
    'still reads a body whose charset is unknown',
    'hyperkitty/hyperkitty/tests/testdata/payload-unknown.txt',
    { body: 'This message specifies an unknown content-type\n' },
  ],
  [
    'reads a name encoded as UTF-8 that is really Latin-1 as Latin-1',
    'grimoirelab-perceval/tests/data/mbox/mbox_iso8859_encoding.mbox',
    { fromName: 'Lucía Charlie', subject: '[ovs-dev] Remittance Advice' },
  ],
  [
    'decodes GB2312 subjects and bodies',
    'spamscope-mail-parser/tests/mails/mail_test_9',
    {
      subject: '我把镜头拉近些，你们看看这个是什么屄，这种场合自然少不了内射',
      body: expect.stringContaining('13:33:39 13:33:39'),
    },
  ],
  [
    'prefers the text/plain part of multipart/alternative and leaves attachments out',
    'hyperkitty/hyperkitty/tests/testdata/attachment-4.txt',
    {
      subject: '[List1] another try',
      body: expect.stringMatching(
        /^This is a test, HTML message with accented letters : é è ç à\.\nAnd an attachment with an ac/,
      ),
    },
  ],
  [
    'decodes base64 and quoted-printable parts of nested MIME (nodemailer fixture)',
    'nodemailer-mailparser/test/fixtures/nodemailer.eml',
    {
      subject: 'Nodemailer is unicode friendly ✔ (1476358788189)',
      body: 'Hello to myself!',
      fromName: 'Andris Kreata',
    },
  ],
  [
    'reads the MIME torture test without losing its plain text',
    'postal-mime/test/fixtures/mimetorture.eml',
    {
      subject: "Ryan Finnie's MIME Torture Test v1.0",
      body: expect.stringMatching(/^Welcome to Ryan Finnie's MIME torture test\./),
    },
  ],
  [
    'reads a text part whose Content-Type has no subtype',
    'cpython/Lib/test/test_email/data/msg_14.txt',
    {
      body: expect.stringContaining("I'm sorry but I'm using a drainbread ISP"),
      fromName: 'John X. Doe',
      fromAddress: 'bbb@ddd.com',
    },
  ],
  [
    'reads pipermail-obfuscated senders',
    'hyperkitty/hyperkitty/tests/testdata/payload-utf8.txt',
    { fromAddress: 'test@example.com', fromName: 'Dummy Person' },
  ],
  [
    'reads comments inside an address (RFC 2822 A.5)',
    'incubator-ponymail-foal/test/resources/rfc2822-A5.eml',
    { fromAddress: 'pete@silly.test' },
  ],
  [
    'reads the List-Id and list address of Apache mail',
    'incubator-ponymail-foal/test/resources/users.kafka.apache.org-43276.eml',
    { listId: 'users.kafka.apache.org', listAddress: 'users@kafka.apache.org' },
  ],
];

describe.skipIf(corpusMissing)('envelope of the corpus mail: charsets and MIME', () => {
  it.each(CASES)('%s', async (_, file, expected) => {
    expect(await first(file)).toMatchObject(expected);
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

  it('turns an HTML-only body into readable text', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/html-email-2.txt');
    expect(e.body).toMatch(/^Bonjour,\n\nVous connaissez \?/);
    expect(e.body).not.toMatch(/<[a-z]+/i);
  });

  it('reads several charsets of one message (UTF-16, EUC-JP)', async () => {
    const e = await first('stalwart-mail-parser/resources/eml/thirdparty/005.eml');
    expect(e.body).toContain('Test message');
    expect(e.body).toContain('『世界人権宣言』');
  });

  it('takes the id out of an RFC 822 style In-Reply-To', async () => {
    const e = await first('hyperkitty/hyperkitty/tests/testdata/strange-in-reply-to-header.txt');
    expect(e.inReplyTo).toBe('200704070053.46646.other.person@example.com');
    const wrong = await first('hyperkitty/hyperkitty/tests/testdata/wrong-in-reply-to-header.txt');
    expect(wrong.inReplyTo).toBeNull();
  });

  it('leaves the date empty when the message has none rather than inventing one', async () => {
    const messages = corpusMessages('grimoirelab-perceval/tests/data/mbox/mbox_no_fields.mbox');
    const dates = await Promise.all(messages.map(async (raw) => (await parseEnvelope(raw)).date));
    expect(dates.some((d) => d === null)).toBe(true);
    for (const date of dates) if (date) expect(date < '2020').toBe(true);
  });
});
