import type { ArchiveSource } from '../archive/archive-source.js';
import { openArchiveSource } from '../archive/open-source.js';
import type { ProgressListener } from '../progress.js';
import type { ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import type { ArrivalClassifier } from '../classify/classify-on-arrival.js';
import type { ArrivalDrainer } from '../drain/drain-on-arrival.js';
import type { TableStatistics } from '../store/table-statistics.js';
import { BACKENDS, type BackendName } from '../systems/backend-names.js';
import { requireSystem, type Systems } from '../systems/load-systems.js';
import { emptyListResult, fetchList, type ListFetchResult } from './fetch-list.js';
import { describeWait, isWaiting, recordListFailure } from './fetch-policy.js';
import { describeHold, HostHolds, type HeldByBreaker, type HostHold } from './host-holds.js';
import { currentLockOwner, STALE_LOCK_MS, type LockHolder, type LockOwner } from '../locks/lock-owner.js';
import { selectLists } from '../registry/select-lists.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../config/load-config.js';
import { hintLine } from '../errors.js';
import type { MailAccount } from '../config/mail-accounts.js';

export interface FetchOptions {
  /** --list: only these lists (name or address); named lists are fetched even when sidelined. */
  lists?: readonly string[];
  /** --system: only this system's lists. */
  system?: string;
  /** --now: ignore cadence and retry_after. */
  now?: boolean;
  /** --months: window for lists never scanned. */
  months?: number;
  /** --full: whole history for lists never scanned, and the months before a window already fetched. */
  full?: boolean;
  /** --workers: lists fetched at once. */
  workers?: number;
  cadenceDays: number;
  backfillMonths?: number;
  contactEmail?: string;
  cacheDir: string;
  /** Logins for imap and pop3 mailboxes (the config's mail_accounts). */
  mailAccounts?: readonly MailAccount[];
  /** How long a mail server may stay silent (the config's mail_timeout_seconds). */
  mailTimeoutMs?: number;
  /** A message larger than this is staged shunted, unparsed (the config's max_message_bytes). */
  maxMessageBytes?: number;
  /** Aborting stops the run: the current batch is written, locks are released. */
  signal?: AbortSignal;
  /** Where sources come from; tests pass their own. One source is opened per list fetch and closed after it. */
  openSource?: (backend: BackendName, list: ListRecord) => Promise<ArchiveSource>;
  owner?: LockOwner;
  clock?: () => Date;
  /** sync's: labels what is fetched as it is staged (classify-on-arrival.ts). */
  arrivals?: ArrivalClassifier;
  /** sync's: drains what was labelled as it is staged (drain-on-arrival.ts). */
  drainer?: ArrivalDrainer;
}

/** What fetching takes from the config file and the environment, for fetch and sync alike. */
export type FetchSettings = Pick<
  FetchOptions,
  'cadenceDays' | 'backfillMonths' | 'contactEmail' | 'cacheDir' | 'maxMessageBytes' | 'mailAccounts' | 'mailTimeoutMs'
>;

export interface FetchResult {
  lists: ListFetchResult[];
  totals: {
    lists: number;
    months: number;
    seen: number;
    staged: number;
    tooLarge: number;
    duplicates: number;
    deletions: number;
    failed: number;
  };
  /** The run was stopped by a signal before it ran out of lists. */
  interrupted: boolean;
  /** Hosts whose lists this run left alone, and the lists of its choice they kept back. */
  breakers: HeldByBreaker[];
  /** Lists of this run's choice it left alone because they wait after failing (retry_after, or sidelined), with why. */
  waiting: WaitingList[];
  /** Lists of this run's choice that another process held, so this run left them alone. */
  heldElsewhere: HeldByProcess[];
}

export interface WaitingList {
  system: string;
  list: string;
  /** When the list is tried again; null when it is sidelined (tried only when named with --list). */
  retryAfter: string | null;
  failedRuns: number;
  lastFailure: string | null;
  /** One sentence: the list, until when and why it waits, and how to fetch it anyway. */
  reason: string;
}

export interface HeldByProcess {
  system: string;
  list: string;
  host: string | null;
  pid: number | null;
  /** When the holder last refreshed the lock. */
  since: string;
  /** When a run takes the lock over as abandoned, if its holder never refreshes it again. */
  staleAt: string;
}

/**
 * The fetch stage: claims lists one at a time per worker (never one list
 * twice, never a list another process holds), fetches each from its
 * checkpoint to the present, and records how it went. A list that fails
 * does not stop the others.
 */
export async function fetchLists(
  store: Store,
  systems: Systems,
  options: FetchOptions,
  progress: ProgressListener,
): Promise<FetchResult> {
  if (options.system) requireSystem(systems, options.system);
  // Only named lists become ids: --system alone filters the claim, which still passes over sidelined lists.
  const listIds = options.lists?.length
    ? (await selectLists(store, { names: options.lists, system: options.system })).map((list) => list.id)
    : undefined;
  const run = new FetchRun(store, systems, options, progress);
  const { owner, clock, holds } = run;
  const localSystems = [...systems.systems.values()]
    .filter((system) => BACKENDS[system.backend].locator === 'path')
    .map((system) => system.name);
  const claimed = new Set<number>();
  const results: ListFetchResult[] = [];

  await store.locks.recoverDead('fetch', owner);

  const claim = async (): Promise<ListRecord | undefined> => {
    const blocked = await holds.heldLists();
    return store.fetchState.claimNext({
      owner,
      now: clock(),
      listIds,
      system: options.system,
      excludeIds: [...claimed, ...blocked.keys()],
      ignoreSchedule: Boolean(options.now),
      cadenceDays: options.cadenceDays,
      alwaysDueSystems: localSystems,
    });
  };

  const work = async () => {
    while (!options.signal?.aborted) {
      const list = await claim();
      if (!list) return;
      claimed.add(list.id);
      try {
        results.push(await run.fetchClaimed(list));
      } finally {
        await store.locks.release(list.id, 'fetch', owner);
      }
    }
  };
  // Every worker finishes (and releases its list) before an error from one of them is raised.
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, options.workers ?? 1) }, work));
  const broken = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (broken) throw broken.reason;

  const held = await holds.heldLists();
  const breakers = await holds.keptBack(held, claimed, { listIds, system: options.system }, progress);
  const heldElsewhere = await listsHeldElsewhere(store, owner, claimed, listIds, options.system);
  for (const id of listIds ?? []) {
    if (claimed.has(id)) continue;
    const list = (await store.lists.byId(id))!;
    const hold = held.get(id);
    const holder = heldElsewhere.find((h) => h.list === list.name && h.system === list.system);
    const waits = !options.now && isWaiting(list, clock());
    const reason = hold
      ? describeHold(hold)
      : holder
        ? describeHolder(holder)
        : options.now
          ? 'another process holds it'
          : waits
            ? describeWait(list, false, clock())
            : 'not due yet (--now fetches it anyway)';
    results.push({ ...skipped(list, owner), reason });
    // A list that waits is named with the others that wait (`waiting`).
    if (!hold && !holder && !waits)
      progress({ type: 'log', level: 'info', message: `${list.system} ${list.name} was not fetched: ${reason}` });
  }
  const waiting =
    options.now || options.signal?.aborted
      ? []
      : await listsWaiting(store, clock(), claimed, held, heldElsewhere, listIds, options.system);
  return {
    lists: results,
    totals: total(results),
    interrupted: Boolean(options.signal?.aborted),
    breakers,
    waiting,
    heldElsewhere,
  };
}

