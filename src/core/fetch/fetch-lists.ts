import type { ArchiveSource } from '../archive/archive-source.js';
import { openArchiveSource } from '../archive/open-source.js';
import type { ProgressListener } from '../progress.js';
import { BREAKER_THRESHOLD } from '../store/breaker-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import type { TableStatistics } from '../store/table-statistics.js';
import { BACKENDS, type BackendName } from '../systems/backend-names.js';
import { requireSystem, type SystemDefinition, type Systems } from '../systems/load-systems.js';
import { emptyListResult, fetchList, type ListFetchResult } from './fetch-list.js';
import { currentLockOwner, STALE_LOCK_MS, type LockOwner } from '../locks/lock-owner.js';
import { selectLists } from '../registry/select-lists.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../config/load-config.js';
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
  /** A message larger than this is staged shunted, unparsed (the config's max_message_bytes). */
  maxMessageBytes?: number;
  /** Aborting stops the run: the current batch is written, locks are released. */
  signal?: AbortSignal;
  /** Where sources come from; tests pass their own. One source is opened per list fetch and closed after it. */
  openSource?: (backend: BackendName, list: ListRecord) => Promise<ArchiveSource>;
  owner?: LockOwner;
  clock?: () => Date;
}

export interface FetchResult {
  lists: ListFetchResult[];
  totals: { lists: number; months: number; seen: number; staged: number; duplicates: number; deletions: number; failed: number };
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

export interface HeldByBreaker {
  host: string;
  /** breaker: the host's breaker is open; rate_limited: the host asked this run to wait (a 429). */
  why: 'breaker' | 'rate_limited';
  openUntil: string;
  lists: string[];
}

type HostHold = Omit<HeldByBreaker, 'lists'>;

/**
 * The fetch stage: claims lists one at a time per worker (never one list
 * twice, never a list another process holds), fetches each from its
 * checkpoint to the present, and records how it went. A list that fails
 * does not stop the others.
 */
export async function fetchLists(store: Store, systems: Systems, options: FetchOptions, progress: ProgressListener): Promise<FetchResult> {
  if (options.system) requireSystem(systems, options.system);
  // Only named lists become ids: --system alone filters the claim, which still passes over sidelined lists.
  const listIds = options.lists?.length ? (await selectLists(store, { names: options.lists, system: options.system })).map((list) => list.id) : undefined;
  const owner = options.owner ?? currentLockOwner();
  const clock = options.clock ?? (() => new Date());
  const statistics = store.staging.statistics();
  const open = options.openSource ?? ((backend: BackendName) => openArchiveSource(backend));
  const localSystems = [...systems.systems.values()].filter((system) => BACKENDS[system.backend].locator === 'path').map((system) => system.name);
  const claimed = new Set<number>();
  const results: ListFetchResult[] = [];
  // Hosts that answered 429 in this run: their other lists would only sit in the pacer for the Retry-After.
  const rateLimited = new Map<string, HostHold>();

  await store.locks.recoverDead('fetch', owner);

  const claim = async (): Promise<ListRecord | undefined> => {
    const blocked = await listsOfHeldHosts(store, systems, clock(), rateLimited);
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
        const result = await fetchClaimed(store, systems, list, open, owner, clock, statistics, options, progress);
        const host = result.error?.kind === 'rate_limited' ? listHost(systems, list) : undefined;
        if (host) rateLimited.set(host, { host, why: 'rate_limited', openUntil: result.error!.retryAfter! });
        results.push(result);
      } finally {
        await store.locks.release(list.id, 'fetch', owner);
      }
    }
  };
  // Every worker finishes (and releases its list) before an error from one of them is raised.
  const settled = await Promise.allSettled(Array.from({ length: Math.max(1, options.workers ?? 1) }, work));
  const broken = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (broken) throw broken.reason;

  // Lists kept back by a breaker are said so: otherwise they would vanish from the run without a word.
  const held = await listsOfHeldHosts(store, systems, clock(), rateLimited);
  const breakers = new Map<string, HeldByBreaker>();
  for (const [id, breaker] of held) {
    if (claimed.has(id)) continue;
    const list = (await store.lists.byId(id))!;
    if (listIds ? !listIds.includes(id) : list.sidelinedAt || (options.system && list.system !== options.system)) continue;
    const entry = breakers.get(breaker.host) ?? { ...breaker, lists: [] };
    entry.lists.push(list.name);
    breakers.set(breaker.host, entry);
  }
  for (const breaker of breakers.values()) {
    const count = breaker.lists.length;
    progress({
      type: 'log',
      level: 'warn',
      message: `${count} ${count === 1 ? 'list' : 'lists'} of ${breaker.host} ${count === 1 ? 'was' : 'were'} not fetched: ${breakerReason(breaker)}`,
    });
  }
  const heldElsewhere = await listsHeldElsewhere(store, owner, claimed, listIds, options.system);
  for (const id of listIds ?? []) {
    if (claimed.has(id)) continue;
    const list = (await store.lists.byId(id))!;
    const breaker = held.get(id);
    const holder = heldElsewhere.find((h) => h.list === list.name && h.system === list.system);
    const waits = !options.now && isWaiting(list, clock());
    const reason = breaker
      ? breakerReason(breaker)
      : holder
        ? describeHolder(holder)
        : options.now
          ? 'another process holds it'
          : waits
            ? describeWait(list, false, clock())
            : 'not due yet (--now fetches it anyway)';
    results.push({ ...skipped(list, owner), reason });
    // A list that waits is named with the others that wait (`waiting`).
    if (!breaker && !holder && !waits) progress({ type: 'log', level: 'info', message: `${list.system} ${list.name} was not fetched: ${reason}` });
  }
  const waiting = options.now || options.signal?.aborted ? [] : await listsWaiting(store, clock(), claimed, held, heldElsewhere, listIds, options.system);
  return { lists: results, totals: total(results), interrupted: Boolean(options.signal?.aborted), breakers: [...breakers.values()], waiting, heldElsewhere };
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
    if (claimed.has(list.id) || held.has(list.id) || heldElsewhere.some((h) => h.system === list.system && h.list === list.name)) continue;
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

