import { decodeText, decodeUnlabelled, isKnownCharset } from './decode-text.js';
/**
 * RFC 2047 encoded words (`=?ISO-8859-1?Q?G=F6ran?=`) that mailparser leaves
 * alone because a mailer put them inside quotes or a comment, which the RFC
 * forbids and real mail does anyway.
 */
const WORD = /=\?([^?\s]+)\?([bq])\?([^?\s]*)\?=/gi;
/** Encoded words side by side (the blanks between them are dropped first). */
const RUN_OF_WORDS = /(?:=\?[^?\s]+\?[bq]\?[^?\s]*\?=)+/gi;

/**
 * Adjacent words of one charset are decoded as one run of bytes, as
 * mailparser and Thunderbird decode them: mailers split a long subject
 * between words wherever the line ends, a UTF-8 character's bytes among
 * them (`=?utf-8?q?Gr=C3=BC=C3?= =?utf-8?q?=9Fe?=` is "Grüße").
 */
export function decodeWords(text: string): string {
  if (!text.includes('=?')) return text;
  return text.replace(/(=\?[^?\s]+\?[bq]\?[^?\s]*\?=)\s+(?==\?)/gi, '$1').replace(RUN_OF_WORDS, (run) => {
    const words = [...run.matchAll(WORD)].map(([whole, charset, encoding, data]) => ({
      whole,
      name: charset!.split('*')[0]!.toLowerCase(),
      bytes: encoding!.toLowerCase() === 'b' ? Buffer.from(data!, 'base64') : decodeQ(data!),
    }));
    let decoded = '';
    for (let start = 0; start < words.length;) {
      let end = start + 1;
      while (end < words.length && words[end]!.name === words[start]!.name) end++;
      const group = words.slice(start, end);
      decoded += decodeGroup(
        group[0]!.name,
        Buffer.concat(group.map((word) => word.bytes)),
        group.map((word) => word.whole).join(''),
      );
      start = end;
    }
    return decoded;
  });
}

/** The bytes of words of one charset as text; `whole` (the words as written) when the charset is one listminer does not know. */
function decodeGroup(name: string, bytes: Buffer, whole: string): string {
  try {
    // Words labelled UTF-8 that are not (Latin-1 bytes, in practice) read as windows-1252 rather than as U+FFFD.
    if (name === 'utf-8' || name === 'utf8' || name === 'us-ascii') return decodeUnlabelled(bytes);
    return isKnownCharset(name) ? decodeText(bytes, name) : whole;
  } catch {
    return whole;
  }
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
