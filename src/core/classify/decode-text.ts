import { TextDecoder } from 'node:util';
/**
 * Bytes to text by a declared charset. A message that declares us-ascii
 * (or nothing) but carries 8-bit bytes is UTF-8 when the bytes are valid
 * UTF-8 (about 1.6% of real mail), else the Windows superset of Latin-1
 * that such mailers used; an unknown charset is read the same way.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const decoders = new Map<string, TextDecoder>();

export function decodeText(bytes: Uint8Array, charset: string | undefined): string {
  const name = normalizeCharset(charset);
  if (name && name !== 'us-ascii' && name !== 'ascii' && name !== 'utf-8') {
    const decoder = decoderFor(name);
    if (decoder) return decoder.decode(bytes);
  }
  return decodeUnlabelled(bytes);
}

/** UTF-8 when the bytes are valid UTF-8, else windows-1252. */
export function decodeUnlabelled(bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return decoderFor('windows-1252')!.decode(bytes);
  }
}

/** Whether TextDecoder knows the charset. */
export function isKnownCharset(charset: string | undefined): boolean {
  const name = normalizeCharset(charset);
  return !name || name === 'us-ascii' || name === 'ascii' || decoderFor(name) !== undefined;
}

function normalizeCharset(charset: string | undefined): string | undefined {
  const name = charset?.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (!name) return undefined;
  if (name === 'ansi_x3.4-1968' || name === 'us_ascii' || name === 'ascii') return 'us-ascii';
  if (name === 'utf8') return 'utf-8';
  return name;
}

function decoderFor(name: string): TextDecoder | undefined {
  let decoder = decoders.get(name);
  if (decoder) return decoder;
  try {
    decoder = new TextDecoder(name);
  } catch {
    return undefined;
  }
  decoders.set(name, decoder);
  return decoder;
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return false;
  return true;
}
