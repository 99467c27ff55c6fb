import type { MailAccount } from '../config/mail-accounts.js';
import { ArchiveError, PartialMonthError } from '../errors.js';
import {
  isDeletion,
  type ArchiveItem,
  type ArchiveSource,
  type Month,
  type SkippedEntry,
  type SourceContext,
} from '../archive/archive-source.js';
import { identifyMessage } from '../archive/message-key.js';
import { isSameMail } from '../archive/same-mail.js';
import { addMonths, monthOf } from '../archive/month.js';
import { BATCH_BYTES, BATCH_MESSAGES } from '../pipeline/batch-bytes.js';
import type { ProgressListener } from '../progress.js';
import type { LockOwner } from '../locks/lock-owner.js';
import type { DeletionToRecord } from '../store/fetch-state-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { LabelProvenance, MessageToStage, StageOptions, StageResult } from '../store/staging-records.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Store } from '../store/store.js';
import type { TableStatistics } from '../store/table-statistics.js';
import type { SystemDefinition } from '../systems/load-systems.js';
import { tooLargeReason } from '../pipeline/too-large-reason.js';
import { overlapBatches } from '../pipeline/overlap-batches.js';
import type { ArrivalClassifier, ArrivalVerdicts } from '../classify/classify-on-arrival.js';
import type { ArrivalDrainer } from '../drain/drain-on-arrival.js';
import { isGapMonth, recordListFailure } from './fetch-policy.js';
import { planMonths } from './plan-months.js';

export interface ListFetchResult {
  listId: number;
  system: string;
  list: string;
  /** done: reached the present; failed: stopped by an error (retried later); interrupted: stopped by Ctrl-C; skipped: not claimed. */
  status: 'done' | 'failed' | 'interrupted' | 'skipped';
  monthsPlanned: number;
  monthsFetched: number;
  /** Messages the archive handed over that this run wrote, duplicates included; a batch a stop or a failure left unwritten is read again next time, and counted then. */
  seen: number;
  staged: number;
  /** Of the staged, those staged shunted, unparsed: larger than max_message_bytes (their raw bytes are kept). */
  tooLarge: number;
  duplicates: number;
  deletions: number;
  /** Entries of a local source that could not be read and were skipped (also shown by `lists ls`). */
  skippedEntries?: SkippedEntry[];
  /** Why a list named with --list was not claimed. */
  reason?: string;
  /** The list's gap months after the run: months that failed run after run (fetch-policy.ts), gone past and tried again each run. */
  gaps?: Month[];
  /** The failure that stopped the list, if one did. */
  error?: {
    kind: ArchiveError['kind'] | 'error';
    message: string;
    /** What the user can do about it, when the archive's error says (ArchiveError's hint). */
    hint?: string;
    month?: Month;
    retryAfter?: string;
    sidelined?: boolean;
  };
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
  mailTimeoutMs?: number;
  /** A message larger than this is staged shunted with its bytes, never parsed. */
  maxMessageBytes: number;
  signal?: AbortSignal;
  clock: () => Date;
  /** The run's count of rows staged, for PostgreSQL's statistics of the table (TableStatistics): one for all the lists of a run. */
  statistics: TableStatistics;
  /** sync's: labels each batch while it is read and written, and saves the labels of what was staged. */
  arrivals?: ArrivalClassifier;
  /** sync's: drains each labelled batch once it is staged, where the list allows (ArrivalDrainer.begin). */
  drainer?: ArrivalDrainer;
}

/** Thrown inside a fetch when Ctrl-C arrives: not a failure of the list. */
class Interrupted extends Error {}

/**
 * Fetches one claimed list: from its checkpoint through the present, month
 * by month, staging in batches and checkpointing each month in the
 * transaction of its last batch. The caller holds the lock and releases it.
 */
export function fetchList(
  store: Store,
  list: ListRecord,
  system: SystemDefinition,
  source: ArchiveSource,
  settings: ListFetchSettings,
  progress: ProgressListener,
): Promise<ListFetchResult> {
  return new ListFetch(store, list, system, source, settings, progress).run();
}

