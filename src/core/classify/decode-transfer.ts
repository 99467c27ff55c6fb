/** A body's bytes by its Content-Transfer-Encoding (an unknown one is taken as it is). */
export function decodeTransfer(body: Buffer, encoding: string): Buffer {
  if (encoding === 'base64') return decodeBase64(body);
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return body;
}

/**
 * Base64 to bytes, each padded run on its own: a list manager that appends
 * its footer to a base64 body (ezmlm does) encodes the footer as a second
 * run after the first one's `=`, where a single decode would stop.
 */
export function decodeBase64(body: Buffer): Buffer {
  const runs =
    body
      .toString('latin1')
      .replace(/[^A-Za-z0-9+/=]/g, '')
      .match(/[A-Za-z0-9+/]+=*/g) ?? [];
  return runs.length === 1
    ? Buffer.from(runs[0], 'base64')
    : Buffer.concat(runs.map((run) => Buffer.from(run, 'base64')));
}

/**
 * Quoted-printable to bytes: soft line breaks joined, `=XX` decoded, a stray
 * `=` kept, and blanks at the end of a line dropped (RFC 2045 6.7 (3): a
 * transport added them; mailparser drops them too).
 */
export function decodeQuotedPrintable(body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(body.length);
  let n = 0;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (byte === 0x20 || byte === 0x09) {
      let j = i + 1;
      while (body[j] === 0x20 || body[j] === 0x09) j++;
      if (j < body.length && body[j] !== 0x0a && body[j] !== 0x0d) {
        while (i < j) out[n++] = body[i++]!;
      }
      i = j - 1;
      continue;
    }
    if (byte !== 0x3d) {
      out[n++] = byte;
      continue;
    }
    const a = body[i + 1];
    const b = body[i + 2];
    if (a === 0x0d && b === 0x0a) {
      i += 2;
      continue;
    }
    if (a === 0x0a) {
      i += 1;
      continue;
    }
    const high = hex(a);
    const low = hex(b);
    if (high >= 0 && low >= 0) {
      out[n++] = high * 16 + low;
      i += 2;
      continue;
    }
    // "=" followed by blanks to the end of the line is a soft break too.
    let j = i + 1;
    while (body[j] === 0x20 || body[j] === 0x09) j++;
    if (body[j] === 0x0a || (body[j] === 0x0d && body[j + 1] === 0x0a) || j >= body.length) {
      i = body[j] === 0x0d ? j + 1 : j;
      continue;
    }
    out[n++] = byte;
  }
  return out.subarray(0, n);
}

function hex(byte: number | undefined): number {
  if (byte === undefined) return -1;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}
