import { decodeText, decodeUnlabelled, isKnownCharset } from './decode-text.js';
/**
 * RFC 2047 encoded words (`=?ISO-8859-1?Q?G=F6ran?=`) that mailparser leaves
 * alone because a mailer put them inside quotes or a comment, which the RFC
 * forbids and real mail does anyway.
 */
const WORD = /=\?([^?\s]+)\?([bq])\?([^?\s]*)\?=/gi;

export function decodeWords(text: string): string {
  if (!text.includes('=?')) return text;
  return text
    .replace(/(=\?[^?\s]+\?[bq]\?[^?\s]*\?=)\s+(?==\?)/gi, '$1')
    .replace(WORD, (whole, charset: string, encoding: string, data: string) => {
      try {
        const bytes = encoding.toLowerCase() === 'b' ? Buffer.from(data, 'base64') : decodeQ(data);
        const name = charset.split('*')[0]!.toLowerCase();
        // Words labelled UTF-8 that are not (Latin-1 bytes, in practice) read as windows-1252 rather than as U+FFFD.
        if (name === 'utf-8' || name === 'utf8' || name === 'us-ascii') return decodeUnlabelled(bytes);
        return isKnownCharset(name) ? decodeText(bytes, name) : whole;
      } catch {
        return whole;
      }
    });
}

function decodeQ(data: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === '_') bytes.push(0x20);
    else if (c === '=' && /^[0-9a-f]{2}$/i.test(data.slice(i + 1, i + 3))) {
      bytes.push(parseInt(data.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0) & 0xff);
  }
  return Buffer.from(bytes);
}
