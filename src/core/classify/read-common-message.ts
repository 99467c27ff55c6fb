import { isAscii } from 'node:buffer';
import { extname } from 'node:path';
import libmime from 'libmime';
import { firstField, readHeaderBlock, type HeaderBlock } from '../archive/raw-headers.js';
import { decodeText, isKnownCharset } from './decode-text.js';
import { decodeTransfer } from './decode-transfer.js';
import type { ReadMessage } from './envelope.js';
import { decodeHeaderBytes, readSender, tidySubject } from './header-values.js';
import { htmlToText } from './html-to-text.js';

/** Why a message goes to mailparser instead (docs/classify.md, *Two readers*). */
export const FALLBACK_REASONS = [
  /** Several From or Content-Type fields, an encoded word in a charset only mailparser knows (UTF-7), an encoded Content-Disposition. */
  'headers',
  /** A part that is a message (a forward attached, a delivery report) or an empty Content-Type on a part. */
  'content-type',
  /** Text in a charset neither iconv-lite nor Node knows. */
  'charset',
  /** Text in a transfer encoding other than 7bit, 8bit, binary, quoted-printable or base64 (uuencode, say). */
  'transfer-encoding',
  /** Multiparts nested deeper than MAX_DEPTH, or more than MAX_PARTS parts. */
  'structure',
  /** A multipart without a boundary, a delimiter, its closing delimiter or a part's header fields; a boundary on a part that is not multipart. */
  'broken-mime',
  /** No text, and a part that mailparser files as an attachment but that is text to a reader. */
  'no-text',
] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number];

const MAX_DEPTH = 4;
const MAX_PARTS = 64;
/** An encoded word left undecoded: it names a charset only mailparser knows (UTF-7), or none (which mailparser reads as UTF-8). */
const UNDECODED_WORD = /=\?[^?\s]+\?[bq]\?/i;

const TEXT_ENCODINGS = new Set(['', '7bit', '8bit', 'binary', 'quoted-printable', 'base64']);

/** A part that is not a multipart, as mailparser classifies it. */
interface Leaf {
  type: string;
  params: Record<string, string>;
  /** Text of the body (text/plain or text/html shown inline); else an attachment. */
  inline: boolean;
  filename: string | undefined;
  encoding: string;
  /** Inside a multipart/alternative, where HTML is not text. */
  alternative: boolean;
  root: boolean;
  start: number;
  end: number;
}

/**
 * Reads the common message without mailparser, several times faster: one
 * text part, or a multipart (alternative, mixed, signed, related) whose
 * text is text/plain or HTML parts beside attachments, in any charset we
 * decode. The body, and the attachments' types and names, come out as
 * mailparser gives them (a test compares the two on every message of the
 * corpus and the fixtures). Anything else returns the reason it goes to
 * mailparser.
 */
export function readCommonMessage(raw: Buffer, block: HeaderBlock): ReadMessage | FallbackReason {
  // Of several, mailparser keeps the last Subject and this reader the first.
  if (['from', 'content-type', 'subject'].some((name) => (block.fields.get(name)?.length ?? 0) > 1)) return 'headers';
  const subject = tidySubject(decodeHeaderBytes(firstField(block, 'subject') ?? ''));
  if (UNDECODED_WORD.test(subject)) return 'headers';
  const leaves: Leaf[] = [];
  const failure = collectLeaves(raw, block, { start: block.bodyOffset, end: raw.length }, 0, false, leaves);
  if (failure) return failure;
  const body = readBody(raw, leaves);
  if (body === undefined) return 'no-text';
  const rawFrom = firstField(block, 'from');
  const from = rawFrom ? readSender(rawFrom) : { name: null, address: null };
  if (from.name && UNDECODED_WORD.test(from.name)) return 'headers';
  return {
    subject,
    from,
    body,
    parts: leaves.filter((leaf) => !leaf.inline).map((leaf) => ({ contentType: leaf.type, filename: leaf.filename })),
  };
}

interface Range {
  start: number;
  end: number;
}

