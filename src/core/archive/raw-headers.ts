/**
 * The cheap header work fetch needs (docs/fetch.md): find the header block, unfold
 * it, and read a few fields, without decoding MIME. Bytes are read as latin1
 * so nothing is lost; callers decode further only where they must.
 */
export interface HeaderBlock {
  /** Lower-cased field name → values in order of appearance. */
  fields: Map<string, string[]>;
  /** Offset of the first body byte in the raw message. */
  bodyOffset: number;
  /** Lines of the block that are neither a field nor its continuation: text of a message without a header. */
  strayLines: string[];
}

export function readHeaderBlock(raw: Buffer): HeaderBlock {
  const end = headerEnd(raw);
  const text = raw.toString('latin1', 0, end.headerEnd);
  const fields = new Map<string, string[]>();
  const strayLines: string[] = [];
  let name: string | undefined;
  let value = '';
  const flush = () => {
    if (name === undefined) return;
    const list = fields.get(name);
    if (list) list.push(value.trim());
    else fields.set(name, [value.trim()]);
  };
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && name !== undefined) {
      value += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) {
      strayLines.push(line); // an mbox From_ line, garbage, text with no header above it: not a field
      continue;
    }
    flush();
    name = line.slice(0, colon).trim().toLowerCase();
    value = line.slice(colon + 1);
  }
  flush();
  return { fields, bodyOffset: end.bodyOffset, strayLines };
}

function headerEnd(raw: Buffer): { headerEnd: number; bodyOffset: number } {
  const lf = raw.indexOf('\n\n');
  const crlf = raw.indexOf('\r\n\r\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { headerEnd: crlf, bodyOffset: crlf + 4 };
  if (lf !== -1) return { headerEnd: lf, bodyOffset: lf + 2 };
  return { headerEnd: raw.length, bodyOffset: raw.length };
}

export function firstField(block: HeaderBlock, name: string): string | undefined {
  return block.fields.get(name)?.[0];
}