/** A batch of one month as read from the source, to be staged in one transaction. */
interface MonthBatch {
  messages: MessageToStage[];
  deletions: DeletionToRecord[];
  bytes: number;
  /** The month's last batch: the month is checkpointed with it. */
  last: boolean;
}

/** One list's fetch: what its months share (the source, its context, the result so far). */
class ListFetch {
  private readonly task: string;
  private readonly result: ListFetchResult;
  private readonly context: SourceContext;
  /** Entries a local source skipped, by path, with why. */
  private readonly skipped = new Map<string, string>();
  /** Months whose read skipped an entry: their fingerprint is not kept, so they are read again. */
  private readonly unfinished = new Set<Month>();
  private fingerprints: Map<Month, string> | undefined;

  constructor(
    private readonly store: Store,
    private readonly list: ListRecord,
    system: SystemDefinition,
    private readonly source: ArchiveSource,
    private readonly settings: ListFetchSettings,
    private readonly progress: ProgressListener,
  ) {
    this.task = `${list.system}:${list.name}`;
    this.result = emptyListResult(list, 'done', settings.owner.pid);
    this.context = {
      list,
      system,
      baseUrl: list.baseUrl ?? system.baseUrl,
      contactEmail: settings.contactEmail,
      cacheDir: settings.cacheDir,
      mailAccounts: settings.mailAccounts,
      mailTimeoutMs: settings.mailTimeoutMs,
      signal: settings.signal,
      onSkippedEntry: (entry, month) => {
        this.skipped.set(entry.path, entry.reason);
        if (month) this.unfinished.add(month);
      },
    };
  }

  async run(): Promise<ListFetchResult> {
    const { store, list, settings, result, task } = this;
    this.progress({ type: 'start', task, title: `${list.system} ${list.name}` });
    /** The month being read, for the failure's sentence. */
    let reading: Month | undefined;
    try {
      // A first scan of the whole history that stops before its first checkpoint is taken up whole by the next run.
      if (settings.full && !list.lastMonth && !list.fullScanPending)
        await store.fetchState.markFullScanPending(list.id);
      const months = await this.monthsToFetch();
      result.monthsPlanned = months.length;
      this.progress({
        type: 'update',
        task,
        done: 0,
        total: months.length,
        detail: months.length ? `from ${months[0]}` : 'up to date',
      });
      for (const month of months) {
        reading = month;
        try {
          await this.fetchMonth(month);
        } catch (error) {
          if (!(await this.leftAsGap(month, error))) throw error;
          this.progress({
            type: 'update',
            task,
            done: result.monthsFetched,
            detail: `${month} left as a gap: ${errorMessage(error)}`,
          });
          continue;
        }
        result.monthsFetched++;
        this.progress({
          type: 'update',
          task,
          done: result.monthsFetched,
          detail: `${month}  ${result.staged} staged`,
        });
      }
      await this.recordSkipped(true);
      const gaps = await store.fetchState.gapMonths(list.id);
      if (gaps.length) result.gaps = gaps;
      // A list with gaps has not been read whole: it stays incomplete, so every run takes it and tries them again.
      await store.fetchState.recordScan(list.id, gaps.length === 0, settings.clock());
      const skips = this.skipped.size
        ? `, ${this.skipped.size} unreadable entries skipped (lists ls --json names them)`
        : '';
      const holes = gaps.length
        ? `, ${gaps.length === 1 ? 'a gap' : `${gaps.length} gaps`} at ${gaps.join(', ')} (lists ls shows why)`
        : '';
      this.progress({
        type: 'end',
        task,
        status: 'done',
        detail: `${result.monthsFetched} months, ${stagedCount(result)}, ${result.duplicates} already stored${skips}${holes}`,
      });
    } catch (error) {
      if (error instanceof Interrupted || settings.signal?.aborted) {
        result.status = 'interrupted';
        this.progress({
          type: 'end',
          task,
          status: 'skipped',
          detail: `interrupted after ${result.monthsFetched} months`,
        });
        return result;
      }
      // The database failing is not the list's fault: no retry wait, no sidelining; the run stops.
      if (error instanceof StoreFailure) throw error;
      result.status = 'failed';
      const kind = error instanceof ArchiveError ? error.kind : 'error';
      const message = errorMessage(error);
      const asked = error instanceof ArchiveError ? error.retryAfterMs : undefined;
      const hint = error instanceof ArchiveError ? error.hint : undefined;
      await this.recordSkipped(false);
      const failure = await recordListFailure(
        store,
        list.id,
        reading ? `${reading}: ${message}` : message,
        settings.clock(),
        asked,
      );
      result.error = {
        kind,
        message,
        ...(hint ? { hint } : {}),
        ...(reading ? { month: reading } : {}),
        retryAfter: failure.retryAfter,
        sidelined: failure.sidelined,
      };
      this.progress({ type: 'end', task, status: 'failed', detail: message });
    }
    return result;
  }

