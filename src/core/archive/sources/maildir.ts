import { ArchiveError } from '../../errors.js';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type ArchiveSource, type Month, type SourceContext } from '../archive-source.js';
import { readMonthIndex, writeMonthIndex } from '../month-index-cache.js';
import { messageMonth } from '../message-month.js';
import { monthOf } from '../month.js';

/** Month → message files (relative to the Maildir) filed under it. */
type MaildirMonths = Record<Month, string[]>;

const INDEX_KIND = 'maildir-months';
/** Enough of a message to read its Date header. */
const HEAD_BYTES = 64 * 1024;

/**
 * A local Maildir: every message file in cur/ and new/ (tmp/ holds mail
 * still being delivered). Months come from each message's Date header;
 * without one, from the delivery time the file name starts with; else from
 * the file's modification month. The month index is cached and rebuilt
 * whenever cur/ or new/ change.
 */
export function createSource(): ArchiveSource {
  return {
    name: 'maildir',

    async firstMonth(context) {
      return Object.keys(await maildirMonths(context)).sort()[0];
    },

    async *fetchMonth(context, month) {
      const root = context.list.name;
      for (const name of (await maildirMonths(context))[month] ?? []) {
        context.signal?.throwIfAborted();
        let raw: Buffer;
        try {
          raw = await readFile(join(root, name));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          // A mail client moved or flagged it since the index was made: read the month again later.
          throw new ArchiveError(`${join(root, name)} moved while listminer read the Maildir.`, 'transient');
        }
        yield { raw, sourceRef: join(root, name) };
      }
    },
  };
}

async function maildirMonths(context: SourceContext): Promise<MaildirMonths> {
  const root = context.list.name;
  const folders = ['cur', 'new'];
  const stamps: string[] = [];
  for (const folder of folders) {
    try {
      const info = await stat(join(root, folder));
      stamps.push(`${folder}:${info.mtimeMs}`);
    } catch {
      stamps.push(`${folder}:none`);
    }
  }
  if (stamps.every((s) => s.endsWith(':none'))) throw new ArchiveError(`${root} is not a Maildir (it has no cur/ or new/).`, 'permanent');
  const stamp = stamps.join(' ');
  const cached = await readMonthIndex<MaildirMonths>(context.cacheDir, INDEX_KIND, root, stamp);
  if (cached) return cached;
  const months: MaildirMonths = {};
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
      const info = await stat(path);
      if (!info.isFile()) continue;
      const month = messageMonth(await readHead(path), deliveryMonth(name) ?? monthOf(info.mtime));
      (months[month] ??= []).push(join(folder, name));
    }
  }
  await writeMonthIndex(context.cacheDir, INDEX_KIND, root, stamp, months);
  return months;
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
