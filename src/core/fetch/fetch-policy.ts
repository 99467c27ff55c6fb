import type { ArchiveError } from '../errors.js';
import type { ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';

/*
 * When fetch backs off (docs/fetch.md): every number and every decision made
 * from them. The store records failures and reads them back
 * (fetch-state-records.ts, breaker-records.ts); what they mean is decided
 * here, and handed to it.
 */

/** A list that failed waits RETRY_BASE_MS × its failing runs in a row, squared, before it is tried again. */
export const RETRY_BASE_MS = 120_000;
/** Failing runs in a row after which a list is set aside until it is named with --list. */
export const SIDELINE_AFTER = 10;
/** Failing runs in a row of one month after which it is a gap: the fetch goes past it and tries it again on every run. */
export const GAP_AFTER = 3;
/** Transient failures in a row on one host that open its breaker. */
export const BREAKER_THRESHOLD = 10;
/** How long an open breaker keeps the host's lists from being claimed. */
export const BREAKER_OPEN_MS = 60 * 60 * 1000;

/** When a list tries again after its `attempts`-th failing run in a row, and whether it is set aside until named. */
export interface RetrySchedule {
  retryAfter: Date;
  sidelined: boolean;
}

/** The retry of a list after its `attempts`-th failing run in a row: never sooner than the archive asked (a 429's Retry-After). */
export function scheduleRetry(attempts: number, at: Date, askedWaitMs = 0): RetrySchedule {
  return {
    retryAfter: new Date(at.getTime() + Math.max(RETRY_BASE_MS * attempts * attempts, askedWaitMs)),
    sidelined: attempts >= SIDELINE_AFTER,
  };
}

/** Records a failing run of a list, with the retry and the setting aside this policy gives it. */
export function recordListFailure(
  store: Store,
  listId: number,
  reason: string,
  at: Date,
  askedWaitMs?: number,
): ReturnType<Store['fetchState']['recordFailure']> {
  return store.fetchState.recordFailure(listId, reason, at, (attempts) => scheduleRetry(attempts, at, askedWaitMs));
}

/** Whether a month that failed `failures` runs in a row is a gap. */
export function isGapMonth(failures: number): boolean {
  return failures >= GAP_AFTER;
}

/** Whether a list waits after failing: its retry time is not reached. */
export function isWaiting(list: Pick<ListRecord, 'retryAfter'>, now: Date): boolean {
  return Boolean(list.retryAfter && list.retryAfter > now.toISOString());
}

/** Until when a host's breaker opens after `failures` transient failures in a row; undefined while it stays closed. */
export function breakerOpenUntil(failures: number, now: Date): Date | undefined {
  return failures >= BREAKER_THRESHOLD ? new Date(now.getTime() + BREAKER_OPEN_MS) : undefined;
}

/** Whether a list's failure counts against its host's breaker: the host struggling (transient, rate limited), not the list being wrong. */
export function countsAgainstHost(kind: ArchiveError['kind'] | 'error'): boolean {
  return kind === 'transient' || kind === 'rate_limited';
}

/** Whether a list's failure holds its host's other lists back for the rest of the run: a 429, whose Retry-After they would only sit out in the pacer. */
export function holdsHostForRun(kind: ArchiveError['kind'] | 'error'): boolean {
  return kind === 'rate_limited';
}

/** Why a list that failed is not fetched now (or, its wait over, that the next run tries it), and how to fetch it anyway. */
export function describeWait(
  list: Pick<ListRecord, 'system' | 'name' | 'retryAfter' | 'failedAttempts' | 'lastFailure'>,
  sidelined: boolean,
  now: Date,
): string {
  const runs = `${list.failedAttempts} failed ${list.failedAttempts === 1 ? 'run' : 'runs'}`;
  const why = list.lastFailure ? ` (${list.lastFailure})` : '';
  if (sidelined)
    return `${list.system} ${list.name}: set aside after ${runs}${why}; \`fetch --list ${list.name}\` tries it again`;
  if (!isWaiting(list, now)) return `${list.system} ${list.name}: tried again on the next run after ${runs}${why}`;
  return `${list.system} ${list.name}: waiting until ${list.retryAfter} after ${runs}${why}; --now fetches it anyway`;
}