  private async recordSkipped(complete: boolean): Promise<void> {
    await this.store.fetchState.recordSkippedEntries(this.list.id, this.skipped, this.settings.clock(), complete);
    if (this.skipped.size) this.result.skippedEntries = [...this.skipped].map(([path, reason]) => ({ path, reason }));
  }

  /**
   * Counts a month's failure and tells whether the fetch goes past it: at
   * the failing run in a row that makes it a gap (fetch-policy.ts) the months
   * after it are read. A rate limit is the host's answer and a permanent
   * error the list's (no such list, no base URL), not the month's; Ctrl-C
   * and the database failing are no failures of the month.
   */
  private async leftAsGap(month: Month, error: unknown): Promise<boolean> {
    if (error instanceof Interrupted || error instanceof StoreFailure || this.settings.signal?.aborted) return false;
    if (error instanceof ArchiveError && error.kind !== 'transient') return false;
    const { gap } = await this.store.fetchState.recordMonthFailure(
      this.list.id,
      month,
      errorMessage(error),
      this.settings.clock(),
      isGapMonth,
    );
    return gap;
  }

  private async monthsToFetch(): Promise<Month[]> {
    const { store, list, source, context, settings } = this;
    // A local source's months change under it: its first month and each month's content are looked at every time.
    const fingerprints = source.monthFingerprints ? await source.monthFingerprints(context) : undefined;
    this.fingerprints = fingerprints;
    let firstMonth = list.firstMonth ?? undefined;
    const full = settings.full || (list.fullScanPending && !list.lastMonth);
    if (!list.lastMonth || full || !firstMonth || fingerprints) {
      firstMonth = await source.firstMonth(context);
      if (firstMonth !== (list.firstMonth ?? undefined))
        await store.fetchState.setFirstMonth(list.id, firstMonth ?? null);
    }
    const lastArchiveMonth = source.lastMonth ? await source.lastMonth(context) : monthOf(settings.clock());
    const lastCheckpointAt = list.lastMonth
      ? await store.fetchState.checkpointedAt(list.id, list.lastMonth)
      : undefined;
    // A source that files mail late (pipermail: weeks) may still add to the months before the last one.
    const recentCheckpoints = new Map<Month, string>();
    for (const back of list.lastMonth && source.monthSettleMs !== undefined ? [1, 2] : []) {
      const month = addMonths(list.lastMonth!, -back);
      const at = await store.fetchState.checkpointedAt(list.id, month);
      if (at) recentCheckpoints.set(month, at);
    }
    const earliestFetched =
      list.lastMonth && fingerprints ? await store.fetchState.earliestFetched(list.id) : undefined;
    const changedMonths =
      list.lastMonth && fingerprints
        ? monthsChanged(await store.fetchState.monthFingerprints(list.id), fingerprints)
        : undefined;
    const { gaps, failing } = await store.fetchState.failedMonths(list.id);
    const months = planMonths({
      lastMonth: list.lastMonth,
      lastCheckpointAt,
      settleMs: source.monthSettleMs,
      recentCheckpoints,
      firstMonth,
      earliestFetched,
      changedMonths,
      failedMonths: failing,
      coversHistory: Boolean(earliestFetched && list.firstMonth && earliestFetched <= list.firstMonth),
      whole: source.local,
      lastArchiveMonth,
      now: settings.clock(),
      full,
      months: settings.months,
      backfillMonths: settings.backfillMonths,
    });
    // Gap months lie behind the checkpoint: each run tries them again, oldest first.
    const behind = gaps.filter((month) => month <= lastArchiveMonth);
    return behind.length ? [...new Set([...behind, ...months])].sort() : months;
  }

