import { createHash, type Hash } from 'node:crypto';
import { createReadStream, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ArchiveError, PartialMonthError } from '../../errors.js';
import type { ArchiveSource, Month, RawMessage, SourceContext } from '../archive-source.js';
import { checkEntry, readProblem } from '../entry-problem.js';
import { fileIsGzip, opensLikeMail, readMboxEntries, type MboxEntry } from '../mbox-reader.js';
import { readMonthIndex, writeMonthIndex } from '../month-index-cache.js';
import { messageMonth } from '../message-month.js';
import { monthOf } from '../month.js';
import { readHeaderBlock } from '../raw-headers.js';

/** Which months one mbox file holds: a count and a digest of that month's messages, and for plain files their byte runs. */
interface FileMonths {
  gzip: boolean;
  /** Month a message without a usable date is filed under: the file's modification month. */
  fallback: Month;
  months: Record<Month, { count: number; runs: Array<[number, number]>; digest: string }>;
  /** A gzip file whose data ends early: the messages before the cut were indexed; `month` is the one left unfinished. */
  cut?: { month: Month; why: string };
  /**
   * A plain file that ends inside a line: where its last message starts, and
   * its month. While the file is fresh (heldBack) a writer is taken to be
   * appending that message, and it is not read.
   */
  tail?: { offset: number; month: Month };
  /** The file's modification time when indexed (ms). */
  modifiedMs: number;
  /** What of the file is not mail and is left out (mailEntries): text before its first From_ line, or the whole file. */
  notMail?: { preambleBytes: number } | 'file';
  /** When the index was made: a month's read files each message by the same clock (messageMonth files none after its month). */
  indexedAt: string;
}

const INDEX_KIND = 'mbox-months';
/** Bumped when FileMonths changes shape or the reader splits differently, so indexes of an older listminer are rebuilt. */
const INDEX_VERSION = 'v7';

/**
 * How long a plain mbox file that ends inside a line must have been left
 * alone before its last message is read as it is: a mail program appends a
 * message in well under a minute, so a file still that fresh is taken to be
 * half written, and its last message waits for the next run.
 */
const APPEND_QUIET_MS = 60_000;

/**
 * Local mbox files (a file, or a folder searched recursively; plain or gzip).
 * Months come from the messages' own dates. Each file is scanned once to
 * learn its months, and that index is cached by path, size and modification
 * time; a month's fetch then reads only the files, and in a plain file only
 * the byte runs, that hold it. An entry that cannot be read is skipped and
 * reported; the rest of the list is read.
 */
