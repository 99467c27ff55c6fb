import type { ProgressListener } from '../progress.js';
import type { ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import type { SystemDefinition, Systems } from '../systems/load-systems.js';
import type { ListFetchResult } from './fetch-list.js';
import { BREAKER_THRESHOLD, breakerOpenUntil, countsAgainstHost, holdsHostForRun } from './fetch-policy.js';

/** A host whose lists a run left alone, and the lists of its choice it kept back. */
export interface HeldByBreaker {
  host: string;
  /** breaker: the host's breaker is open; rate_limited: the host asked this run to wait (a 429). */
  why: 'breaker' | 'rate_limited';
  openUntil: string;
  lists: string[];
}

export type HostHold = Omit<HeldByBreaker, 'lists'>;

/**
 * The archive hosts a fetch run leaves alone, and why: a host whose breaker
 * is open (kept in the store, so every process sees it) or one that
 * rate-limited this run (kept for the run: its other lists would only sit
 * in the pacer for the Retry-After). When a host is held is fetch-policy.ts's
 * to say; this keeps the account.
 */
export class HostHolds {
  private readonly rateLimited = new Map<string, HostHold>();

  constructor(
    private readonly store: Store,
    private readonly systems: Systems,
    private readonly clock: () => Date,
  ) {}

  /** Lists whose host is held now, with why: they are not claimed while it holds. */
  async heldLists(): Promise<Map<number, HostHold>> {
    const holds = new Map<string, HostHold>(this.rateLimited);
    for (const breaker of await this.store.breakers.openBreakers(this.clock()))
      holds.set(breaker.host, { ...breaker, why: 'breaker' });
    const held = new Map<number, HostHold>();
    if (holds.size === 0) return held;
    for (const list of await this.store.lists.all()) {
      const host = this.hostOf(list);
      const hold = host === undefined ? undefined : holds.get(host);
      if (hold) held.set(list.id, hold);
    }
    return held;
  }

  /** What a list's fetch tells of its host: a success closes its breaker, the host struggling counts toward opening it, a 429 holds it for the run. */
  async record(
    list: ListRecord,
    system: SystemDefinition,
    result: ListFetchResult,
    progress: ProgressListener,
  ): Promise<void> {
    const host = archiveHost(list, system);
    if (!host) return;
    if (result.status === 'done') await this.store.breakers.recordSuccess(host, this.clock());
    const { error } = result;
    if (result.status !== 'failed' || !error) return;
    const now = this.clock();
    if (
      countsAgainstHost(error.kind) &&
      (await this.store.breakers.recordFailure(host, now, (failures) => breakerOpenUntil(failures, now)))
    ) {
      progress({
        type: 'log',
        level: 'warn',
        message: `${host} failed ${BREAKER_THRESHOLD} times in a row; its lists wait an hour`,
      });
    }
    if (holdsHostForRun(error.kind) && error.retryAfter)
      this.rateLimited.set(host, { host, why: 'rate_limited', openUntil: error.retryAfter });
  }

  /**
   * The hosts that kept lists of the run's choice back (named lists, else
   * those of --system that are not set aside), each with those lists, and
   * each said once: otherwise they would vanish from the run without a word.
   */
  async keptBack(
    held: ReadonlyMap<number, HostHold>,
    claimed: ReadonlySet<number>,
    choice: { listIds?: readonly number[]; system?: string },
    progress: ProgressListener,
  ): Promise<HeldByBreaker[]> {
    const breakers = new Map<string, HeldByBreaker>();
    for (const [id, hold] of held) {
      if (claimed.has(id)) continue;
      const list = (await this.store.lists.byId(id))!;
      if (
        choice.listIds
          ? !choice.listIds.includes(id)
          : list.sidelinedAt || (choice.system && list.system !== choice.system)
      )
        continue;
      const entry = breakers.get(hold.host) ?? { ...hold, lists: [] };
      entry.lists.push(list.name);
      breakers.set(hold.host, entry);
    }
    for (const breaker of breakers.values()) {
      const count = breaker.lists.length;
      progress({
        type: 'log',
        level: 'warn',
        message: `${count} ${count === 1 ? 'list' : 'lists'} of ${breaker.host} ${count === 1 ? 'was' : 'were'} not fetched: ${describeHold(breaker)}`,
      });
    }
    return [...breakers.values()];
  }

  private hostOf(list: ListRecord): string | undefined {
    const system = this.systems.systems.get(list.system);
    return system && archiveHost(list, system);
  }
}

/** Why a host's lists are not fetched now, and until when. */
export function describeHold(hold: HostHold): string {
  return hold.why === 'breaker'
    ? `${hold.host} failed ${BREAKER_THRESHOLD} times in a row; its breaker is open until ${hold.openUntil}`
    : `${hold.host} is rate-limiting listminer; its lists wait until ${hold.openUntil}`;
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
