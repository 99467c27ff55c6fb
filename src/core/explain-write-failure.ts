import { ListminerError, InputError, OperationError } from './errors.js';

/** The command that writes into --out, and what a full disk leaves behind it. */
export interface WritingCommand {
  name: 'export' | 'render';
  /** After "<name> stopped": what is left, as the user finds it. */
  leaves: string;
}

/**
 * What the file system said while a command wrote its files into --out, as
 * a sentence about that folder: a path that cannot be a folder, or a folder
 * where a file goes, is the user's input (exit 2); a refusal, a read-only or
 * full disk is the machine's (exit 1). Any other error passes through
 * unchanged. The code is also found in the message, for an error that lost
 * it crossing from a worker thread.
 */
export function explainWriteFailure(error: unknown, outDir: string, command: WritingCommand): unknown {
  if (error instanceof ListminerError) return error;
  const code = (error as { code?: string }).code ?? /\b(E[A-Z]{3,})\b/.exec((error as Error)?.message ?? '')?.[1] ?? '';
  const detail = (error as Error)?.message ?? String(error);
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