function isWaiting(list: Pick<ListRecord, 'retryAfter'>, now: Date): boolean {
  return Boolean(list.retryAfter && list.retryAfter > now.toISOString());
}

/** Why a list that failed is not fetched now (or, its wait over, that the next run tries it), and how to fetch it anyway. */
export function describeWait(list: Pick<ListRecord, 'system' | 'name' | 'retryAfter' | 'failedAttempts' | 'lastFailure'>, sidelined: boolean, now: Date): string {
  const runs = `${list.failedAttempts} failed ${list.failedAttempts === 1 ? 'run' : 'runs'}`;
  const why = list.lastFailure ? ` (${list.lastFailure})` : '';
  if (sidelined) return `${list.system} ${list.name}: set aside after ${runs}${why}; \`fetch --list ${list.name}\` tries it again`;
  if (!isWaiting(list, now)) return `${list.system} ${list.name}: tried again on the next run after ${runs}${why}`;
  return `${list.system} ${list.name}: waiting until ${list.retryAfter} after ${runs}${why}; --now fetches it anyway`;
}

/**
 * One line per failure of the run, for --quiet and for the summary: the
 * list, the month, the reason (which names the URL), the next try.
 */
export function describeFailures(result: Pick<FetchResult, 'lists'>): string[] {
  return result.lists
    .filter((list) => list.status === 'failed' && list.error)
    .map((list) => {
      const { error } = list;
      const month = error!.month ? ` ${error!.month}` : '';
      const next = error!.sidelined ? `set aside; \`fetch --list ${list.list}\` tries it again` : error!.retryAfter ? `next try after ${error!.retryAfter}` : 'tried again next run';
      return `${list.system} ${list.list}${month}: ${error!.message} (${next})`;
    });
}

/** Lists of the run's choice it did not claim because another process holds them (a live one, or one on another host). */
async function listsHeldElsewhere(store: Store, owner: LockOwner, claimed: ReadonlySet<number>, listIds: readonly number[] | undefined, system: string | undefined): Promise<HeldByProcess[]> {
  const held: HeldByProcess[] = [];
  for (const list of await store.lists.all()) {
    if (claimed.has(list.id) || list.lockedAt === null) continue;
    if (listIds ? !listIds.includes(list.id) : list.sidelinedAt || (system && list.system !== system)) continue;
    if (list.lockedPid === owner.pid && list.lockedHost === owner.host && list.lockedBootId === owner.bootId) continue;
    const staleAt = new Date(new Date(list.lockedAt).getTime() + STALE_LOCK_MS).toISOString();
    held.push({ system: list.system, list: list.name, host: list.lockedHost, pid: list.lockedPid, since: list.lockedAt, staleAt });
  }
  return held;
}

/** Who holds a list, since when, and when the lock counts as abandoned. */
export function describeHolder(holder: HeldByProcess): string {
  return `held by pid ${holder.pid ?? '?'} on ${holder.host ?? 'an unknown host'} since ${holder.since}; if that process is gone, the lock is taken over at ${holder.staleAt}, ${STALE_LOCK_MS / 3_600_000} h after its last sign of life`;
}

