import { open } from 'node:fs/promises';
import { InputError } from './errors.js';

/** More than any file of lines a user hands a command (a .mailmap, a list of repositories) holds; /dev/zero stops here. */
export const USER_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The one sentence for a file the user named (an argument, a flag) that
 * cannot be read: no such file, a directory, else the system's reason.
 * Exit code 2: the path given is wrong.
 */
export function unreadableFile(path: string, error: unknown, hint: string): InputError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT' ? 'there is no such file' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message;
  return new InputError(`Cannot read ${path}: ${why}.`, hint);
}

/**
 * The text (UTF-8) of a file the user named, read whole. A path that cannot
 * be read is refused with unreadableFile's sentence; so is one that holds
 * more than `limitBytes`, which keeps an endless device or a wrong file from
 * filling the memory. A pipe (`<(git show HEAD:.mailmap)`) is read as a file.
 */
export async function readUserFile(
  path: string,
  hint: string,
  limitBytes: number = USER_FILE_LIMIT_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    const file = await open(path, 'r');
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(Math.min(1 << 20, limitBytes + 1 - length));
        const { bytesRead } = await file.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        length += bytesRead;
        if (length > limitBytes) break;
      }
    } finally {
      await file.close();
    }
  } catch (error) {
    throw unreadableFile(path, error, hint);
  }
  if (length > limitBytes) {
    throw new InputError(`Cannot read ${path}: it holds more than ${limitBytes / (1024 * 1024)} MiB.`, hint);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}
