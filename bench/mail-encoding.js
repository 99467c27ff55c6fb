/**
 * The byte-level encodings list mail arrives in, for the benchmark's
 * generator: charsets other than UTF-8, quoted-printable, base64 and RFC 2047
 * encoded words. Node encodes only UTF-8 and Latin-1, so the other charsets
 * are encoded by inverting Node's own decoder once per charset.
 */
const encoders = new Map();

/** `text` as bytes in `charset`; a character the charset lacks becomes `?`, as mail clients do. */
export function encodeText(text, charset) {
  const name = charset.toLowerCase();
  if (name === 'utf-8' || name === 'us-ascii') return Buffer.from(text, 'utf8');
  if (name === 'iso-8859-1') return Buffer.from(text.replace(/[^\u0000-\u00ff]/g, '?'), 'latin1');
  let table = encoders.get(name);
  if (!table) encoders.set(name, (table = encodingTable(name)));
  const bytes = [];
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (code < 0x80) bytes.push(code);
    else bytes.push(...(table.get(char) ?? [0x3f]));
  }
  return Buffer.from(bytes);
}

/** True when every character of `text` has bytes in `charset`. */
export function encodable(text, charset) {
  const name = charset.toLowerCase();
  if (name === 'utf-8' || !/[^\x00-\x7f]/.test(text)) return true;
  if (name === 'iso-8859-1') return !/[^\u0000-\u00ff]/.test(text);
  let table = encoders.get(name);
  if (!table) encoders.set(name, (table = encodingTable(name)));
  for (const char of text) if (char.charCodeAt(0) >= 0x80 && !table.has(char)) return false;
  return true;
}

/** Character → bytes for one charset: single bytes 0x80–0xff, or the two-byte GB2312 plane. */
function encodingTable(charset) {
  const decoder = new TextDecoder(charset);
  const table = new Map();
  const learn = (bytes) => {
    const char = decoder.decode(Uint8Array.from(bytes));
    if (char.length === 1 && char !== '\ufffd' && !table.has(char)) table.set(char, bytes);
  };
  if (charset === 'gb2312') {
    for (let lead = 0xa1; lead <= 0xf7; lead++) for (let trail = 0xa1; trail <= 0xfe; trail++) learn([lead, trail]);
  } else {
    for (let byte = 0x80; byte <= 0xff; byte++) learn([byte]);
  }
  return table;
}

/** Quoted-printable (RFC 2045) of some bytes, lines at most 76 characters, soft breaks where needed. */
export function quotedPrintable(bytes) {
  let out = '';
  let line = '';
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x0a) {
      out += `${trailingSpaceEncoded(line)}\n`;
      line = '';
      continue;
    }
    const literal = (byte >= 0x21 && byte <= 0x7e && byte !== 0x3d) || byte === 0x20 || byte === 0x09;
    const piece = literal ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (line.length + piece.length > 75) {
      out += `${line}=\n`;
      line = '';
    }
    line += piece;
  }
  return out + trailingSpaceEncoded(line);
}

function trailingSpaceEncoded(line) {
  const last = line.charCodeAt(line.length - 1);
  if (last === 0x20) return `${line.slice(0, -1)}=20`;
  if (last === 0x09) return `${line.slice(0, -1)}=09`;
  return line;
}

/** Base64 in lines of 76 characters. */
export function base64Lines(bytes) {
  const text = bytes.toString('base64');
  let out = '';
  for (let i = 0; i < text.length; i += 76) out += `${text.slice(i, i + 76)}\n`;
  return out;
}

/**
 * RFC 2047 encoded words for a header value (a subject, a display name).
 * ASCII text is returned as it is. Words stay within 75 characters, split
 * between characters, never inside one, as the RFC asks.
 */
export function encodedWords(text, charset = 'UTF-8', encoding = 'B') {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  const words = [];
  let chunk = '';
  const budget = 75 - `=?${charset}?${encoding}??=`.length;
  const size = (piece) => {
    const bytes = encodeText(piece, charset);
    return encoding === 'B' ? Math.ceil(bytes.length / 3) * 4 : qEncode(bytes).length;
  };
  for (const char of text) {
    if (chunk && size(chunk + char) > budget) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words
    .map((word) => {
      const bytes = encodeText(word, charset);
      return `=?${charset}?${encoding}?${encoding === 'B' ? bytes.toString('base64') : qEncode(bytes)}?=`;
    })
    .join('\n ');
}

function qEncode(bytes) {
  let out = '';
  for (const byte of bytes) {
    if (byte === 0x20) out += '_';
    else if ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a))
      out += String.fromCharCode(byte);
    else out += `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An RFC 5322 date as the sender's clock shows it: `Tue, 3 Jan 2023 10:04:05 +0100`. */
export function mailDate(date, offsetMinutes = 0) {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = Math.abs(offsetMinutes);
  const zone = `${sign}${String(Math.floor(offset / 60)).padStart(2, '0')}${String(offset % 60).padStart(2, '0')}`;
  return `${DAYS[local.getUTCDay()]}, ${local.getUTCDate()} ${MONTHS[local.getUTCMonth()]} ${local.getUTCFullYear()} ${time(local)} ${zone}`;
}

/** The asctime date of an mbox From_ line, in UTC: `Tue Jan  3 10:04:05 2023`. */
export function fromLineDate(date) {
  return `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')} ${time(date)} ${date.getUTCFullYear()}`;
}

function time(date) {
  return [date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()]
    .map((n) => String(n).padStart(2, '0'))
    .join(':');
}