  /** The fingerprint a month is checkpointed with: null for a source without them, or a month whose read skipped an entry. */
  private fingerprintOf(month: Month): string | null {
    return this.fingerprints && !this.unfinished.has(month) ? (this.fingerprints.get(month) ?? '') : null;
  }

  /**
   * Stages one month: a batch is staged while the next is read (the
   * database's time, a PostgreSQL server's above all, overlaps reading and
   * hashing the mail), one batch at a time and in order, the month's
   * checkpoint with the last.
   */
  private async fetchMonth(month: Month): Promise<void> {
    const items = this.source.fetchMonth(this.context, month)[Symbol.asyncIterator]();
    const tally = { seen: 0, staged: 0 };
    /** The source handed over the whole month. */
    let ended = false;
    /** The signal came: what was read is written, without the checkpoint; the month is read again next time. */
    let stopped = false;
    /** A month read in part (a cut file): its intact part is written, not checkpointed, then the error is raised. */
    let cut: PartialMonthError | undefined;
    const read = async (): Promise<MonthBatch | undefined> => {
      if (cut) throw cut;
      if (ended || stopped) return undefined;
      if (this.settings.signal?.aborted) {
        stopped = true;
        return undefined;
      }
      const batch: MonthBatch = { messages: [], deletions: [], bytes: 0, last: false };
      try {
        for (;;) {
          const next = await items.next();
          if (next.done) {
            ended = true;
            batch.last = true;
            return batch;
          }
          this.take(next.value, batch);
          // A batch is written when it holds BATCH_MESSAGES messages or BATCH_BYTES of mail, whichever comes first.
          if (
            batch.messages.length >= BATCH_MESSAGES ||
            batch.bytes >= BATCH_BYTES ||
            batch.deletions.length >= BATCH_MESSAGES
          )
            return batch;
          if (this.settings.signal?.aborted) {
            stopped = true;
            return batch;
          }
        }
      } catch (error) {
        if (!(error instanceof PartialMonthError)) throw error;
        cut = error;
        return batch;
      }
    };
    const { arrivals, drainer } = this.settings;
    try {
      await overlapBatches({
        read,
        // Labelling a batch (on a worker) overlaps writing the one before it and reading the one after.
        ...(arrivals ? { prepare: (batch: MonthBatch) => arrivals.judge(this.list, batch.messages), depth: 2 } : {}),
        ...(drainer ? { roomFor: () => !drainer.behind(this.list.id) } : {}),
        write: (batch, verdicts) => this.stage(month, batch, tally, verdicts),
      });
    } finally {
      await items.return?.();
    }
    if (stopped) throw new Interrupted();
  }

  /** Adds what the source handed over to the batch, with its identity worked out from its bytes. */
  private take(item: ArchiveItem, batch: MonthBatch): void {
    const identity = identifyMessage(item.raw, isDeletion(item) ? undefined : item.headers);
    if (isDeletion(item)) {
      batch.deletions.push({ messageKey: identity.key, sourceRef: item.sourceRef, deletedAt: item.deletedAt });
      return;
    }
    const { maxMessageBytes } = this.settings;
    const shunt = item.raw.length > maxMessageBytes ? tooLargeReason(item.raw.length, maxMessageBytes) : undefined;
    batch.messages.push({ raw: item.raw, ...identity, ...(shunt ? { shunt } : {}) });
    batch.bytes += item.raw.length;
  }

