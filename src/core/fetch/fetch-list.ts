import type { MailAccount } from '../config/mail-accounts.js';
import { ArchiveError, PartialMonthError } from '../errors.js';
import { isDeletion, type ArchiveSource, type Month, type SkippedEntry, type SourceContext } from '../archive/archive-source.js';
import { identifyMessage } from '../archive/message-key.js';
import { isSameMail } from '../archive/same-mail.js';
import { addMonths, monthOf } from '../archive/month.js';
import { BATCH_BYTES, BATCH_MESSAGES } from '../pipeline/batch-bytes.js';
import type { ProgressListener } from '../progress.js';
import type { LockOwner } from '../locks/lock-owner.js';
import type { DeletionToRecord } from '../store/fetch-state-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { MessageToStage } from '../store/staging-records.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Store } from '../store/store.js';
import type { TableStatistics } from '../store/table-statistics.js';
import type { SystemDefinition } from '../systems/load-systems.js';
import { tooLargeReason } from '../pipeline/too-large-reason.js';
import { planMonths } from './plan-months.js';

export interface ListFetchResult {
  listId: number;
  system: string;
  list: string;
  /** done: reached the present; failed: stopped by an error (retried later); interrupted: stopped by Ctrl-C; skipped: not claimed. */
  status: 'done' | 'failed' | 'interrupted' | 'skipped';
  monthsPlanned: number;
  monthsFetched: number;
  /** Messages the archive handed over, duplicates included. */
  seen: number;
  staged: number;
  duplicates: number;
  deletions: number;
  /** Entries of a local source that could not be read and were skipped (also shown by `lists ls`). */
  skippedEntries?: SkippedEntry[];
  /** Why a list named with --list was not claimed. */
  reason?: string;
  /** The list's gap months after the run: months that failed GAP_AFTER runs in a row, gone past and tried again each run. */
  gaps?: Month[];
  /** The failure that stopped the list, if one did. */
  error?: { kind: ArchiveError['kind'] | 'error'; message: string; month?: Month; retryAfter?: string; sidelined?: boolean };
  /** The process that did the work (several processes may share a database). */
  pid: number;
}

export interface ListFetchSettings {
  owner: LockOwner;
  full: boolean;
  months?: number;
  backfillMonths?: number;
  contactEmail?: string;
  cacheDir: string;
  mailAccounts?: readonly MailAccount[];
  /** A message larger than this is staged shunted with its bytes, never parsed. */
  maxMessageBytes: number;
  signal?: AbortSignal;
  clock: () => Date;
  /** The run's count of rows staged, for PostgreSQL's statistics of the table (TableStatistics): one for all the lists of a run. */
  statistics: TableStatistics;
}

/** Thrown inside a fetch when Ctrl-C arrives: not a failure of the list. */
class Interrupted extends Error {}

/**
 * Fetches one claimed list: from its checkpoint through the present, month
 * by month, staging in batches and checkpointing each month in the
 * transaction of its last batch. The caller holds the lock and releases it.
 */
