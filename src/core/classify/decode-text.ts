import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';
import iconv from 'iconv-lite';
/**
 * Bytes to text by a declared charset. A message that declares us-ascii
 * (or nothing) but carries 8-bit bytes is UTF-8 when the bytes are valid
 * UTF-8 (about 1.6% of real mail), else the Windows superset of Latin-1
 * that such mailers used; an unknown charset is read the same way.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
type Decoder = (bytes: Uint8Array) => string;
const decoders = new Map<string, Decoder>();

export function decodeText(bytes: Uint8Array, charset: string | undefined): string {
  const name = normalizeCharset(charset);
  if (name && name !== 'us-ascii' && name !== 'ascii' && name !== 'utf-8') {
    const decoder = decoderFor(name);
    if (decoder) return decoder(bytes);
  }
  return decodeUnlabelled(bytes);
}

/** UTF-8 when the bytes are valid UTF-8, else windows-1252. */
export function decodeUnlabelled(bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return decoderFor('windows-1252')!(bytes);
  }
}

/** Whether TextDecoder knows the charset. */
export function isKnownCharset(charset: string | undefined): boolean {
  const name = normalizeCharset(charset);
  return !name || name === 'us-ascii' || name === 'ascii' || decoderFor(name) !== undefined;
}

/**
 * Labels WHATWG Encoding (what browsers, Thunderbird and mailparser follow)
 * reads as a Windows code page, since the mailers that wrote them used it:
 * C1 bytes are “quotes”, dashes and € there, and invisible control
 * characters in the ISO charsets. Compared with '-', '_' and ' ' taken out
 * (mailers write latin-1, latin_1, ISO8859_1), as mailparser compares them.
 */
const WINDOWS_READINGS = new Map<string, string>([
  ...[
    'iso88591',
    'iso885911987',
    'latin1',
    'l1',
    'cp819',
    'ibm819',
    'isoir100',
    'csisolatin1',
    'xcp1252',
    'cp1252',
  ].map((label) => [label, 'windows-1252'] as const),
  ...['iso88599', 'iso885991989', 'latin5', 'l5', 'isoir148', 'csisolatin5', 'xcp1254', 'cp1254'].map(
    (label) => [label, 'windows-1254'] as const,
  ),
  ...['tis620', 'iso885911', 'dos874'].map((label) => [label, 'windows-874'] as const),
  ['koi8ru', 'koi8-u'],
]);

function normalizeCharset(charset: string | undefined): string | undefined {
  const name = charset
    ?.trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
  if (!name) return undefined;
  if (name === 'ansi_x3.4-1968' || name === 'us_ascii' || name === 'ascii') return 'us-ascii';
  if (name === 'utf8') return 'utf-8';
  return WINDOWS_READINGS.get(name.replace(/[-_\s]/g, '')) ?? name;
}

/**
 * iconv-lite where it knows the charset (mailparser decodes with it too),
 * else Node's TextDecoder. Not TextDecoder first: Node 20.20's drops the
 * bytes 0x80-0x9F under windows-1252 and its Latin-1 labels (`„`, `–`, `’`,
 * `…`, `™` vanish from real mail), and what a message says must not depend
 * on the Node release that read it.
 */
function decoderFor(name: string): Decoder | undefined {
  let decoder = decoders.get(name);
  if (decoder) return decoder;
  if (name !== 'utf-8' && iconv.encodingExists(name)) {
    decoder = (bytes) => iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), name);
  } else {
    let textDecoder: TextDecoder;
    try {
      textDecoder = new TextDecoder(name);
    } catch {
      return undefined;
    }
    decoder = (bytes) => textDecoder.decode(bytes);
  }
  decoders.set(name, decoder);
  return decoder;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as both engines store it alike: without NUL (PostgreSQL refuses it
 * in text and JSONB) and with every lone surrogate as U+FFFD (PostgreSQL
 * refuses it; SQLite would keep bytes that are not UTF-8). Cheap on the
 * common text that has neither.
 */
export function storableText(text: string): string {
  let out = text.includes('\u0000') ? text.replace(/\u0000/g, '') : text;
  if (/[\uD800-\uDFFF]/.test(out)) out = out.replace(LONE_SURROGATE, '\uFFFD');
  return out;
}

/** The escape sequences that switch ISO-2022-JP between ASCII, JIS X 0208 and half-width katakana. */
const ISO_2022_JP_MODES: Record<string, 'ascii' | 'kanji' | 'kana'> = {
  $B: 'kanji',
  '$@': 'kanji',
  '(B': 'ascii',
  '(J': 'ascii',
  '(I': 'kana',
};

/**
 * Runs of raw ISO-2022-JP in text held one character a byte (Japanese
 * mailers wrote headers this way, without encoded words). A JIS X 0208
 * pair is the EUC-JP pair with the high bits cleared, so each run is
 * shifted back and read as EUC-JP, a charset iconv-lite knows (it has no
 * ISO-2022-JP). Text outside the runs, a bare ESC and a stray byte stay as
 * they are; linear in the text.
 */
export function decodeIso2022Jp(text: string): string {
  if (!text.includes('\u001b')) return text;
  let out = '';
  let mode: 'ascii' | 'kanji' | 'kana' = 'ascii';
  let pending: number[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    out += iconv.decode(Buffer.from(pending), 'euc-jp');
    pending = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x1b) {
      const next = ISO_2022_JP_MODES[text.slice(i + 1, i + 3)];
      if (next) {
        flush();
        mode = next;
        i += 2;
        continue;
      }
    }
    if (mode === 'kanji' && c >= 0x21 && c <= 0x7e) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0x21 && d <= 0x7e) {
        pending.push(c | 0x80, d | 0x80);
        i++;
        continue;
      }
    }
    if (mode === 'kana' && c >= 0x21 && c <= 0x5f) {
      pending.push(0x8e, c | 0x80);
      continue;
    }
    flush();
    out += text[i];
  }
  flush();
  return out;
}
