import type { ListRecord } from '../store/list-records.js';
import type { SystemDefinition } from '../systems/load-systems.js';

/** A month as the archives file mail: `2024-03`. */
export type Month = string;

/** One message as an archive handed it over: its bytes, and where it came from. */
export interface RawMessage {
  raw: Buffer;
  /** Archive reference for this copy (commit id, file name, offset), for errors and deletions. */
  sourceRef?: string;
}

/** A public-inbox `d` commit: the archive withdrew a message it had published. */
export interface ArchiveDeletion {
  kind: 'deletion';
  raw: Buffer;
  sourceRef: string;
  deletedAt?: string;
}

export type ArchiveItem = RawMessage | ArchiveDeletion;

export function isDeletion(item: ArchiveItem): item is ArchiveDeletion {
  return (item as ArchiveDeletion).kind === 'deletion';
}

/** A list found in an archive's catalogue, for `lists discover`. */
export interface DiscoveredList {
  name: string;
  listAddress?: string;
  listId?: string;
  repoUrl?: string;
}

/** An entry of a local source that could not be read (a dangling symlink, a FIFO, a file without permission), and why. */
export interface SkippedEntry {
  path: string;
  reason: string;
}

/** What a source needs to know about the list it reads. */
export interface SourceContext {
  list: ListRecord;
  system: SystemDefinition;
  /** The list's base URL override, else the system's. */
  baseUrl?: string;
  /** User-Agent contact, from the config file. */
  contactEmail?: string;
  /** Folder where sources may keep clones and caches between runs. */
  cacheDir: string;
  signal?: AbortSignal;
  /**
   * Where a local source reports an entry it skips while it reads the rest.
   * `month` is given when the skip left that month's read incomplete, so the
   * month is read again next time.
   */
  onSkippedEntry?(entry: SkippedEntry, month?: Month): void;
}

/**
 * One archive system. Adding a backend is one file that implements this and
 * a line in the source registry, plus a systems.yaml entry.
 */
export interface ArchiveSource {
  readonly name: string;
  /** The oldest month the archive holds for this list, or undefined when it holds nothing. */
  firstMonth(context: SourceContext): Promise<Month | undefined>;
  /** The last month that can hold mail (usually the current one). */
  lastMonth?(context: SourceContext): Promise<Month>;
  /** Every message filed under the month, streamed: never the whole month in memory. */
  fetchMonth(context: SourceContext, month: Month): AsyncIterable<ArchiveItem>;
  /**
   * For sources whose months change after they were read (local files and
   * Maildirs): a fingerprint of what each month holds now, for every month
   * that holds mail. A month whose fingerprint differs from the one stored
   * at its checkpoint is read again (docs/fetch.md).
   */
  monthFingerprints?(context: SourceContext): Promise<Map<Month, string>>;
  /** The archive's catalogue of lists, where it has one. */
  enumerateLists?(context: Omit<SourceContext, 'list'> & { domain?: string }): Promise<DiscoveredList[]>;
  /** Called once when the fetch of this list ends, however it ends. */
  close?(): Promise<void>;
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

export function isTransient(error: unknown): boolean {
  return error instanceof ArchiveError && error.kind !== 'permanent';
}