export async function fetchList(
  store: Store,
  list: ListRecord,
  system: SystemDefinition,
  source: ArchiveSource,
  settings: ListFetchSettings,
  progress: ProgressListener,
): Promise<ListFetchResult> {
  const task = `${list.system}:${list.name}`;
  const result = emptyListResult(list, 'done', settings.owner.pid);
  const context: SourceContext = {
    list,
    system,
    baseUrl: list.baseUrl ?? system.baseUrl,
    contactEmail: settings.contactEmail,
    cacheDir: settings.cacheDir,
    mailAccounts: settings.mailAccounts,
    signal: settings.signal,
  };
  // Skipped entries, and the months whose read one left unfinished (their fingerprint is not kept, so they are read again).
  const skipped = new Map<string, string>();
  const unfinished = new Set<Month>();
  context.onSkippedEntry = (entry, month) => {
    skipped.set(entry.path, entry.reason);
    if (month) unfinished.add(month);
  };
  const recordSkipped = async (complete: boolean) => {
    await store.fetchState.recordSkippedEntries(list.id, skipped, settings.clock(), complete);
    if (skipped.size) result.skippedEntries = [...skipped].map(([path, reason]) => ({ path, reason }));
  };
  progress({ type: 'start', task, title: `${list.system} ${list.name}` });
  /** The month being read, for the failure's sentence. */
  let reading: Month | undefined;
  try {
    const { months, fingerprints } = await monthsToFetch(store, list, source, context, settings);
    const fingerprintOf = (month: Month) => (fingerprints && !unfinished.has(month) ? (fingerprints.get(month) ?? '') : null);
    result.monthsPlanned = months.length;
    progress({ type: 'update', task, done: 0, total: months.length, detail: months.length ? `from ${months[0]}` : 'up to date' });
    for (const month of months) {
      reading = month;
      try {
        await fetchOneMonth(store, list.id, month, source, context, settings, result, fingerprintOf, (detail) =>
          progress({ type: 'update', task, done: result.monthsFetched, detail }),
        );
      } catch (error) {
        if (!(await leftAsGap(store, list.id, month, error, settings))) throw error;
        progress({ type: 'update', task, done: result.monthsFetched, detail: `${month} left as a gap: ${errorMessage(error)}` });
        continue;
      }
      result.monthsFetched++;
      progress({ type: 'update', task, done: result.monthsFetched, detail: `${month}  ${result.staged} staged` });
    }
    await recordSkipped(true);
    const gaps = await store.fetchState.gapMonths(list.id);
    if (gaps.length) result.gaps = gaps;
    // A list with gaps has not been read whole: it stays incomplete, so every run takes it and tries them again.
    await store.fetchState.recordScan(list.id, gaps.length === 0, settings.clock());
    const skips = skipped.size ? `, ${skipped.size} unreadable entries skipped (lists ls --json names them)` : '';
    const holes = gaps.length ? `, ${gaps.length === 1 ? 'a gap' : `${gaps.length} gaps`} at ${gaps.join(', ')} (lists ls shows why)` : '';
    progress({ type: 'end', task, status: 'done', detail: `${result.monthsFetched} months, ${result.staged} staged, ${result.duplicates} already stored${skips}${holes}` });
  } catch (error) {
    if (error instanceof Interrupted || settings.signal?.aborted) {
      result.status = 'interrupted';
      progress({ type: 'end', task, status: 'skipped', detail: `interrupted after ${result.monthsFetched} months` });
      return result;
    }
    // The database failing is not the list's fault: no retry wait, no sidelining; the run stops.
    if (error instanceof StoreFailure) throw error;
    result.status = 'failed';
    const kind = error instanceof ArchiveError ? error.kind : 'error';
    const message = errorMessage(error);
    const asked = error instanceof ArchiveError ? error.retryAfterMs : undefined;
    await recordSkipped(false);
    const failure = await store.fetchState.recordFailure(list.id, reading ? `${reading}: ${message}` : message, settings.clock(), asked);
    result.error = { kind, message, ...(reading ? { month: reading } : {}), retryAfter: failure.retryAfter, sidelined: failure.sidelined };
    progress({ type: 'end', task, status: 'failed', detail: message });
  }
  return result;
}

/**
 * Counts a month's failure and tells whether the fetch goes past it: at its
 * GAP_AFTER-th failing run in a row the month is a gap, and the months after
 * it are read. A rate limit is the host's answer and a permanent error the
 * list's (no such list, no base URL), not the month's; Ctrl-C and the
 * database failing are no failures of the month.
 */
