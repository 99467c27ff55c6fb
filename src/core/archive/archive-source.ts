import { ArchiveError } from '../errors.js';
import type { MailAccount } from '../config/mail-accounts.js';
import type { HeaderBlock } from './raw-headers.js';

/** A month as the archives file mail: `2024-03`. */
export type Month = string;

/** One message as an archive handed it over: its bytes, and where it came from. */
export interface RawMessage {
  raw: Buffer;
  /** Archive reference for this copy (commit id, file name, offset), for errors and deletions. */
  sourceRef?: string;
  /** The header block of `raw`, when the source has read it already: fetch does not read it again. */
  headers?: HeaderBlock;
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

/** The list a source reads: its name in the archive (address, inbox name or path). */
export interface SourceList {
  id: number;
  name: string;
  listAddress: string | null;
  /** The List-Id that tells the list's mail apart in a mailbox several lists share (imap, pop3). */
  listId?: string | null;
  baseUrl: string | null;
}

/** What a source needs of the list's archive system. */
export interface SourceSystem {
  name: string;
  baseUrl?: string;
}

/** An entry of a local source that could not be read (a dangling symlink, a FIFO, a file without permission), and why. */
export interface SkippedEntry {
  path: string;
  reason: string;
}

/** What a source needs to know about the list it reads. */
export interface SourceContext {
  list: SourceList;
  system: SourceSystem;
  /** The list's base URL override, else the system's. */
  baseUrl?: string;
  /** User-Agent contact, from the config file. */
  contactEmail?: string;
  /** Folder where sources may keep clones and caches between runs. */
  cacheDir: string;
  /** Logins for mailbox sources (imap, pop3), from the config file. */
  mailAccounts?: readonly MailAccount[];
  /** How long an IMAP, POP3 or news server may stay silent before its connection counts as dropped (the config's mail_timeout_seconds). */
  mailTimeoutMs?: number;
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
   * How long after a month ends the archive may still file mail under it
   * (late relays, an archiver that files by the Date header). A month
   * checkpointed before this had passed is read again. Default 2 days
   * (MONTH_SETTLE_MS, src/core/fetch/plan-months.ts).
   */
  readonly monthSettleMs?: number;
  /**
   * For sources whose months change after they were read (local files,
   * Maildirs, pipermail's index): a fingerprint of what each month holds now, for every month
   * that holds mail. A month whose fingerprint differs from the one stored
   * at its checkpoint is read again (docs/fetch.md).
   */
  monthFingerprints?(context: SourceContext): Promise<Map<Month, string>>;
  /**
   * A local archive (a file or folder on this machine): complete and free to
   * read, so fetch reads it whole on its first run and then every month
   * whose fingerprint changed, whatever window the remote lists use, and it
   * is due on every run (src/core/fetch/plan-months.ts).
   */
  readonly local?: boolean;
  /** The archive's catalogue of lists, where it has one. */
  enumerateLists?(context: Omit<SourceContext, 'list'> & { domain?: string }): Promise<DiscoveredList[]>;
  /** Called once when the fetch of this list ends, however it ends. */
  close?(): Promise<void>;
}

/** A failure that feeds the host's breaker and leaves the scan incomplete. */
export function isTransient(error: unknown): boolean {
  return error instanceof ArchiveError && error.kind !== 'permanent';
}
