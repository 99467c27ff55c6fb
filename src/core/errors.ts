/**
 * Errors a user can act on. Each carries its exit code (the README lists
 * them) and a hint; the command layer prints them as one sentence and the
 * hint. Any other thrown error is a bug and is reported as one.
 */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  verifyGap: 3,
  partial: 4,
  /** Stopped by Ctrl-C or SIGTERM; what was done is kept and the next run resumes (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class ListminerError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** How a hint is printed, under the sentence it belongs to: after an error, after a failed list's line. */
export function hintLine(hint: string): string {
  return `Hint: ${hint}`;
}

/** The user's input (a flag, an argument, a file) is wrong. Exit code 2. */
export class InputError extends ListminerError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.usage, hint);
  }
}

/** Something outside the user's input failed: a database, an archive. Exit code 1. */
export class OperationError extends ListminerError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.failed, hint);
  }
}

/**
 * Why a request to an archive failed. `transient` (5xx, transport error, a
 * body cut short) counts toward the breaker and marks the scan incomplete;
 * `rate_limited` slows the pacer; `permanent` fails the list at once.
 */
export class ArchiveError extends Error {
  constructor(
    message: string,
    readonly kind: 'transient' | 'rate_limited' | 'permanent',
    readonly retryAfterMs?: number,
    /** What the user can do about it, when the kind alone does not say (a host name that does not resolve). */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}

/**
 * A month a source could read only in part (a local gzip file cut short):
 * the messages it handed over before this error are whole and are staged,
 * the month is not checkpointed, and the next fetch reads it again.
 */
export class PartialMonthError extends ArchiveError {
  constructor(message: string) {
    super(message, 'transient');
    this.name = 'PartialMonthError';
  }
}