function collectLeaves(
  raw: Buffer,
  block: HeaderBlock,
  range: Range,
  depth: number,
  alternative: boolean,
  leaves: Leaf[],
): FallbackReason | undefined {
  const head = readPartHead(block, depth === 0);
  if (typeof head === 'string') return head;
  if (!head.type.startsWith('multipart/')) {
    // The splitter honours a boundary on any part, so a text/html part with one is split like a multipart.
    if (head.params.boundary) return 'broken-mime';
    if (leaves.length >= MAX_PARTS) return 'structure';
    // Base64 is ASCII: mailparser reads 8-bit bytes in it with their top bit cut off, which can make them letters.
    if (head.inline && head.encoding === 'base64' && !isAscii(raw.subarray(range.start, range.end)))
      return 'transfer-encoding';
    leaves.push({ ...head, alternative, root: depth === 0, ...range });
    return undefined;
  }
  if (depth >= MAX_DEPTH) return 'structure';
  const boundary = head.params.boundary;
  // A boundary of 8-bit bytes would be matched as mailparser encodes it; such mail is rare enough to leave to it.
  if (!boundary || !/^[\x20-\x7e]+$/.test(boundary)) return 'broken-mime';
  const children = splitMultipart(raw, range, boundary);
  if (typeof children === 'string') return children;
  for (const child of children) {
    const failure = collectLeaves(
      raw,
      child.block,
      child.body,
      depth + 1,
      alternative || head.type === 'multipart/alternative',
      leaves,
    );
    if (failure) return failure;
  }
  return undefined;
}

/** A part's type and disposition as mailparser (through its splitter, mailsplit) reads them. */
function readPartHead(
  block: HeaderBlock,
  root: boolean,
): Omit<Leaf, 'alternative' | 'root' | 'start' | 'end'> | FallbackReason {
  if ((block.fields.get('content-type')?.length ?? 0) > 1) return 'headers';
  const dispositionField = firstField(block, 'content-disposition') ?? '';
  if (dispositionField.includes('=?')) return 'headers';
  const disposition = libmime.parseHeaderValue(dispositionField);
  let contentType = firstField(block, 'content-type');
  if (contentType === undefined) {
    // No Content-Type: the filename's extension says, else an attachment is octet-stream and anything else text/plain.
    const extension = disposition.params.filename ? extname(disposition.params.filename).slice(1) : '';
    contentType = extension
      ? libmime.detectMimeType(extension)
      : /^attachment$/i.test(disposition.value)
        ? 'application/octet-stream'
        : 'text/plain';
  }
  const parsed = libmime.parseHeaderValue(contentType);
  let type = parsed.value.toLowerCase().trim();
  if (!type) {
    if (!root) return 'content-type';
    type = 'text/plain';
  }
  if (type.startsWith('message/')) return 'content-type';
  const isText = type === 'text/plain' || type === 'text/html';
  const declared = disposition.value.toLowerCase().trim();
  const inline = isText && (declared === '' || declared === 'inline');
  let filename = disposition.params.filename || parsed.params.name || undefined;
  if (filename) {
    try {
      filename = libmime.decodeWords(filename);
    } catch {
      // an unknown charset: mailparser keeps the name as it is too
    }
  }
  const encoding = (firstField(block, 'content-transfer-encoding') ?? '').toLowerCase().trim();
  if (inline) {
    if (!TEXT_ENCODINGS.has(encoding)) return 'transfer-encoding';
    if (!isKnownCharset(parsed.params.charset)) return 'charset';
  }
  return { type, params: parsed.params, inline, filename, encoding };
}

/**
 * The parts of a multipart body, each with its header block and body, as
 * mailparser's splitter cuts them: a delimiter is a line of exactly
 * `--boundary` (or `--boundary--` to close), and the line break before it
 * belongs to it. `broken-mime` when the multipart is not whole: no delimiter, a
 * closing one before the first part, no closing one (the splitter would then
 * not see the enclosing multipart's delimiters), or a part without header
 * fields; `structure` past MAX_PARTS parts.
 */
