import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';

/**
 * The one mbox reader every backend that sees mbox uses (docs/archive-backends.md).
 *
 * It streams: bytes are scanned chunk by chunk with indexOf, and only the
 * message being assembled is held. A separator is a line starting with
 * `From ` that opens the file, that follows a blank line and looks like a
 * real From_ line (a sender, then a time and a year somewhere after it), or
 * that has the exact shape mbox writers give a From_ line (a sender, then
 * asctime: `From user at host  Mon May  3 13:15:30 2004`) wherever it
 * stands: Mailman 2 writes no blank line after a message whose attachment it
 * scrubbed. A body line that merely starts with "From " is never a
 * separator. The flavour says how `>From ` lines are read (MboxFlavour).
 * Gzip is recognised by its magic bytes, not by the file name.
 */
export interface MboxEntry {
  /** The message bytes, without the From_ line and the blank line that ended it in the mbox. */
  raw: Buffer;
  /** The From_ line that opened the message (without its line ending), when there was one. */
  fromLine?: string;
  /** Offset of the message's first byte (its From_ line, if any) in the (decompressed) stream. */
  offset: number;
  /**
   * Set on the last message when the stream stops inside a line (no line
   * ending after its last byte). Every writer ends a message's last line,
   * Mailman 2 in every version, so there the text was cut inside the
   * message (fetchMboxUrl's `wholeEnding`).
   */
  unterminated?: true;
}

export type MboxInput = string | Readable | AsyncIterable<Uint8Array>;

/**
 * How the writer escaped body lines starting with `From `:
 * - `mboxrd` (Pony Mail, most tools): `From ` became `>From `, `>From ` became `>>From `; one `>` is taken off `>+From ` lines.
 * - `mboxo` (Python's mailbox, so HyperKitty's export): `From ` became `>From ` and `>From ` stayed as it was, so a
 *   `>From ` line cannot be told from a quoted one; it is kept as it is, which loses no character of the mail.
 * - `pipermail` (Mailman 2's `YYYY-Month.txt`): nothing was escaped; every line is kept as it is.
 */
export type MboxFlavour = 'mboxrd' | 'mboxo' | 'pipermail';

export interface ReadMboxOptions {
  signal?: AbortSignal;
  /** Default mboxrd. */
  flavour?: MboxFlavour;
}

/** The raw bytes of each message in an mbox, in file order. */
export async function* readMbox(input: MboxInput, options: ReadMboxOptions = {}): AsyncGenerator<Buffer> {
  for await (const entry of readMboxEntries(input, options)) yield entry.raw;
}

const LF = 0x0a;
const CR = 0x0d;
const FROM = Buffer.from('From ');
const NL_FROM = Buffer.from('\nFrom ');
const QUOTED_FROM = Buffer.from('>From ');
/** UTF-8's byte-order mark. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** An incomplete line held over to the next chunk longer than this cannot be a From_ line we wait for. */
const MAX_HELD_LINE = 64 * 1024;
/** How much of a message is searched for its multipart boundary. */
const HEAD_BYTES = 64 * 1024;
/** A From_ line after a blank line: `From <sender> <something with a time>`, with a year. */
const FROM_LINE_SHAPE = /^From \S*\s.*\d{1,2}:\d{2}/;
const YEAR = /\b\d{4}\b/;

/**
 * The From_ line mbox writers put out, exactly: a sender without spaces (or
 * Mailman 2's obscured `user at host`), one or two spaces, then asctime.
 * Mailman 2.1 HyperArch.Article.as_text writes `From %(email)s  %(fromdate)s`
 * with fromdate = time.ctime(); Python's mailbox and email.generator write
 * `From %s %s` with time.ctime() / time.asctime(); Pony Mail and mutt the same.
 */
