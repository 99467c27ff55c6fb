import { describe, expect, it } from 'vitest';
import { decodeQuotedPrintable } from '../../../../src/core/classify/decode-transfer.js';

const decode = (text: string) => decodeQuotedPrintable(Buffer.from(text, 'latin1')).toString('latin1');

describe('decodeQuotedPrintable', () => {
  it('joins soft line breaks and decodes =XX', () => {
    expect(decode('caf=E9 au=\nlait=3D\r\nok=\r\nyes')).toBe('caf\xe9 aulait=\r\nokyes');
  });

  it('drops blanks at the end of an encoded line, as RFC 2045 asks: transport added them (a Yahoo footer in the lucene corpus)', () => {
    expect(decode('http://mail.yahoo.net/uk \n\n-- \t\r\nsig')).toBe('http://mail.yahoo.net/uk\n\n--\r\nsig');
    expect(decode('end  ')).toBe('end');
  });

  it('keeps blanks inside a line and blanks encoded as =20', () => {
    expect(decode('a  b=20\nc')).toBe('a  b \nc');
  });
});

describe('decodeText', () => {
  it('reads windows-1252 and its Latin-1 labels with the Windows characters at 0x80-0x9F, whatever the Node release', async () => {
    const { decodeText } = await import('../../../../src/core/classify/decode-text.js');
    const bytes = Buffer.from([0x84, 0x41, 0x96, 0x92, 0x85, 0x99, 0xe9]);
    for (const charset of ['windows-1252', 'iso-8859-1', 'latin1', 'cp1252'])
      expect(decodeText(bytes, charset), charset).toBe('„A–’…™é');
    // Unlabelled 8-bit text that is not UTF-8 is read the same way.
    expect(decodeText(bytes, undefined)).toBe('„A–’…™é');
  });
});

describe('decodeBase64', () => {
  it('decodes a footer appended as a second padded run after the body', async () => {
    const { decodeBase64 } = await import('../../../../src/core/classify/decode-transfer.js');
    const body = `${Buffer.from('body text\n').toString('base64')}\n${Buffer.from('-- \nfooter\n').toString('base64')}\n`;
    expect(decodeBase64(Buffer.from(body)).toString()).toBe('body text\n-- \nfooter\n');
  });
});
