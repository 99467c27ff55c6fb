import { addToGroup } from '../add-to-group.js';

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
    addToGroup(fields, name, value.trim());
  };
  for (let start = 0; start <= text.length;) {
    const newline = lineBreak(text, start);
    const line = text.slice(start, lineEnd(text, start, newline));
    start = newline + 1;
    if (line === '') continue;
    if (isContinuation(line.charCodeAt(0)) && name !== undefined) {
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

/**
 * The first value of one field (lower-cased name), as `firstField(readHeaderBlock(raw), name)`
 * gives it, without reading the other fields: for a pass that needs one field of every message
 * (the month index of an mbox file reads each message's Date in a third of the time).
 */
export function firstHeaderField(raw: Buffer, name: string): string | undefined {
  const text = raw.toString('latin1', 0, headerEnd(raw).headerEnd);
  let inField = false; // before the first field, an indented line is a field or a stray line, not a continuation
  let value: string | undefined;
  for (let start = 0; start <= text.length;) {
    const newline = lineBreak(text, start);
    const end = lineEnd(text, start, newline);
    const line = start;
    start = newline + 1;
    if (end === line) continue;
    if (isContinuation(text.charCodeAt(line)) && inField) {
      if (value !== undefined) value += ` ${text.slice(line, end).trim()}`;
      continue;
    }
    const colon = text.indexOf(':', line);
    if (colon <= line || colon >= end) continue; // a stray line
    if (value !== undefined) break; // the field's value ends where the next field begins
    inField = true;
    if (colon - line >= name.length && text.slice(line, colon).trim().toLowerCase() === name)
      value = text.slice(colon + 1, end);
  }
  return value?.trim();
}

/** Where the line that starts at `start` breaks: its LF, or the end of the text for the last line. */
function lineBreak(text: string, start: number): number {
  const newline = text.indexOf('\n', start);
  return newline === -1 ? text.length : newline;
}

/** Where the line's text ends: before a CR that comes right before its LF (a lone CR is text). */
function lineEnd(text: string, start: number, newline: number): number {
  return newline < text.length && newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
}

/** A space or a tab: the line continues the field above it. */
function isContinuation(firstCharCode: number): boolean {
  return firstCharCode === 32 || firstCharCode === 9;
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