async function leftAsGap(store: Store, listId: number, month: Month, error: unknown, settings: ListFetchSettings): Promise<boolean> {
  if (error instanceof Interrupted || error instanceof StoreFailure || settings.signal?.aborted) return false;
  if (error instanceof ArchiveError && error.kind !== 'transient') return false;
  const { gap } = await store.fetchState.recordMonthFailure(listId, month, errorMessage(error), settings.clock());
  return gap;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function monthsToFetch(
  store: Store,
  list: ListRecord,
  source: ArchiveSource,
  context: SourceContext,
  settings: ListFetchSettings,
): Promise<{ months: Month[]; fingerprints?: Map<Month, string> }> {
  // A local source's months change under it: its first month and each month's content are looked at every time.
  const fingerprints = source.monthFingerprints ? await source.monthFingerprints(context) : undefined;
  let firstMonth = list.firstMonth ?? undefined;
  if (!list.lastMonth || settings.full || !firstMonth || fingerprints) {
    firstMonth = await source.firstMonth(context);
    if (firstMonth !== (list.firstMonth ?? undefined)) await store.fetchState.setFirstMonth(list.id, firstMonth ?? null);
  }
  const lastArchiveMonth = source.lastMonth ? await source.lastMonth(context) : monthOf(settings.clock());
  const lastCheckpointAt = list.lastMonth ? await store.fetchState.checkpointedAt(list.id, list.lastMonth) : undefined;
  // A source that files mail late (pipermail: weeks) may still add to the months before the last one.
  const recentCheckpoints = new Map<Month, string>();
  for (const back of list.lastMonth && source.monthSettleMs !== undefined ? [1, 2] : []) {
    const month = addMonths(list.lastMonth!, -back);
    const at = await store.fetchState.checkpointedAt(list.id, month);
    if (at) recentCheckpoints.set(month, at);
  }
  const earliestFetched = list.lastMonth && fingerprints ? await store.fetchState.earliestFetched(list.id) : undefined;
  const changedMonths = list.lastMonth && fingerprints ? monthsChanged(await store.fetchState.monthFingerprints(list.id), fingerprints) : undefined;
  const months = planMonths({
    lastMonth: list.lastMonth,
    lastCheckpointAt,
    settleMs: source.monthSettleMs,
    recentCheckpoints,
    firstMonth,
    earliestFetched,
    changedMonths,
    coversHistory: Boolean(earliestFetched && list.firstMonth && earliestFetched <= list.firstMonth),
    whole: source.local,
    lastArchiveMonth,
    now: settings.clock(),
    full: settings.full,
    months: settings.months,
    backfillMonths: settings.backfillMonths,
  });
  // Gap months lie behind the checkpoint: each run tries them again, oldest first.
  const gaps = (await store.fetchState.gapMonths(list.id)).filter((month) => month <= lastArchiveMonth);
  return { months: gaps.length ? [...new Set([...gaps, ...months])].sort() : months, fingerprints };
}

/** Months checkpointed before whose content is not what it was then (no fingerprint stored counts as changed). */
function monthsChanged(stored: ReadonlyMap<Month, string | null>, current: ReadonlyMap<Month, string>): Month[] {
  return [...stored].filter(([month, fingerprint]) => fingerprint !== (current.get(month) ?? '')).map(([month]) => month);
}

async function fetchOneMonth(
  store: Store,
  listId: number,
  month: Month,
  source: ArchiveSource,
  context: SourceContext,
  settings: ListFetchSettings,
  result: ListFetchResult,
  fingerprintOf: (month: Month) => string | null,
  report: (detail: string) => void,
): Promise<void> {
  let messages: MessageToStage[] = [];
  let deletions: DeletionToRecord[] = [];
  let bytes = 0;
  let seen = 0;
  let staged = 0;
  // The batch being written while the next is read: the database's time (a
  // PostgreSQL server's above all) overlaps reading and hashing the mail.
  let writing: Promise<void> = Promise.resolve();
  const commit = async (batch: MessageToStage[], withdrawn: DeletionToRecord[], last: boolean) => {
    // Counted once committed: a batch that fails (a full disk) was never stored.
    const written = await store.transaction(async (tx) => {
      const outcome = await tx.staging.stage(listId, month, batch, isSameMail);
      const recorded = await tx.fetchState.recordDeletions(listId, withdrawn);
      if (last) {
        await tx.staging.checkpoint(listId, { month, seen, staged: staged + outcome.staged, fingerprint: fingerprintOf(month) });
        await tx.fetchState.clearMonthFailure(listId, month);
      }
      await tx.locks.touch(listId, 'fetch', settings.owner);
      return { ...outcome, recorded };
    });
    await settings.statistics.grew(written.staged);
    staged += written.staged;
    result.staged += written.staged;
    result.duplicates += written.duplicates;
    result.deletions += written.recorded;
  };
  /** Starts writing what was read, once the batch before it is written: one batch at a time, in order, the month's checkpoint with the last. */
  const write = async (last: boolean) => {
    const batch = messages;
    const withdrawn = deletions;
    messages = [];
    deletions = [];
    bytes = 0;
    await writing;
    writing = commit(batch, withdrawn, last);
    writing.catch(() => {}); // awaited before the next batch and before the month ends; this only keeps it from going unhandled meanwhile
  };
  try {
    for await (const item of source.fetchMonth(context, month)) {
      const identity = identifyMessage(item.raw, isDeletion(item) ? undefined : item.headers);
      if (isDeletion(item)) {
        deletions.push({ messageKey: identity.key, sourceRef: item.sourceRef, deletedAt: item.deletedAt });
      } else {
        const shunt = item.raw.length > settings.maxMessageBytes ? tooLargeReason(item.raw.length, settings.maxMessageBytes) : undefined;
        messages.push({ raw: item.raw, ...identity, ...(shunt ? { shunt } : {}) });
        bytes += item.raw.length;
        seen++;
        result.seen++;
      }
      // A batch is written when it holds BATCH_MESSAGES messages or BATCH_BYTES of mail, whichever comes first.
      if (messages.length >= BATCH_MESSAGES || bytes >= BATCH_BYTES || deletions.length >= BATCH_MESSAGES) {
        await write(false);
        report(`${month}  ${result.staged} staged`);
      }
      if (settings.signal?.aborted) {
        // What was read is written (without the checkpoint); the month is read again next time.
        await write(false);
        throw new Interrupted();
      }
    }
    await write(true);
  } catch (error) {
    // The intact part of a month read in part (a cut file) is kept; the month is not checkpointed.
    if (error instanceof PartialMonthError) await write(false);
    throw error;
  } finally {
    // Nothing returns or fails past a write still going: its failure (the database's) is the one reported.
    await writing;
  }
}

/** A list's result before anything was fetched. */
export function emptyListResult(list: ListRecord, status: ListFetchResult['status'], pid: number): ListFetchResult {
  return {
    listId: list.id,
    system: list.system,
    list: list.name,
    status,
    monthsPlanned: 0,
    monthsFetched: 0,
    seen: 0,
    staged: 0,
    duplicates: 0,
    deletions: 0,
    pid,
  };
}
