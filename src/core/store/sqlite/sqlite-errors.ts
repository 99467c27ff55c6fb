import { accessSync, constants, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ListminerError } from '../../errors.js';
import { StoreFailure } from '../store-failure.js';

/**
 * SQLite's failures of the file itself (locked, full, read-only, not a
 * database) as a StoreFailure naming the file; errors of a statement (a
 * constraint) pass through for the caller to handle.
 */
export function explainSqliteError(error: unknown, path: string, busyTimeoutMs: number): unknown {
  if (error instanceof ListminerError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return error;
  const detail = error instanceof Error ? error.message : String(error);
  const fail = (message: string, hint: string) => new StoreFailure(message, hint, code);
  const kind = code.replace(/^(SQLITE_[A-Z]+?)(_[A-Z_]+)?$/, '$1');
  switch (kind) {
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return fail(
        `The SQLite database ${path} is locked: another process held its write lock for more than ${formatSeconds(busyTimeoutMs)}.`,
        'Another listminer, or another program, is writing to it. Run again when it has finished (nothing of the unfinished batch was written), or wait longer with LISTMINER_SQLITE_BUSY_TIMEOUT=SECONDS.',
      );
    case 'SQLITE_FULL':
      return fail(
        `The disk holding the SQLite database ${path} is full; nothing half-written was kept.`,
        'Free some space on that disk and run again: what was written before is kept and the run resumes from there.',
      );
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
    case 'SQLITE_AUTH':
      return fail(
        `The SQLite database ${path} is read-only: listminer cannot write to it (${detail}).`,
        readOnlyHint(path),
      );
    case 'SQLITE_NOTADB':
      return fail(
        `${path} is not a SQLite database.`,
        'Point --db at a listminer database file, or at a new path to create one.',
      );
    case 'SQLITE_CORRUPT':
      return fail(
        `The SQLite database ${path} is damaged (${detail}).`,
        'Restore it from a copy, or start a new database with another --db path.',
      );
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_IOERR':
      return explainUnopenable(path, detail, code);
    default:
      return error;
  }
}

function explainUnopenable(path: string, detail: string, code: string): StoreFailure {
  const stat = statOrUndefined(path);
  if (stat?.isDirectory()) {
    return new StoreFailure(
      `${path} is a folder, not a database file.`,
      `Give a file path, for example ${path.replace(/\/+$/, '')}/listminer.db.`,
      code,
    );
  }
  // SQLite writes the file, and beside it the -wal and -shm files, so both must be writable.
  if (!writable(stat ? path : dirname(path)) || !writable(dirname(path))) {
    return new StoreFailure(
      `The SQLite database ${path} is read-only: listminer cannot write to it.`,
      readOnlyHint(path),
      code,
    );
  }
  return new StoreFailure(
    `Cannot read or write the SQLite database ${path} (${detail}).`,
    'Check the disk and the permissions of the file and its folder, then run again.',
    code,
  );
}

function readOnlyHint(path: string): string {
  return `Make ${basename(path)} and its folder writable (SQLite also writes ${basename(path)}-wal and ${basename(path)}-shm beside it), or copy it somewhere writable.`;
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * A file removed or replaced under an open SQLite connection goes on taking
 * writes into the unlinked inode, and they vanish when the process ends.
 */
export function fileReplacedFailure(path: string): StoreFailure {
  return new StoreFailure(
    `The SQLite database ${path} was removed or replaced while listminer had it open; what this run wrote since then is not in the file at that path.`,
    'Put the database back (or point --db at the file you mean) and run again: the stages resume from what that file holds.',
    'FILE_REPLACED',
  );
}