export function createSource(): ArchiveSource {
  // A source serves one list for one run. The folder is listed once a run, and each file's month index read once:
  // listing and checking every file again for each month made a run over a folder of F files and M months cost
  // F × M calls to stat. Before a file is read for a month it is checked again, and indexed again if it changed.
  let listing: Promise<string[]> | undefined;
  const listFiles = (context: SourceContext) => (listing ??= mboxFiles(context.list.name, context));
  const known = new Map<string, { stamp: string; index: FileMonths }>();
  /** The file's month index (as first seen this run, unless `recheck`), or undefined when it cannot be read (reported as skipped). */
  const fileMonths = async (file: string, context: SourceContext, recheck = false): Promise<FileMonths | undefined> => {
    const seen = known.get(file);
    if (seen && !recheck) return seen.index;
    const check = await checkEntry(file);
    if ('gone' in check) return undefined;
    if ('problem' in check) {
      context.onSkippedEntry?.({ path: file, reason: check.problem });
      return undefined;
    }
    const stamp = `${INDEX_VERSION}:${check.file.size}:${check.file.mtimeMs}`;
    if (seen?.stamp === stamp) return seen.index;
    let index: FileMonths;
    try {
      index =
        (await readMonthIndex<FileMonths>(context.cacheDir, INDEX_KIND, file, stamp)) ??
        (await indexFile(file, check.file, stamp, context));
    } catch (error) {
      const problem = readProblem(error);
      if (problem === undefined) throw error;
      context.onSkippedEntry?.({ path: file, reason: problem });
      return undefined;
    }
    known.set(file, { stamp, index });
    if (index.notMail) context.onSkippedEntry?.({ path: file, reason: notMailSentence(index.notMail) });
    return index;
  };
  return {
    name: 'mbox',
    local: true,

    async firstMonth(context) {
      let first: Month | undefined;
      for (const file of await listFiles(context)) {
        for (const month of Object.keys((await fileMonths(file, context))?.months ?? {}))
          if (!first || month < first) first = month;
      }
      return first;
    },

    async monthFingerprints(context) {
      const root = context.list.name;
      const hashes = new Map<Month, Hash>();
      for (const file of await listFiles(context)) {
        const index = await fileMonths(file, context);
        for (const [month, holding] of Object.entries(index?.months ?? {})) {
          let hash = hashes.get(month);
          if (!hash) hashes.set(month, (hash = createHash('sha256')));
          const unfinished = index!.cut?.month === month ? 'cut' : heldBack(index!)?.month === month ? 'held' : '';
          hash.update(`${relative(root, file)}\0${holding.digest}\0${unfinished}\n`);
        }
      }
      return new Map([...hashes].map(([month, hash]) => [month, hash.digest('hex')]));
    },

    async *fetchMonth(context, month) {
      /** A file of the month cut short: raised once the month's other files are read, their mail staged. */
      let cut: PartialMonthError | undefined;
      for (const file of await listFiles(context)) {
        if (!(await fileMonths(file, context))?.months[month]) continue;
        const index = await fileMonths(file, context, true);
        const holding = index?.months[month];
        if (!index || !holding) continue;
        try {
          if (index.gzip) {
            yield* messagesOfMonth(
              mailEntries(readMboxEntries(file, { signal: context.signal })),
              file,
              0,
              index,
              month,
            );
          } else {
            const tail = heldBack(index);
            const held = tail?.month === month ? tail.offset : undefined;
            if (held !== undefined) context.onSkippedEntry?.({ path: file, reason: HELD_REASON }, month);
            for (const [start, end] of holding.runs) {
              const run = createReadStream(file, { start, end: end - 1, highWaterMark: 256 * 1024 });
              yield* messagesOfMonth(readMboxEntries(run, { signal: context.signal }), file, start, index, month, held);
            }
          }
        } catch (error) {
          if (index.cut && isZlibError(error)) {
            // Every message of an earlier month came before the cut; the cut month may have lost some.
            if (index.cut.month === month) cut ??= new PartialMonthError(cutSentence(file, index.cut));
            continue;
          }
          const problem = readProblem(error);
          if (problem === undefined) throw error;
          context.onSkippedEntry?.({ path: file, reason: problem }, month);
        }
      }
      if (cut) throw cut;
    },
  };
}

async function* messagesOfMonth(
  entries: AsyncIterable<MboxEntry>,
  file: string,
  base: number,
  { fallback, indexedAt }: FileMonths,
  month: Month,
  heldOffset?: number,
): AsyncGenerator<RawMessage> {
  const indexed = new Date(indexedAt);
  for await (const entry of entries) {
    if (base + entry.offset === heldOffset) continue;
    const headers = readHeaderBlock(entry.raw);
    if (messageMonth(headers, fallback, entry.fromLine, indexed) === month)
      yield { raw: entry.raw, sourceRef: `${file}#${base + entry.offset}`, headers };
  }
}

/**
 * The mbox files a list names: the file itself, or every non-hidden file
 * under the folder, in name order. A symbolic link to a file is read; an
 * entry that is no file (a FIFO, a dangling link, a link to a folder, a
 * folder that cannot be listed) is reported as skipped.
 */
export async function mboxFiles(path: string, context?: Pick<SourceContext, 'onSkippedEntry'>): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new ArchiveError(`${path} does not exist (any more).`, 'permanent');
  }
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  const skip = (entry: string, reason: string) => context?.onSkippedEntry?.({ path: entry, reason });
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      const problem = readProblem(error);
      if (problem === undefined || folder === path) throw error;
      return skip(folder, problem);
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(full);
      else if (entry.isSymbolicLink()) {
        const target = await stat(full).catch(() => undefined);
        if (target?.isFile()) files.push(full);
        else if (target?.isDirectory()) skip(full, 'is a symbolic link to a folder, which listminer does not follow');
        else {
          const check = await checkEntry(full);
          if ('problem' in check) skip(full, check.problem);
        }
      } else {
        const check = await checkEntry(full);
        if ('problem' in check) skip(full, check.problem);
      }
    }
  };
  await walk(path);
  return files.sort();
}

/**
 * Scans a file once for the months it holds, and caches what it found. A
 * gzip file cut short keeps the months of the messages before the cut; the
 * month of the last of them is marked unfinished (`cut`).
 */