/** Lists of the run's choice left alone because they failed before and wait (or are sidelined): a skipped list is always named. */
async function listsWaiting(
  store: Store,
  now: Date,
  claimed: ReadonlySet<number>,
  held: ReadonlyMap<number, HostHold>,
  heldElsewhere: readonly HeldByProcess[],
  listIds: readonly number[] | undefined,
  system: string | undefined,
): Promise<WaitingList[]> {
  const waiting: WaitingList[] = [];
  for (const list of await store.lists.all()) {
    if (
      claimed.has(list.id) ||
      held.has(list.id) ||
      heldElsewhere.some((h) => h.system === list.system && h.list === list.name)
    )
      continue;
    if (listIds ? !listIds.includes(list.id) : system && list.system !== system) continue;
    const sidelined = Boolean(list.sidelinedAt) && !listIds;
    if (!sidelined && !isWaiting(list, now)) continue;
    waiting.push({
      system: list.system,
      list: list.name,
      retryAfter: sidelined ? null : list.retryAfter,
      failedRuns: list.failedAttempts,
      lastFailure: list.lastFailure,
      reason: describeWait(list, sidelined, now),
    });
  }
  return waiting;
}

/**
 * One line per failure of the run, for --quiet and for the summary: the
 * list, the month, the reason (which names the URL), the next try; under it
 * the archive's hint, when its error has one, as an error's hint is printed.
 */
export function describeFailures(result: Pick<FetchResult, 'lists'>): string[] {
  return result.lists
    .filter((list) => list.status === 'failed' && list.error)
    .flatMap((list) => {
      const { error } = list;
      const month = error!.month ? ` ${error!.month}` : '';
      const next = error!.sidelined
        ? `set aside; \`fetch --list ${list.list}\` tries it again`
        : error!.retryAfter
          ? `next try after ${error!.retryAfter}`
          : 'tried again next run';
      const line = `${list.system} ${list.list}${month}: ${error!.message} (${next})`;
      return error!.hint ? [line, hintLine(error!.hint)] : [line];
    });
}