const EXACT_FROM_LINE =
  /^From (?:\S+ at \S+|\S+) {1,2}(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/** The From_ line `git format-patch` writes: a commit id and git's fixed date. */
const GIT_PATCH_FROM_LINE = /^From [0-9a-f]{7,40} Mon Sep 17 00:00:00 2001$/;

/** The first line of mail: a From_ line or a header field. */
const MAIL_START = /^(From |[!-9;-~]+:)/;

/** Whether the bytes open as mail does: with a From_ line or a header field (a README, a web page, binary do not). */
export function opensLikeMail(raw: Buffer): boolean {
  return MAIL_START.test(raw.toString('latin1', 0, 200));
}

export function looksLikeFromLine(line: string): boolean {
  return FROM_LINE_SHAPE.test(line) && YEAR.test(line.slice(5));
}

/** A From_ line of the exact shape writers give it, a separator even with no blank line before it (git's patch header excepted). */
export function isExactFromLine(line: string): boolean {
  return EXACT_FROM_LINE.test(line) && !GIT_PATCH_FROM_LINE.test(line);
}

/** Each message with its From_ line and offset, in file order. */
export async function* readMboxEntries(input: MboxInput, options: ReadMboxOptions = {}): AsyncGenerator<MboxEntry> {
  const splitter = new MboxSplitter(options.flavour);
  for await (const chunk of openMboxBytes(input)) {
    if (options.signal?.aborted) throw abortError(options.signal);
    yield* splitter.push(chunk);
  }
  yield* splitter.end();
}

/** The messages of an mbox already in memory (a small file, a test fixture). */
export function splitMboxBuffer(bytes: Buffer, flavour: MboxFlavour = 'mboxrd'): Buffer[] {
  const splitter = new MboxSplitter(flavour);
  return [...splitter.push(bytes), ...splitter.end()].map((entry) => entry.raw);
}

/**
 * The splitting state machine, fed chunks. Exposed so tests and callers with
 * their own byte source can drive it directly.
 */
export class MboxSplitter {
  private parts: Buffer[] = [];
  private partsLength = 0;
  private messageOffset = 0;
  private fromLine: string | undefined;
  /** An incomplete last line carried to the next chunk. */
  private carry: Buffer | undefined;
  /** Offset in the stream of the first byte of the next chunk (carry included). */
  private position = 0;
  /** The last three bytes before the data being scanned; the stream start reads as blank lines. */
  private previous = [LF, LF, LF];
  /** Whether any non-blank byte has been seen (before it, any `From ` line is a separator). */
  private sawContent = false;

  private readonly unquote: boolean;

  constructor(flavour: MboxFlavour = 'mboxrd') {
    this.unquote = flavour === 'mboxrd';
  }

  *push(chunk: Uint8Array): Generator<MboxEntry> {
    const data = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const work = this.carry ? Buffer.concat([this.carry, data]) : data;
    this.carry = undefined;
    let complete = work.lastIndexOf(LF) + 1;
    const tail = work.subarray(complete);
    if (tail.length > MAX_HELD_LINE && !startsLikeFrom(tail)) complete = work.length;
    else if (tail.length > 0) this.carry = tail;
    yield* this.scan(work, complete);
  }

  *end(): Generator<MboxEntry> {
    if (this.carry) {
      const work = this.carry;
      this.carry = undefined;
      yield* this.scan(work, work.length, true);
    }
    const last = this.takeMessage();
    if (last) yield this.previous[2] === LF ? last : { ...last, unterminated: true };
  }

  /** Scans work[0, complete) for separators; the message bytes before each are emitted. */
  private *scan(work: Buffer, complete: number, final = false): Generator<MboxEntry> {
    let segmentStart = 0;
    let lineStart = this.previous[2] === LF ? 0 : nextLineStart(work, 0, complete);
    while (lineStart !== -1 && lineStart < complete) {
      if (!this.sawContent) {
        // Before any content, skip blank lines and notice where content begins.
        const contentAt = firstNonBlank(work, lineStart, complete);
        if (contentAt === -1) break;
        this.sawContent = true;
        // A byte-order mark an editor or export tool wrote at the start of the file is no content.
        const marked = this.position + contentAt === 0 && work.subarray(0, BOM.length).equals(BOM);
        lineStart = marked ? BOM.length : contentAt;
        if (!work.subarray(lineStart, lineStart + FROM.length).equals(FROM)) {
          // A file that starts straight with headers: the first message has no From_ line.
          segmentStart = lineStart;
          this.messageOffset = this.position + lineStart;
          lineStart = nextLineStart(work, lineStart, complete);
          continue;
        }
        const lineEnd = endOfLine(work, lineStart, complete);
        this.startMessage(work, lineStart, lineEnd);
        segmentStart = lineEnd;
        lineStart = nextLineStart(work, lineEnd - 1, complete);
        continue;
      }
      if (work.subarray(lineStart, lineStart + FROM.length).equals(FROM)) {
        const lineEnd = endOfLine(work, lineStart, complete);
        const line = work.toString('latin1', lineStart, lineEnd).replace(/\r?\n$/, '');
        const separates = this.blankBefore(work, lineStart)
          ? looksLikeFromLine(line) &&
            !(GIT_PATCH_FROM_LINE.test(line) && this.insideOpenMultipart(work.subarray(segmentStart, lineStart)))
          : isExactFromLine(line);
        if (separates) {
          if (lineStart > segmentStart) this.append(work.subarray(segmentStart, lineStart));
          const message = this.takeMessage();
          if (message) yield message;
          this.startMessage(work, lineStart, lineEnd);
          segmentStart = lineEnd;
          lineStart = lineEnd < complete ? lineEnd : -1;
          continue;
        }
      }
      const next = work.indexOf(NL_FROM, lineStart);
      lineStart = next === -1 || next >= complete ? -1 : next + 1;
    }
    if (complete > segmentStart && this.sawContent) this.append(work.subarray(segmentStart, complete));
    this.remember(work, complete, final);
  }

  /**
   * A git patch attached unquoted inside a MIME part starts with a From_-shaped
   * line; it is not a separator while the current message has opened its
   * multipart boundary and not closed it yet. Only git's own From_ line is
   * held back this way (GIT_PATCH_FROM_LINE): a multipart that never closes
   * its boundary must not swallow the messages after it.
   */
  private insideOpenMultipart(pending: Buffer): boolean {
    const boundary = multipartBoundary(this.head(pending));
    if (!boundary) return false;
    const message = this.parts.length === 0 ? pending : Buffer.concat([...this.parts, pending]);
    const delimiter = Buffer.from(`\n--${boundary}`);
    let opened = false;
    for (let hit = message.indexOf(delimiter); hit !== -1; hit = message.indexOf(delimiter, hit + delimiter.length)) {
      const after = hit + delimiter.length;
      if (message[after] === 0x2d && message[after + 1] === 0x2d) return false;
      opened = true;
    }
    return opened;
  }

  /** The first bytes of the current message, enough to hold its header in all but absurd cases. */
  private head(pending: Buffer): Buffer {
    const pieces: Buffer[] = [];
    let length = 0;
    for (const part of [...this.parts, pending]) {
      pieces.push(part);
      length += part.length;
      if (length >= HEAD_BYTES) break;
    }
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, length);
  }

  private blankBefore(work: Buffer, lineStart: number): boolean {
    const at = (index: number) => (index >= 0 ? work[index] : this.previous[3 + index]);
    if (at(lineStart - 1) !== LF) return false;
    const before = at(lineStart - 2);
    return before === LF || (before === CR && at(lineStart - 3) === LF);
  }

  private remember(work: Buffer, complete: number, final: boolean): void {
    this.position += complete;
    const take = Math.min(3, complete);
    for (let i = complete - take; i < complete; i++) this.previous = [this.previous[1]!, this.previous[2]!, work[i]!];
    if (final) this.position += work.length - complete;
  }

  private startMessage(work: Buffer, lineStart: number, lineEnd: number): void {
    this.fromLine = work.toString('latin1', lineStart, lineEnd).replace(/\r?\n$/, '');
    this.messageOffset = this.position + lineStart;
  }

  private append(bytes: Buffer): void {
    this.parts.push(bytes);
    this.partsLength += bytes.length;
  }

  private takeMessage(): MboxEntry | undefined {
    let raw: Buffer =
      this.parts.length === 1 ? Buffer.from(this.parts[0]!) : Buffer.concat(this.parts, this.partsLength);
    const fromLine = this.fromLine;
    const offset = this.messageOffset;
    this.parts = [];
    this.partsLength = 0;
    this.fromLine = undefined;
    raw = dropSeparatorBlankLine(raw);
    // A From_ line with nothing after it is not a message.
    if (!hasContent(raw)) return undefined;
    return { raw: this.unquote ? unquoteFromLines(raw) : raw, fromLine, offset };
  }
}

