import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readHeaderBlock } from '../../../../src/core/archive/raw-headers.js';
import {
  parseEnvelope,
  parseEnvelopeWithMailparser,
  readerCounts,
} from '../../../../src/core/classify/parse-envelope.js';
import { readCommonMessage } from '../../../../src/core/classify/read-common-message.js';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/mime/${name}`, import.meta.url));
const read = (raw: Buffer) => readCommonMessage(raw, readHeaderBlock(raw));
const mail = (contentType: string, body: string, extra = '') =>
  Buffer.from(
    `From: a@example.org\nSubject: s\nMessage-ID: <m@example.org>\n${extra}Content-Type: ${contentType}\n\n${body}`,
  );

describe('our reader on multipart mail', () => {
  it('reads the text beside a patch attachment, and the attachment makes it a patch', async () => {
    const raw = fixture('patch-attachment.eml');
    expect(read(raw)).toMatchObject({
      parts: [{ contentType: 'text/x-patch', filename: '0001-x-use-the-new-value.patch' }],
    });
    const e = await parseEnvelope(raw);
    expect(e.body).toBe(
      'Hi all, the patch is attached; it changes one line and needs no review beyond a glance.\n\nJürgen',
    );
    expect(e.hasPatch).toBe(true);
    expect(e.fromName).toBe('Jürgen Müller');
    expect(await parseEnvelopeWithMailparser(raw)).toEqual(e);
  });

  it('takes the quoted-printable Latin-1 text of an alternative and leaves its HTML out', async () => {
    const e = await parseEnvelope(fixture('alternative-qp-html.eml'));
    expect(e.body).toBe(
      'Grüße aus Köln, the build is green again – a long line that is wrapped by the encoder.\n\n> was it broken?\n',
    );
    expect(await parseEnvelopeWithMailparser(fixture('alternative-qp-html.eml'))).toEqual(e);
  });

  it('reads a signed message with an alternative and an attachment inside, the attachment named in RFC 2231', async () => {
    const raw = fixture('signed-nested.eml');
    const message = read(raw);
    expect(message).toMatchObject({
      body: 'x 1.2 is out. Signed-off-by lines below are quoted:\n> Signed-off-by: Old <old@example.org>\n',
    });
    expect(message).toHaveProperty('parts', [
      { contentType: 'application/octet-stream', filename: 'notes é.diff' },
      { contentType: 'application/pgp-signature', filename: 'signature.asc' },
    ]);
    const e = await parseEnvelope(raw);
    expect(e.hasPatch).toBe(true);
    expect(e.trailers).toEqual([]);
    expect(await parseEnvelopeWithMailparser(raw)).toEqual(e);
  });

  it('turns an HTML-only alternative into text', async () => {
    const raw = mail(
      'multipart/alternative; boundary=b',
      '--b\nContent-Type: text/html\n\n<p>one</p><p>two &amp; three</p>\n--b--\n',
    );
    expect(read(raw)).toMatchObject({ body: 'one\n\ntwo & three' });
    expect(await parseEnvelopeWithMailparser(raw)).toEqual(await parseEnvelope(raw));
  });

  it('gives up on a multipart of 100,000 parts at the 65th delimiter rather than reading them all', () => {
    expect(
      read(mail('multipart/mixed; boundary=b', `${'--b\nContent-Type: text/plain\n\nx\n'.repeat(100_000)}--b--\n`)),
    ).toBe('structure');
  });

  it('leaves to mailparser what it does not read, and counts why', async () => {
    const before = readerCounts();
    const declined = [
      [
        'structure',
        mail(
          'multipart/mixed; boundary=a',
          ['a', 'b', 'c', 'd']
            .map(
              (b) => `--${b}\nContent-Type: multipart/mixed; boundary=${String.fromCharCode(b.charCodeAt(0) + 1)}\n\n`,
            )
            .join('') + '--e\nContent-Type: text/plain\n\nx\n--e--\n--d--\n--c--\n--b--\n--a--\n',
        ),
      ],
      [
        'broken-mime',
        mail('multipart/mixed; boundary=b', '--b\nContent-Type: text/plain\n\ncut off before the closing delimiter\n'),
      ],
      ['broken-mime', mail('multipart/mixed', '--b\nContent-Type: text/plain\n\nno boundary parameter\n--b--\n')],
      [
        'content-type',
        mail(
          'multipart/mixed; boundary=b',
          '--b\nContent-Type: text/plain\n\nsee below\n--b\nContent-Type: message/rfc822\n\nFrom: c@example.org\n\ninner\n--b--\n',
        ),
      ],
      ['transfer-encoding', mail('text/plain', 'begin 644 x\n`\nend\n', 'Content-Transfer-Encoding: x-uuencode\n')],
      ['charset', mail('text/plain; charset=x-no-such-charset', 'text\n')],
      ['headers', mail('text/plain', 'text\n', 'Subject: a second one\nContent-Type: text/plain\n')],
      ['no-text', mail('multipart/mixed; boundary=b', '--b\nContent-Type: text\n\nbare text\n--b--\n')],
    ] as const;
    for (const [reason, raw] of declined) {
      expect(read(raw), reason).toBe(reason);
      await parseEnvelope(raw);
    }
    const after = readerCounts();
    expect(after.common).toBe(before.common);
    for (const reason of new Set(declined.map(([r]) => r)))
      expect(after.mailparser[reason] - before.mailparser[reason], reason).toBe(
        declined.filter(([r]) => r === reason).length,
      );
  });
});