async function indexFile(file: string, info: Stats, stamp: string, context: SourceContext): Promise<FileMonths> {
  const now = new Date();
  const index: FileMonths = {
    gzip: await fileIsGzip(file),
    fallback: monthOf(info.mtime),
    months: {},
    modifiedMs: info.mtimeMs,
    indexedAt: now.toISOString(),
  };
  const digests = new Map<Month, Hash>();
  let run: { month: Month; start: number } | undefined;
  let lastMonth: Month | undefined;
  const close = (end: number) => {
    if (run) index.months[run.month]!.runs.push([run.start, end]);
  };
  const entries = mailEntries(
    readMboxEntries(file, { signal: context.signal }),
    (notMail) => (index.notMail = notMail),
  );
  try {
    for await (const entry of entries) {
      const month = messageMonth(entry.raw, index.fallback, entry.fromLine, now);
      const holding = (index.months[month] ??= { count: 0, runs: [], digest: '' });
      holding.count++;
      let digest = digests.get(month);
      if (!digest) digests.set(month, (digest = createHash('sha256')));
      digest.update(`${entry.raw.length}\n`).update(entry.raw);
      lastMonth = month;
      if (entry.unterminated && !index.gzip) index.tail = { offset: entry.offset, month };
      if (run?.month !== month) {
        close(entry.offset);
        run = { month, start: entry.offset };
      }
    }
  } catch (error) {
    if (!index.gzip || !isZlibError(error)) throw error;
    const month = lastMonth ?? index.fallback;
    index.cut = { month, why: (error as Error).message };
    index.months[month] ??= { count: 0, runs: [], digest: '' };
  }
  close(info.size);
  for (const [month, digest] of digests) index.months[month]!.digest = digest.digest('hex');
  if (index.gzip) for (const holding of Object.values(index.months)) holding.runs = [];
  await writeMonthIndex(context.cacheDir, INDEX_KIND, file, stamp, index);
  return index;
}

const HELD_REASON =
  'its last message ends inside a line and the file was written to in the last minute: taken to be half written, it is read on a later fetch';

/** The last message of a file that ends inside a line, while the file is fresh enough to be still written to (APPEND_QUIET_MS). */
function heldBack(index: FileMonths): FileMonths['tail'] {
  return index.tail && Date.now() - index.modifiedMs < APPEND_QUIET_MS ? index.tail : undefined;
}

/**
 * The entries of an mbox file that are mail. A first entry with no From_
 * line that does not open with a message's header either is not a message:
 * where From_-headed mail follows it, it is text an export tool or editor
 * put above the mail, left out (`preambleBytes` long), and the mail after it
 * is read; where none does, the file is not mail (a README, an HTML page)
 * and nothing is read.
 */
async function* mailEntries(
  entries: AsyncIterable<MboxEntry>,
  leftOut?: (notMail: NonNullable<FileMonths['notMail']>) => void,
): AsyncGenerator<MboxEntry> {
  let first = true;
  let preamble = false;
  for await (const entry of entries) {
    if (first) {
      first = false;
      preamble = entry.fromLine === undefined && !headedAsMail(entry.raw);
      if (preamble) continue;
    } else if (preamble) {
      preamble = false;
      if (entry.fromLine === undefined || !opensLikeMail(entry.raw)) {
        leftOut?.('file');
        return;
      }
      leftOut?.({ preambleBytes: entry.offset });
    }
    yield entry;
  }
  if (preamble) leftOut?.('file');
}

/** Fields of a message's header that a banner's `Note: …` line is not: one of them makes a header-first file's first entry mail. */
const MAIL_FIELDS = [
  ...['from', 'sender', 'reply-to', 'to', 'cc', 'date', 'subject', 'message-id', 'in-reply-to', 'references'],
  ...['received', 'return-path', 'delivered-to', 'mime-version', 'content-type'],
];

/** Whether bytes with no From_ line above them open with the header of a message. */
function headedAsMail(raw: Buffer): boolean {
  if (!opensLikeMail(raw)) return false;
  const { fields } = readHeaderBlock(raw);
  return MAIL_FIELDS.some((name) => fields.has(name));
}

function notMailSentence(notMail: NonNullable<FileMonths['notMail']>): string {
  return notMail === 'file'
    ? 'it does not start like mail (with a From_ line or the header of a message), so none of it is read'
    : `its first ${notMail.preambleBytes} bytes, above its first From_ line, are not mail and are not read; the mail after them is`;
}

/** Errors of the gzip decoder: data cut short (Z_BUF_ERROR) or damaged (Z_DATA_ERROR). */
function isZlibError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

function cutSentence(file: string, cut: NonNullable<FileMonths['cut']>): string {
  const what = /unexpected end/i.test(cut.why)
    ? 'ends early (its gzip data is cut short)'
    : `is damaged (gzip: ${cut.why})`;
  return `${file} ${what}: the messages before the damage were staged, the rest cannot be read, so ${cut.month} stays unfinished and is read again on the next fetch.`;
}
