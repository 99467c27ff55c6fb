import { describe, expect, it } from 'vitest';
import { isSameMail } from '../../../../src/core/archive/same-mail.js';

/**
 * One message as HyperKitty rebuilds it on each export (Python's email
 * generator): a fresh random boundary every time, the long subject folded and
 * encoded as the generator likes, and a quoted `From ` body line left as
 * mboxo writes it. `variant` changes only what a re-export changes.
 */
function export_(variant: { boundary: string; subject: string; quoted: string }, body = 'Thanks, applied.'): Buffer {
  const b = variant.boundary;
  return Buffer.from(
    [
      'From: =?utf-8?q?Ren=C3=A9e?= <renee@example.org>',
      `Subject: ${variant.subject}`,
      'Date: Tue, 05 Mar 2024 10:11:12 +0000',
      'Message-ID: <reexported@example.org>',
      `Content-Type: multipart/mixed; boundary="${b}"`,
      'MIME-Version: 1.0',
      '',
      `--${b}`,
      'Content-Type: text/plain; charset="utf-8"',
      'Content-Transfer-Encoding: 7bit',
      '',
      body,
      `${variant.quoted}From the log above, the patch applies.`,
      '',
      `--${b}`,
      'Content-Type: text/x-diff; name="fix.patch"',
      'Content-Disposition: attachment; filename="fix.patch"',
      '',
      '--- a/x',
      '+++ b/x',
      `--${b}--`,
      '',
    ].join('\n'),
  );
}

const first = {
  boundary: '===============8771243516361524410==',
  subject: '=?utf-8?q?Re=3A_caf=C3=A9_au_lait_is_a_long_subject?=',
  quoted: '>',
};
const second = {
  boundary: '===============0412399875201846663==',
  subject: '=?utf-8?b?UmU6IGNhZsOpIGF1IGxhaXQ=?=\n =?utf-8?q?_is_a_long_subject?=',
  quoted: '',
};

describe('isSameMail', () => {
  it('takes a re-export with another boundary, other folding and encoded words, and mboxrd/mboxo quoting for the same mail', () => {
    expect(isSameMail(export_(first), export_(second))).toBe(true);
  });

  it('tells apart two different mails that reuse a Message-ID', () => {
    expect(isSameMail(export_(first), export_(second, 'Not applied: it breaks the build.'))).toBe(false);
    expect(isSameMail(export_(first), export_({ ...first, subject: 'Re: another subject' }))).toBe(false);
  });

  it('takes a message Mailman 2 archived twice, its scrubbed attachment linked under a counted name the second time, for one mail', () => {
    const archived = (name: string, text = 'the signed text') =>
      Buffer.from(
        `From: a at example.org (A)\nDate: Thu, 02 Jan 2020 10:00:00 +0000\nSubject: [Lightning-dev] s\nMessage-ID: <p@protonmail.com>\n\n${text}\n` +
          '-------------- next part --------------\nA non-text attachment was scrubbed...\nName: signature.asc\nType: application/pgp-signature\nSize: 477 bytes\n' +
          `Desc: OpenPGP digital signature\nURL: <http://lists.example.org/pipermail/dev/attachments/20200102/91b4ba7b/${name}>\n`,
      );
    expect(isSameMail(archived('attachment.sig'), archived('attachment-0001.sig'))).toBe(true);
    expect(isSameMail(archived('attachment-0001.sig'), archived('attachment-0002.sig'))).toBe(true);
    expect(isSameMail(archived('attachment.sig'), archived('attachment-0001.sig', 'another text'))).toBe(false);
  });
});