const CONTENT_TYPE = /^content-type:[ \t]*multipart\/[^\n]*(?:\r?\n[ \t][^\n]*)*/im;
const BOUNDARY = /boundary\s*=\s*(?:"([^"]+)"|([^\s;"]+))/i;

/** The multipart boundary the message's header declares, read from its first bytes. */
function multipartBoundary(start: Buffer): string | undefined {
  const headerEnd = start.indexOf('\n\n');
  const crlfEnd = start.indexOf('\r\n\r\n');
  const end = [headerEnd, crlfEnd]
    .filter((i) => i !== -1)
    .reduce((a, b) => Math.min(a, b), Math.min(start.length, HEAD_BYTES));
  const field = CONTENT_TYPE.exec(start.toString('latin1', 0, end))?.[0];
  const match = field && BOUNDARY.exec(field);
  return match ? (match[1] ?? match[2]) : undefined;
}

function startsLikeFrom(bytes: Buffer): boolean {
  const length = Math.min(bytes.length, FROM.length);
  return bytes.subarray(0, length).equals(FROM.subarray(0, length));
}

function nextLineStart(work: Buffer, from: number, complete: number): number {
  const index = work.indexOf(LF, from);
  return index === -1 || index + 1 >= complete ? -1 : index + 1;
}

/** Index just past the line's LF (or `complete` for a last line without one). */
function endOfLine(work: Buffer, lineStart: number, complete: number): number {
  const index = work.indexOf(LF, lineStart);
  return index === -1 || index >= complete ? complete : index + 1;
}

