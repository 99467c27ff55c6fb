import { lstat, readlink, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';

/**
 * What is wrong with an entry of a local source, in words `lists ls` can
 * show, or `{ file }` when it is a regular file to read. `gone` is an entry
 * that vanished since its folder was listed (a mail client moved it): no
 * problem to record, the folder's next listing has it under its new name.
 */
export type EntryCheck = { file: Stats } | { problem: string } | { gone: true };

export async function checkEntry(path: string): Promise<EntryCheck> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      const link = await lstat(path).catch(() => undefined);
      if (!link?.isSymbolicLink()) return { gone: true };
      const target = await readlink(path).catch(() => '?');
      return { problem: `is a symbolic link to ${target}, which does not exist` };
    }
    const problem = readProblem(error);
    if (problem === undefined) throw error;
    return { problem };
  }
  if (info.isFile()) return { file: info };
  return { problem: notAFile(info) };
}

/** A sentence for a file system error met while reading an entry; undefined for errors that are not about the entry. */
export function readProblem(error: unknown): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read: permission denied';
    case 'EISDIR':
      return 'is a folder where a message file was expected';
    case 'ELOOP':
      return 'is a loop of symbolic links';
    case 'EIO':
      return 'cannot be read: input/output error';
    case 'ENOENT':
      return 'disappeared while listminer read it';
    default:
      return undefined;
  }
}

function notAFile(info: Stats): string {
  if (info.isDirectory()) return 'is a folder where a message file was expected';
  if (info.isFIFO()) return 'is a FIFO (named pipe), not a message file';
  if (info.isSocket()) return 'is a socket, not a message file';
  return 'is a device, not a message file';
}