  /**
   * Stages a batch in one transaction, the month's checkpoint with the last;
   * in sync, with the labels made of its messages on arrival. Counted once
   * committed: a batch that fails (a full disk) was never stored.
   */
  private async stage(
    month: Month,
    batch: MonthBatch,
    tally: { seen: number; staged: number },
    verdicts?: ArrivalVerdicts,
  ): Promise<void> {
    const { store, list, settings, result } = this;
    const { arrivals, drainer } = settings;
    // A batch drained as soon as it is staged keeps its envelopes in memory: they are never written.
    const drainNow = drainer?.takes(list.id) ?? false;
    let written: StageResult & { recorded: number };
    let staged: { messages: readonly MessageToStage[]; provenance?: LabelProvenance } = { messages: batch.messages };
    if (arrivals && verdicts) {
      const labelled = arrivals.labelled(batch.messages, verdicts);
      try {
        written = await this.stageInOne(month, batch, tally, labelled.messages, {
          provenance: labelled.provenance,
          keepEnvelopes: !drainNow,
        });
        arrivals.staged(list, labelled.messages, written.rows);
        staged = labelled;
      } catch (error) {
        if (error instanceof StoreFailure || !(await store.reachable())) throw error;
        // The database refused the batch with its labels (a value it cannot store): the batch goes in without
        // them, and classify's own save labels its rows after, one by one where it must, shunting the one refused.
        written = await this.stageInOne(month, batch, tally, batch.messages);
        await arrivals.save(list, batch.messages, written.rows, verdicts);
      }
    } else written = await this.stageInOne(month, batch, tally, batch.messages);
    if (drainNow) await drainer?.drain(list.id, staged.messages, written.rows, staged.provenance);
    await settings.statistics.grew(written.staged);
    // Counted as written: a batch read and not written (a stop, a failure) is read again next time.
    tally.seen += batch.messages.length;
    result.seen += batch.messages.length;
    tally.staged += written.staged;
    result.staged += written.staged;
    result.tooLarge += written.rows.filter(({ index }) => staged.messages[index]!.shunt !== undefined).length;
    result.duplicates += written.duplicates;
    result.deletions += written.recorded;
    if (!batch.last)
      this.progress({
        type: 'update',
        task: this.task,
        done: result.monthsFetched,
        detail: `${month}  ${result.staged} staged`,
      });
  }

  /** The transaction of `stage`. */
  private stageInOne(
    month: Month,
    batch: MonthBatch,
    tally: { seen: number; staged: number },
    messages: readonly MessageToStage[],
    labels: Pick<StageOptions, 'provenance' | 'keepEnvelopes'> = {},
  ): Promise<StageResult & { recorded: number }> {
    const { list, settings } = this;
    return this.store.transaction(async (tx) => {
      const outcome = await tx.staging.stage(list.id, month, messages, { sameMail: isSameMail, ...labels });
      const recorded = await tx.fetchState.recordDeletions(list.id, batch.deletions);
      if (batch.last) {
        await tx.staging.checkpoint(list.id, {
          month,
          seen: tally.seen + batch.messages.length,
          staged: tally.staged + outcome.staged,
          fingerprint: this.fingerprintOf(month),
        });
        await tx.fetchState.clearMonthFailure(list.id, month);
      }
      await tx.locks.touch(list.id, 'fetch', settings.owner);
      return { ...outcome, recorded };
    });
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Months checkpointed before whose content is not what it was then (no fingerprint stored counts as changed). */
function monthsChanged(stored: ReadonlyMap<Month, string | null>, current: ReadonlyMap<Month, string>): Month[] {
  return [...stored]
    .filter(([month, fingerprint]) => fingerprint !== (current.get(month) ?? ''))
    .map(([month]) => month);
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
    tooLarge: 0,
    duplicates: 0,
    deletions: 0,
    pid,
  };
}

/** `N staged`, and how many of them went in shunted as too large to parse, when any did. */
export function stagedCount({ staged, tooLarge }: { staged: number; tooLarge: number }): string {
  return tooLarge > 0 ? `${staged} staged (${tooLarge} shunted unparsed, over max_message_bytes)` : `${staged} staged`;
}