function firstNonBlank(work: Buffer, from: number, complete: number): number {
  for (let i = from; i < complete; i++) {
    const byte = work[i];
    if (byte !== LF && byte !== CR && byte !== 0x20 && byte !== 0x09) {
      // Back up to the start of this line.
      let start = i;
      while (start > from && work[start - 1] !== LF) start--;
      return start;
    }
  }
  return -1;
}

function hasContent(raw: Buffer): boolean {
  for (const byte of raw) if (byte !== LF && byte !== CR && byte !== 0x20 && byte !== 0x09) return true;
  return false;
}

/** The blank line an mbox writer puts before the next From_ line is not part of the message. */
function dropSeparatorBlankLine(raw: Buffer): Buffer {
  const n = raw.length;
  if (n >= 4 && raw[n - 1] === LF && raw[n - 2] === CR && raw[n - 3] === LF && raw[n - 4] === CR)
    return raw.subarray(0, n - 2);
  if (n >= 2 && raw[n - 1] === LF && raw[n - 2] === LF) return raw.subarray(0, n - 1);
  return raw;
}

/** `>From ` → `From `, `>>From ` → `>From ` at the start of a line. */
export function unquoteFromLines(raw: Buffer): Buffer {
  let hit = raw.indexOf(QUOTED_FROM);
  if (hit === -1) return raw;
  const pieces: Buffer[] = [];
  let copied = 0;
  while (hit !== -1) {
    let lineStart = hit;
    while (lineStart > 0 && raw[lineStart - 1] === 0x3e) lineStart--;
    if (lineStart === 0 || raw[lineStart - 1] === LF) {
      pieces.push(raw.subarray(copied, lineStart));
      copied = lineStart + 1;
    }
    hit = raw.indexOf(QUOTED_FROM, hit + QUOTED_FROM.length);
  }
  if (copied === 0) return raw;
  pieces.push(raw.subarray(copied));
  return Buffer.concat(pieces);
}

/** The bytes of a file or stream, gunzipped when they start with the gzip magic. */
export async function* openMboxBytes(input: MboxInput): AsyncGenerator<Buffer> {
  if (typeof input === 'string') {
    const file = createReadStream(input, { highWaterMark: 256 * 1024 });
    yield* (await fileIsGzip(input)) ? unwrapped(gunzip(file), 1) : (file as AsyncIterable<Buffer>);
    return;
  }
  yield* unwrapped(input as AsyncIterable<Uint8Array>, 0);
}

/** Gzip layers taken off one stream at most: mail is text, and never starts with gzip's magic bytes. */
const MAX_GZIP_LAYERS = 3;

/**
 * The bytes, gunzipped while they start with gzip's magic: a `.txt.gz` a
 * server gzips again for the transfer (and labels so, or not) is two layers.
 */
async function* unwrapped(input: AsyncIterable<Uint8Array>, layers: number): AsyncGenerator<Buffer> {
  const iterator = input[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headLength = 0;
  let done = false;
  while (headLength < 2) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    head.push(chunk);
    headLength += chunk.length;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
  }
  const first = Buffer.concat(head);
  if (first[0] === 0x1f && first[1] === 0x8b && layers < MAX_GZIP_LAYERS)
    yield* unwrapped(gunzip(Readable.from(replay())), layers + 1);
  else yield* replay();
}

export async function fileIsGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

async function* gunzip(source: Readable): AsyncGenerator<Buffer> {
  const inflate = createGunzip();
  pipeline(source, inflate, () => {
    // Errors surface through the iteration below.
  });
  for await (const chunk of inflate) yield chunk as Buffer;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The operation was aborted.', 'AbortError');
}
