import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
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

export async function writeMonthIndex<T>(
  cacheDir: string,
  kind: string,
  path: string,
  stamp: string,
  index: T,
): Promise<void> {
  const file = indexFile(cacheDir, kind, path);
  await mkdir(join(cacheDir, kind), { recursive: true });
  // Two lists of one mailbox may write the same index at once in one process: each writes a file of its own, then renames it.
  const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temporary, JSON.stringify({ path, stamp, index }));
  await rename(temporary, file);
}

function indexFile(cacheDir: string, kind: string, path: string): string {
  return join(cacheDir, kind, `${createHash('sha1').update(path).digest('hex')}.json`);
}
