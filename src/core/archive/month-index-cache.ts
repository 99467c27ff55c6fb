import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Small JSON files in the source cache folder that remember which months a
 * local mbox file or Maildir holds, so fetching month after month does not
 * re-read everything. An entry is valid only for the exact `stamp` (path,
 * size, modification time) it was made for.
 */
export async function readMonthIndex<T>(
  cacheDir: string,
  kind: string,
  path: string,
  stamp: string,
): Promise<T | undefined> {
  try {
    const stored = JSON.parse(await readFile(indexFile(cacheDir, kind, path), 'utf8')) as { stamp?: string; index?: T };
    return stored.stamp === stamp ? stored.index : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps an index for the next run; false when the cache folder refuses it (a
 * full or read-only disk): the index is a saving, not the mail, so the read
 * goes on with it in memory and the next run scans again.
 */
export async function writeMonthIndex<T>(
  cacheDir: string,
  kind: string,
  path: string,
  stamp: string,
  index: T,
): Promise<boolean> {
  const file = indexFile(cacheDir, kind, path);
  // Two lists of one mailbox may write the same index at once in one process: each writes a file of its own, then renames it.
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await mkdir(join(cacheDir, kind), { recursive: true });
    await writeFile(temporary, JSON.stringify({ path, stamp, index }));
    await rename(temporary, file);
    return true;
  } catch (error) {
    if (typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
    await rm(temporary, { force: true }).catch(() => {});
    return false;
  }
}

function indexFile(cacheDir: string, kind: string, path: string): string {
  return join(cacheDir, kind, `${createHash('sha1').update(path).digest('hex')}.json`);
}