function breakerReason(hold: HostHold): string {
  return hold.why === 'breaker'
    ? `${hold.host} failed ${BREAKER_THRESHOLD} times in a row; its breaker is open until ${hold.openUntil}`
    : `${hold.host} is rate-limiting listminer; its lists wait until ${hold.openUntil}`;
}

async function fetchClaimed(
  store: Store,
  systems: Systems,
  list: ListRecord,
  open: (backend: BackendName, list: ListRecord) => Promise<ArchiveSource>,
  owner: LockOwner,
  clock: () => Date,
  statistics: TableStatistics,
  options: FetchOptions,
  progress: ProgressListener,
): Promise<ListFetchResult> {
  const system = systems.systems.get(list.system);
  if (!system) {
    const message = `the archive system "${list.system}" is not in ${systems.file}`;
    const failure = await store.fetchState.recordFailure(list.id, message, clock());
    return { ...skipped(list, owner), status: 'failed', error: { kind: 'permanent', message, retryAfter: failure.retryAfter, sidelined: failure.sidelined } };
  }
  let source: ArchiveSource;
  try {
    source = await open(system.backend, list);
  } catch (error) {
    const message = `the ${system.backend} backend could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
    const failure = await store.fetchState.recordFailure(list.id, message, clock());
    progress({ type: 'log', level: 'warn', message: `${list.system} ${list.name}: ${message}` });
    return { ...skipped(list, owner), status: 'failed', error: { kind: 'error', message, retryAfter: failure.retryAfter, sidelined: failure.sidelined } };
  }
  const host = archiveHost(list, system);
  try {
    const result = await fetchList(
      store,
      list,
      system,
      source,
      {
        owner,
        full: Boolean(options.full),
        months: options.months,
        backfillMonths: options.backfillMonths,
        contactEmail: options.contactEmail,
        cacheDir: options.cacheDir,
        mailAccounts: options.mailAccounts,
        maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        signal: options.signal,
        clock,
        statistics,
      },
      progress,
    );
    if (host && result.status === 'done') await store.breakers.recordSuccess(host, clock());
    if (host && result.status === 'failed' && result.error && result.error.kind !== 'permanent' && result.error.kind !== 'error') {
      if (await store.breakers.recordFailure(host, clock())) {
        progress({ type: 'log', level: 'warn', message: `${host} failed ${BREAKER_THRESHOLD} times in a row; its lists wait an hour` });
      }
    }
    return result;
  } finally {
    await source.close?.();
  }
}

/**
 * Lists whose archive host is held back, with why: its breaker is open, or it
 * rate-limited this run. They are not claimed while it holds.
 */
async function listsOfHeldHosts(store: Store, systems: Systems, now: Date, rateLimited: ReadonlyMap<string, HostHold>): Promise<Map<number, HostHold>> {
  const holds = new Map<string, HostHold>(rateLimited);
  for (const breaker of await store.breakers.openBreakers(now)) holds.set(breaker.host, { ...breaker, why: 'breaker' });
  const held = new Map<number, HostHold>();
  if (holds.size === 0) return held;
  for (const list of await store.lists.all()) {
    const host = listHost(systems, list);
    const hold = host === undefined ? undefined : holds.get(host);
    if (hold) held.set(list.id, hold);
  }
  return held;
}

function listHost(systems: Systems, list: ListRecord): string | undefined {
  const system = systems.systems.get(list.system);
  return system && archiveHost(list, system);
}

/** The host a list's requests go to; undefined for local sources, which need no breaker. */
export function archiveHost(list: Pick<ListRecord, 'baseUrl'>, system: SystemDefinition): string | undefined {
  const base = list.baseUrl ?? system.baseUrl;
  if (!base) return undefined;
  try {
    const url = new URL(base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function skipped(list: ListRecord, owner: LockOwner): ListFetchResult {
  return emptyListResult(list, 'skipped', owner.pid);
}

function total(results: readonly ListFetchResult[]): FetchResult['totals'] {
  const totals = { lists: 0, months: 0, seen: 0, staged: 0, duplicates: 0, deletions: 0, failed: 0 };
  for (const result of results) {
    if (result.status !== 'skipped') totals.lists++;
    totals.months += result.monthsFetched;
    totals.seen += result.seen;
    totals.staged += result.staged;
    totals.duplicates += result.duplicates;
    totals.deletions += result.deletions;
    if (result.status === 'failed') totals.failed++;
  }
  return totals;
}
