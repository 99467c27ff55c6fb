import { ListminerError, InputError, OperationError } from '../errors.js';

/**
 * What the file system said while export wrote its files, as a sentence
 * about the --out folder: a path that cannot be a folder is the user's input
 * (exit 2); a refusal, a read-only or full disk is the machine's (exit 1).
 * Any other error passes through unchanged.
 */
export function explainExportFailure(error: unknown, outDir: string): unknown {
  if (error instanceof ListminerError) return error;
  const code = (error as { code?: string }).code ?? /\b(E[A-Z]{3,})\b/.exec((error as Error)?.message ?? '')?.[1] ?? '';
  const detail = (error as Error)?.message ?? String(error);
  switch (code) {
    case 'ENOTDIR':
    case 'EEXIST':
      return new InputError(
        `--out ${outDir} is not a folder: a file stands at that path or on the way to it.`,
        'Give --out a folder path (it is made when missing).',
      );
    case 'EISDIR':
      return new InputError(
        `export cannot write its file in ${outDir}: a folder stands where a file goes (${detail}).`,
        'Remove that folder, or give --out another folder.',
      );
    case 'EACCES':
    case 'EPERM':
      return new OperationError(
        `export may not write into ${outDir}: permission denied.`,
        'Give --out a folder you can write to, or change its permissions.',
      );
    case 'EROFS':
      return new OperationError(
        `export cannot write into ${outDir}: the file system is read-only.`,
        'Give --out a folder on a writable disk.',
      );
    case 'ENOSPC':
    case 'EDQUOT':
      return new OperationError(
        `The disk holding ${outDir} is full; export stopped and left no partial file under a table's name.`,
        'Free some space on that disk, or give --out a folder on another, and export again.',
      );
    default:
      return error;
  }
}