function splitMultipart(
  raw: Buffer,
  range: Range,
  boundary: string,
): Array<{ block: HeaderBlock; body: Range }> | FallbackReason {
  const marker = Buffer.from(`--${boundary}`, 'latin1');
  const delimiters: Array<{ lineStart: number; after: number; closing: boolean }> = [];
  for (
    let at = raw.indexOf(marker, range.start);
    at !== -1 && at + marker.length <= range.end;
    at = raw.indexOf(marker, at + 1)
  ) {
    if (at !== range.start && raw[at - 1] !== 0x0a) continue;
    const next = at + marker.length;
    if (next < range.end && (raw[next] === 0x0a || raw[next] === 0x0d)) {
      const after = lineEnd(raw, next, range.end);
      if (after === undefined) return 'broken-mime';
      delimiters.push({ lineStart: at, after, closing: false });
      if (delimiters.length > MAX_PARTS) return 'structure';
    } else if (raw[next] === 0x2d && raw[next + 1] === 0x2d && next + 2 <= range.end) {
      const after = lineEnd(raw, next + 2, range.end);
      if (after === undefined) {
        if (raw[next + 2] === 0x0d) return 'broken-mime';
        continue;
      }
      delimiters.push({ lineStart: at, after, closing: true });
      break;
    }
  }
  const closing = delimiters.at(-1);
  if (!closing?.closing || delimiters.length < 2) return 'broken-mime';
  const parts: Array<{ block: HeaderBlock; body: Range }> = [];
  for (let i = 0; i + 1 < delimiters.length; i++) {
    const start = delimiters[i]!.after;
    const next = delimiters[i + 1]!.lineStart;
    const bodyStart = headerBlockEnd(raw, start, next);
    // A part with no header at all is legal but rare, and the splitter then treats the line break before the delimiter otherwise.
    if (bodyStart === undefined || bodyStart - start <= 2) return 'broken-mime';
    const end = raw[next - 1] === 0x0a ? (raw[next - 2] === 0x0d ? next - 2 : next - 1) : next;
    // A body that is one line break and nothing else keeps it (the splitter does).
    parts.push({
      block: readHeaderBlock(raw.subarray(start, bodyStart)),
      body: { start: bodyStart, end: end > bodyStart ? end : next },
    });
  }
  return parts;
}

/** The offset after the line break at `at` (or `at` itself at the end of the range); undefined when no line ends there. */
function lineEnd(raw: Buffer, at: number, end: number): number | undefined {
  if (at === end) return at;
  if (raw[at] === 0x0a) return at + 1;
  if (raw[at] === 0x0d && raw[at + 1] === 0x0a && at + 1 < end) return at + 2;
  return undefined;
}

/** Where a part's body begins: after the first empty line. */
function headerBlockEnd(raw: Buffer, start: number, end: number): number | undefined {
  for (let line = start; line < end;) {
    if (raw[line] === 0x0a) return line + 1;
    if (raw[line] === 0x0d && raw[line + 1] === 0x0a) return line + 2;
    const lf = raw.indexOf(0x0a, line);
    if (lf === -1 || lf >= end) return undefined;
    line = lf + 1;
  }
  return undefined;
}

/**
 * The body as parse-envelope's mailparser path makes it: text/plain parts
 * joined by a line break (an HTML part outside an alternative adds an empty
 * one, as mailparser does with HTML-to-text off); no text, then the HTML
 * parts as text. Undefined when there is no text and mailparser would look
 * for it among the attachments.
 */
function readBody(raw: Buffer, leaves: readonly Leaf[]): string | undefined {
  const hasText = leaves.some((leaf) => leaf.inline && leaf.type === 'text/plain');
  const texts: string[] = [];
  const htmls: string[] = [];
  for (const leaf of leaves) {
    if (!leaf.inline) continue;
    const content = decodeText(decodeLeafBytes(raw, leaf), leaf.params.charset).replace(/\r?\n/g, '\n');
    if (!content) continue;
    if (leaf.type === 'text/plain') texts.push(content);
    else {
      if ((!leaf.alternative && hasText) || (leaf.root && !hasText)) texts.push('');
      htmls.push(content);
    }
  }
  const text = texts.join('\n');
  const body = text.trim() ? text : htmls.length > 0 ? htmlToText(htmls.join('<br/>\n')) : text;
  if (!body.trim() && leaves.some((leaf) => !leaf.inline && /^text(?:\/plain)?$/.test(leaf.type))) return undefined;
  return body.replace(/\r\n?/g, '\n');
}

/** A text part's bytes: its transfer encoding undone, then format=flowed (RFC 3676), as mailparser does, before the charset. */
function decodeLeafBytes(raw: Buffer, leaf: Leaf): Buffer {
  const bytes = decodeTransfer(raw.subarray(leaf.start, leaf.end), leaf.encoding);
  if ((leaf.params.format ?? '').toLowerCase().trim() !== 'flowed' || bytes.length === 0) return bytes;
  const delSp = (leaf.params.delsp ?? '').toLowerCase().trim() === 'yes';
  return Buffer.from(libmime.decodeFlowed(bytes.toString('latin1'), delSp), 'latin1');
}
