import { ArchiveError } from '../../errors.js';
import { createReadStream, type Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type ArchiveSource, type Month, type RawMessage, type SourceContext } from '../archive-source.js';
import { fileIsGzip, readMboxEntries, type MboxEntry } from '../mbox-reader.js';
import { readMonthIndex, writeMonthIndex } from '../month-index-cache.js';
import { messageMonth } from '../message-month.js';
import { monthOf } from '../month.js';

/** Which months one mbox file holds: a count, and for plain files the byte runs holding that month's messages. */
interface FileMonths {
  gzip: boolean;
  /** Month a message without a usable date is filed under: the file's modification month. */
  fallback: Month;
  months: Record<Month, { count: number; runs: Array<[number, number]> }>;
}

const INDEX_KIND = 'mbox-months';
/** The first line of a mail file: a From_ line or a header field. */
const MAIL_START = /^(From |[!-9;-~]+:)/;

/**
 * Local mbox files (a file, or a folder searched recursively; plain or gzip).
 * Months come from the messages' own dates. Each file is scanned once to
 * learn its months, and that index is cached by path, size and modification
 * time; a month's fetch then reads only the files, and in a plain file only
 * the byte runs, that hold it.
 */
export function createSource(): ArchiveSource {
  // Month indexes already read in this run, so a month's fetch need not re-read each file's cache entry.
  const known = new Map<string, { stamp: string; index: FileMonths }>();
  const fileMonths = async (file: string, context: SourceContext): Promise<FileMonths> => {
    const info = await stat(file);
    const stamp = `${info.size}:${info.mtimeMs}`;
    const seen = known.get(file);
    if (seen?.stamp === stamp) return seen.index;
    const index = (await readMonthIndex<FileMonths>(context.cacheDir, INDEX_KIND, file, stamp)) ?? (await indexFile(file, info, stamp, context));
    known.set(file, { stamp, index });
    return index;
  };
  return {
    name: 'mbox',

    async firstMonth(context) {
      let first: Month | undefined;
      for (const file of await mboxFiles(context.list.name)) {
        for (const month of Object.keys((await fileMonths(file, context)).months)) if (!first || month < first) first = month;
      }
      return first;
    },

    async *fetchMonth(context, month) {
      for (const file of await mboxFiles(context.list.name)) {
        const index = await fileMonths(file, context);
        const holding = index.months[month];
        if (!holding) continue;
        if (index.gzip) {
          yield* messagesOfMonth(readMboxEntries(file, { signal: context.signal }), file, 0, index.fallback, month);
          continue;
        }
        for (const [start, end] of holding.runs) {
          const run = createReadStream(file, { start, end: end - 1, highWaterMark: 256 * 1024 });
          yield* messagesOfMonth(readMboxEntries(run, { signal: context.signal }), file, start, index.fallback, month);
        }
      }
    },
  };
}

async function* messagesOfMonth(entries: AsyncIterable<MboxEntry>, file: string, base: number, fallback: Month, month: Month): AsyncGenerator<RawMessage> {
  for await (const entry of entries) {
    if (messageMonth(entry.raw, fallback, entry.fromLine) === month) yield { raw: entry.raw, sourceRef: `${file}#${base + entry.offset}` };
  }
}

/** The mbox files a list names: the file itself, or every non-hidden file under the folder, in name order. */
export async function mboxFiles(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch {
    throw new ArchiveError(`${path} does not exist (any more).`, 'permanent');
  }
  if (!info.isDirectory()) return [path];
  const files: string[] = [];
  for (const entry of await readdir(path, { withFileTypes: true, recursive: true })) {
    const parent = entry.parentPath ?? path;
    if (entry.isFile() && !entry.name.startsWith('.') && !parent.slice(path.length).split('/').some((part) => part.startsWith('.'))) {
      files.push(join(parent, entry.name));
    }
  }
  return files.sort();
}

/** Scans a file once for the months it holds, and caches what it found. */
async function indexFile(file: string, info: Stats, stamp: string, context: SourceContext): Promise<FileMonths> {
  const index: FileMonths = { gzip: await fileIsGzip(file), fallback: monthOf(info.mtime), months: {} };
  let run: { month: Month; start: number } | undefined;
  const close = (end: number) => {
    if (run) index.months[run.month]!.runs.push([run.start, end]);
  };
  let first = true;
  for await (const entry of readMboxEntries(file, { signal: context.signal })) {
    if (first && entry.fromLine === undefined && !MAIL_START.test(entry.raw.toString('latin1', 0, 200))) break; // not mail: a README, an HTML page
    first = false;
    const month = messageMonth(entry.raw, index.fallback, entry.fromLine);
    const holding = (index.months[month] ??= { count: 0, runs: [] });
    holding.count++;
    if (run?.month !== month) {
      close(entry.offset);
      run = { month, start: entry.offset };
    }
  }
  close(info.size);
  if (index.gzip) for (const holding of Object.values(index.months)) holding.runs = [];
  await writeMonthIndex(context.cacheDir, INDEX_KIND, file, stamp, index);
  return index;
}