/** Lists of the run's choice it did not claim because another process holds them (a live one, or one on another host). */
async function listsHeldElsewhere(
  store: Store,
  owner: LockOwner,
  claimed: ReadonlySet<number>,
  listIds: readonly number[] | undefined,
  system: string | undefined,
): Promise<HeldByProcess[]> {
  const held: HeldByProcess[] = [];
  for (const list of await store.lists.all()) {
    if (claimed.has(list.id) || list.lockedAt === null) continue;
    if (listIds ? !listIds.includes(list.id) : list.sidelinedAt || (system && list.system !== system)) continue;
    if (list.lockedPid === owner.pid && list.lockedHost === owner.host && list.lockedBootId === owner.bootId) continue;
    held.push(heldByProcess(list, list));
  }
  return held;
}

/** A held lock of a list, as describeHolder names it. */
export function heldByProcess(list: { system: string; name: string }, lock: LockHolder): HeldByProcess {
  const since = lock.lockedAt ?? new Date().toISOString();
  return {
    system: list.system,
    list: list.name,
    host: lock.lockedHost,
    pid: lock.lockedPid,
    since,
    staleAt: new Date(new Date(since).getTime() + STALE_LOCK_MS).toISOString(),
  };
}

/** Who holds a list, since when, and when the lock counts as abandoned. */
export function describeHolder(holder: HeldByProcess): string {
  return `held by pid ${holder.pid ?? '?'} on ${holder.host ?? 'an unknown host'} since ${holder.since}; if that process is gone, the lock is taken over at ${holder.staleAt}, ${STALE_LOCK_MS / 3_600_000} h after its last sign of life`;
}

/** What one fetch run shares across its lists: the lock owner, the clock, the sources, the statistics of staging, the host holds. */
class FetchRun {
  readonly owner: LockOwner;
  readonly clock: () => Date;
  readonly holds: HostHolds;
  private readonly open: (backend: BackendName, list: ListRecord) => Promise<ArchiveSource>;
  private readonly statistics: TableStatistics;

  constructor(
    private readonly store: Store,
    private readonly systems: Systems,
    private readonly options: FetchOptions,
    private readonly progress: ProgressListener,
  ) {
    this.owner = options.owner ?? currentLockOwner();
    this.clock = options.clock ?? (() => new Date());
    this.holds = new HostHolds(store, systems, this.clock);
    this.open = options.openSource ?? ((backend: BackendName) => openArchiveSource(backend));
    this.statistics = store.staging.statistics();
  }

  /** Fetches a list this run claimed, and keeps its host's account of how it went. */
  async fetchClaimed(list: ListRecord): Promise<ListFetchResult> {
    const { store, options, clock, progress } = this;
    const system = this.systems.systems.get(list.system);
    if (!system) {
      const message = `the archive system "${list.system}" is not in ${this.systems.file}`;
      const failure = await recordListFailure(store, list.id, message, clock());
      return {
        ...skipped(list, this.owner),
        status: 'failed',
        error: { kind: 'permanent', message, retryAfter: failure.retryAfter, sidelined: failure.sidelined },
      };
    }
    let source: ArchiveSource;
    try {
      source = await this.open(system.backend, list);
    } catch (error) {
      const message = `the ${system.backend} backend could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
      const failure = await recordListFailure(store, list.id, message, clock());
      progress({ type: 'log', level: 'warn', message: `${list.system} ${list.name}: ${message}` });
      return {
        ...skipped(list, this.owner),
        status: 'failed',
        error: { kind: 'error', message, retryAfter: failure.retryAfter, sidelined: failure.sidelined },
      };
    }
    try {
      await options.drainer?.begin(list);
      const result = await fetchList(
        store,
        list,
        system,
        source,
        {
          owner: this.owner,
          full: Boolean(options.full),
          months: options.months,
          backfillMonths: options.backfillMonths,
          contactEmail: options.contactEmail,
          cacheDir: options.cacheDir,
          mailAccounts: options.mailAccounts,
          mailTimeoutMs: options.mailTimeoutMs,
          maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
          signal: options.signal,
          clock,
          statistics: this.statistics,
          arrivals: options.arrivals,
          drainer: options.drainer,
        },
        progress,
      );
      await this.holds.record(list, system, result, progress);
      return result;
    } finally {
      try {
        await options.drainer?.end(list.id);
      } finally {
        await source.close?.();
      }
    }
  }
}

function skipped(list: ListRecord, owner: LockOwner): ListFetchResult {
  return emptyListResult(list, 'skipped', owner.pid);
}

function total(results: readonly ListFetchResult[]): FetchResult['totals'] {
  const totals = { lists: 0, months: 0, seen: 0, staged: 0, tooLarge: 0, duplicates: 0, deletions: 0, failed: 0 };
  for (const result of results) {
    if (result.status !== 'skipped') totals.lists++;
    totals.months += result.monthsFetched;
    totals.seen += result.seen;
    totals.staged += result.staged;
    totals.tooLarge += result.tooLarge;
    totals.duplicates += result.duplicates;
    totals.deletions += result.deletions;
    if (result.status === 'failed') totals.failed++;
  }
  return totals;
}
