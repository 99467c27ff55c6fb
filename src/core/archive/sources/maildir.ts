import { createHash } from 'node:crypto';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveError } from '../../errors.js';
import type { ArchiveSource, Month, SkippedEntry, SourceContext } from '../archive-source.js';
import { checkEntry, readProblem } from '../entry-problem.js';
import { readMonthIndex, writeMonthIndex } from '../month-index-cache.js';
import { messageMonth } from '../message-month.js';
import { monthOf } from '../month.js';

/** What a Maildir holds: month → message files (relative to the Maildir), a digest of each month's files, and the entries skipped. */
interface MaildirIndex {
  months: Record<Month, string[]>;
  digests: Record<Month, string>;
  /** Entries of cur/ and new/ that could not be read, relative to the Maildir. */
  skipped: SkippedEntry[];
}

const INDEX_KIND = 'maildir-months';
/** Bumped when MaildirIndex changes shape or months are read differently, so indexes of an older listminer are rebuilt. */
const INDEX_VERSION = 'v3';
/** Enough of a message to read its Date header. */
const HEAD_BYTES = 64 * 1024;

/**
 * A local Maildir: every message file in cur/ and new/ (tmp/ holds mail
 * still being delivered). Months come from each message's Date header;
 * without one, from the delivery time the file name starts with; else from
 * the file's modification month. The month index is cached and rebuilt
 * whenever cur/ or new/ change, or an entry skipped before became readable.
 */
export function createSource(): ArchiveSource {
  return {
    name: 'maildir',
    local: true,

    async firstMonth(context) {
      return Object.keys((await maildirIndex(context)).months).sort()[0];
    },

    async monthFingerprints(context) {
      return new Map(Object.entries((await maildirIndex(context)).digests));
    },

    async *fetchMonth(context, month) {
      const root = context.list.name;
      for (const name of (await maildirIndex(context)).months[month] ?? []) {
        context.signal?.throwIfAborted();
        const path = join(root, name);
        let raw: Buffer;
        try {
          raw = await readFile(path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            // A mail client moved or flagged it since the index was made: read the month again later.
            throw new ArchiveError(`${path} moved while listminer read the Maildir.`, 'transient');
          }
          const problem = readProblem(error);
          if (problem === undefined) throw error;
          context.onSkippedEntry?.({ path, reason: problem }, month);
          continue;
        }
        yield { raw, sourceRef: path };
      }
    },
  };
}

async function maildirIndex(context: SourceContext): Promise<MaildirIndex> {
  const root = context.list.name;
  const folders = ['cur', 'new'];
  const stamps: string[] = [INDEX_VERSION];
  for (const folder of folders) {
    try {
      const info = await stat(join(root, folder));
      stamps.push(`${folder}:${info.mtimeMs}`);
    } catch {
      stamps.push(`${folder}:none`);
    }
  }
  if (stamps.slice(1).every((s) => s.endsWith(':none')))
    throw new ArchiveError(`${root} is not a Maildir (it has no cur/ or new/).`, 'permanent');
  const stamp = stamps.join(' ');
  const cached = await readMonthIndex<MaildirIndex>(context.cacheDir, INDEX_KIND, root, stamp);
  if (cached && !(await anyNowReadable(root, cached.skipped))) {
    for (const entry of cached.skipped)
      context.onSkippedEntry?.({ path: join(root, entry.path), reason: entry.reason });
    return cached;
  }
  const index: MaildirIndex = { months: {}, digests: {}, skipped: [] };
  /** Per month: the file's name without its flags, size and modification time, which a mail client's renames keep. */
  const identities: Record<Month, string[]> = {};
  for (const folder of folders) {
    let names: string[];
    try {
      names = (await readdir(join(root, folder))).filter((name) => !name.startsWith('.')).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      context.signal?.throwIfAborted();
      const path = join(root, folder, name);
      const check = await checkEntry(path);
      if ('gone' in check) continue;
      const skip = (reason: string) => {
        index.skipped.push({ path: join(folder, name), reason });
        context.onSkippedEntry?.({ path, reason });
      };
      if ('problem' in check) {
        skip(check.problem);
        continue;
      }
      let head: Buffer;
      try {
        head = await readHead(path);
      } catch (error) {
        const problem = readProblem(error);
        if (problem === undefined) throw error;
        skip(problem);
        continue;
      }
      const month = messageMonth(head, deliveryMonth(name) ?? monthOf(check.file.mtime));
      (index.months[month] ??= []).push(join(folder, name));
      (identities[month] ??= []).push(`${name.split(':')[0]}\0${check.file.size}\0${check.file.mtimeMs}`);
    }
  }
  for (const [month, files] of Object.entries(identities)) {
    index.digests[month] = createHash('sha256').update(files.sort().join('\n')).digest('hex');
  }
  await writeMonthIndex(context.cacheDir, INDEX_KIND, root, stamp, index);
  return index;
}

/** Whether an entry skipped when the index was made can be read now (a link's target appeared, a permission was granted). */
async function anyNowReadable(root: string, skipped: readonly SkippedEntry[]): Promise<boolean> {
  for (const entry of skipped) {
    const check = await checkEntry(join(root, entry.path));
    if ('gone' in check) return true;
    if (!('file' in check)) continue;
    try {
      await readHead(join(root, entry.path));
      return true;
    } catch {
      // still unreadable
    }
  }
  return false;
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Maildir names start with the delivery time in seconds: `1382298793.003295:2,S`. */
function deliveryMonth(name: string): Month | undefined {
  const seconds = /^(\d{9,11})\./.exec(name)?.[1];
  return seconds ? monthOf(new Date(Number(seconds) * 1000)) : undefined;
}
