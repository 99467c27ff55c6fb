import { ListminerError, InputError, OperationError } from './errors.js';

/** The command that writes into --out, and what a full disk leaves behind it. */
export interface WritingCommand {
  name: 'export' | 'render';
  /** After "<name> stopped": what is left, as the user finds it. */
  leaves: string;
}

/**
 * The codes below in the system's own words, as strerror() prints them.
 * DuckDB, which writes Parquet, reports a failed write with these words and
 * no code (`IO Error: Could not write file "…": No space left on device`).
 * Matched with their capitals: a database's "permission denied for table" is
 * no refusal of the file system.
 */
const CODE_OF_WORDS: ReadonlyArray<readonly [words: string, code: string]> = [
  ['No space left on device', 'ENOSPC'],
  ['Disk quota exceeded', 'EDQUOT'],
  ['Permission denied', 'EACCES'],
  ['Operation not permitted', 'EPERM'],
  ['Read-only file system', 'EROFS'],
  ['Is a directory', 'EISDIR'],
  ['Not a directory', 'ENOTDIR'],
  ['File exists', 'EEXIST'],
];

/** One of those codes named in a message ("ENOSPC: no space left on device, write"). */
const CODE_IN_TEXT = new RegExp(`\\b(${CODE_OF_WORDS.map(([, code]) => code).join('|')})\\b`);

/**
 * What the file system said while a command wrote its files into --out, as
 * a sentence about that folder: a path that cannot be a folder, or a folder
 * where a file goes, is the user's input (exit 2); a refusal, a read-only or
 * full disk is the machine's (exit 1). Any other error passes through
 * unchanged. The code is also found in the message, for an error that lost
 * it crossing from a worker thread, and so are its words, for DuckDB's.
 */
export function explainWriteFailure(error: unknown, outDir: string, command: WritingCommand): unknown {
  if (error instanceof ListminerError) return error;
  const detail = (error as Error)?.message ?? String(error);
  const code =
    (error as { code?: string }).code ??
    CODE_IN_TEXT.exec(detail)?.[1] ??
    CODE_OF_WORDS.find(([words]) => detail.includes(words))?.[1] ??
    '';
  const { name } = command;
  switch (code) {
    case 'ENOTDIR':
    case 'EEXIST':
      return new InputError(
        `--out ${outDir} is not a folder, or a file stands where ${name} makes a folder in it (${detail}).`,
        'Give --out a folder path (it is made when missing), or remove that file.',
      );
    case 'EISDIR':
      return new InputError(
        `${name} cannot write its file in ${outDir}: a folder stands where a file goes (${detail}).`,
        'Remove that folder, or give --out another folder.',
      );
    case 'EACCES':
    case 'EPERM':
      return new OperationError(
        `${name} may not write into ${outDir}: permission denied.`,
        'Give --out a folder you can write to, or change its permissions.',
      );
    case 'EROFS':
      return new OperationError(
        `${name} cannot write into ${outDir}: the file system is read-only.`,
        'Give --out a folder on a writable disk.',
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new OperationError(
        `The disk holding ${outDir} is full; ${name} stopped ${command.leaves}.`,
        `Free some space on that disk, or give --out a folder on another, and ${name} again.`,
      );
    default:
      return error;
  }
}
