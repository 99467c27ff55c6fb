import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../src/core/classify/parse-envelope.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import { compareReaders } from '../helpers/envelope-agreement.js';

const first = (file: string) => parseEnvelope(corpusMessages(file)[0]!);
const nth = async (file: string, n: number) => parseEnvelope(corpusMessages(file)[n]!);

describe.skipIf(corpusMissing)('envelope of the corpus mail: charsets and MIME', () => {
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

describe.skipIf(corpusMissing)('the fast reader agrees with mailparser on the corpus', () => {
  it('gives the same envelope for every simple corpus message mailparser decodes cleanly', async () => {
    // Fuzzed files have deliberately broken headers, where the two readers guess differently.
    const { compared, withDateHeader } = await compareReaders(corpusMailFiles().filter((file) => !file.includes('/fuzz/')), corpusMessages);
    expect(compared).toBeGreaterThan(300);
    expect(withDateHeader).toBeGreaterThan(300);
  });
});
