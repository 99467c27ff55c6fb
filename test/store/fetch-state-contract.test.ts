import { beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { breakerOpenUntil, isGapMonth, recordListFailure } from '../../src/core/fetch/fetch-policy.js';
import type { LockOwner } from '../../src/core/locks/lock-owner.js';
import type { ClaimOptions } from '../../src/core/store/fetch-state-records.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

const me: LockOwner = { pid: 1001, bootId: 'boot-a', host: 'host-a' };
const other: LockOwner = { pid: 2002, bootId: 'boot-b', host: 'host-b' };
const NOW = new Date('2024-06-15T12:00:00Z');
const claimOptions = (extra: Partial<ClaimOptions> = {}): ClaimOptions => ({
  owner: me,
  now: NOW,
  ignoreSchedule: false,
  cadenceDays: 30,
  ...extra,
});

describeOnDialects('fetch state contract on $dialect', (getStore) => {
  const ids: Record<string, number> = {};
  beforeEach(async () => {
    const store = getStore();
    for (const name of ['a', 'b', 'c'])
      ids[name] = (await store.lists.register({ system: 'public_inbox', name })).list.id;
  });
  const set = (name: string, sql: string, params: unknown[] = []) =>
    getStore().db.run(`UPDATE lists SET ${sql} WHERE id = ?`, [...(params as never[]), ids[name]!]);
  const hold = (name: string, at: string, pid: number, bootId: string, host: string) =>
    getStore().db.run(
      `INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host) VALUES (?, 'fetch', ?, ?, ?, ?)
       ON CONFLICT (list_id, stage) DO UPDATE SET locked_at = excluded.locked_at, locked_pid = excluded.locked_pid, locked_boot_id = excluded.locked_boot_id, locked_host = excluded.locked_host`,
      [ids[name]!, at, pid, bootId, host],
    );
  const claimAll = async (options: ClaimOptions) => {
    const store = getStore();
    const out: string[] = [];
    for (let list = await store.fetchState.claimNext(options); list; list = await store.fetchState.claimNext(options))
      out.push(list.name);
    return out;
  };

  it('claims each free list once and records who holds it', async () => {
    const store = getStore();
    const first = await store.fetchState.claimNext(claimOptions());
    expect(first).toMatchObject({ name: 'a', lockedPid: 1001, lockedBootId: 'boot-a', lockedHost: 'host-a' });
    expect(await claimAll(claimOptions())).toEqual(['b', 'c']);
    expect(await store.fetchState.claimNext(claimOptions({ owner: other }))).toBeUndefined();
    await store.locks.release(ids.a!, 'fetch', me);
    expect((await store.fetchState.claimNext(claimOptions({ owner: other })))?.name).toBe('a');
  });

  it('never gives one list to two connections claiming at once', async () => {
    const store = getStore();
    for (let i = 0; i < 20; i++) await store.lists.register({ system: 'public_inbox', name: `bulk-${i}` });
    const second = await openStore(store.url);
    try {
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 ? second : store).fetchState.claimNext(claimOptions({ owner: { ...me, pid: i } })),
        ),
      );
      const names = claims.filter(Boolean).map((list) => list!.name);
      expect(new Set(names).size).toBe(names.length);
      const held = await store.db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM stage_locks WHERE stage = 'fetch' AND locked_at IS NOT NULL",
      );
      expect(Number(held!.n)).toBe(names.length);
    } finally {
      await second.close();
    }
  });

  it('recovers a lock older than two hours but not a fresh one', async () => {
    await hold('a', new Date(NOW.getTime() - 3 * 3600_000).toISOString(), 5, 'x', 'y');
    await hold('b', new Date(NOW.getTime() - 3600_000).toISOString(), 5, 'x', 'y');
    expect(await claimAll(claimOptions())).toEqual(['a', 'c']);
  });

  it('frees locks of dead processes on this boot and host only', async () => {
    const store = getStore();
    const fresh = NOW.toISOString();
    await hold('a', fresh, 7, me.bootId, me.host);
    await hold('b', fresh, 8, 'boot-old', me.host);
    await hold('c', fresh, 9, me.bootId, me.host);
    expect(await store.locks.recoverDead('fetch', me, (pid) => pid === 9, NOW)).toBe(1);
    expect(await claimAll(claimOptions())).toEqual(['a']);
  });

  it('claims interrupted scans first, then lists never fetched, then the longest waiting', async () => {
    const store = getStore();
    const old = new Date(NOW.getTime() - 40 * 86_400_000).toISOString();
    const older = new Date(NOW.getTime() - 50 * 86_400_000).toISOString();
    const d = (await store.lists.register({ system: 'public_inbox', name: 'd' })).list.id;
    await set('a', 'last_run_at = ?, scan_complete = TRUE', [older]);
    await set('b', 'last_run_at = ?, scan_complete = FALSE', [old]);
    await store.db.run('UPDATE lists SET last_run_at = ?, scan_complete = TRUE WHERE id = ?', [old, d]);
    expect(await claimAll(claimOptions())).toEqual(['b', 'c', 'a', 'd']);
  });

  it('takes a list incomplete only for its gaps every run, but after interrupted scans and lists never fetched', async () => {
    const store = getStore();
    const old = new Date(NOW.getTime() - 40 * 86_400_000).toISOString();
    const recent = new Date(NOW.getTime() - 86_400_000).toISOString();
    await set('a', 'last_run_at = ?, scan_complete = FALSE', [recent]);
    for (let i = 0; i < 3; i++)
      await store.fetchState.recordMonthFailure(ids.a!, '2024-03', 'cut short', NOW, isGapMonth);
    await set('b', 'last_run_at = ?, scan_complete = FALSE', [old]);
    expect(await claimAll(claimOptions())).toEqual(['b', 'c', 'a']);
  });

  it('leaves a complete list alone until the cadence has passed, unless told to ignore the schedule', async () => {
    const store = getStore();
    await set('a', 'last_run_at = ?, scan_complete = TRUE', [new Date(NOW.getTime() - 5 * 86_400_000).toISOString()]);
    expect(await claimAll(claimOptions())).toEqual(['b', 'c']);
    for (const name of ['b', 'c']) await store.locks.release(ids[name]!, 'fetch', me);
    expect(await claimAll(claimOptions({ ignoreSchedule: true }))).toEqual(['b', 'c', 'a']);
  });

  it('waits 120 s times attempts squared after a failure and sidelines after ten in a row', async () => {
    const store = getStore();
    let failure = await recordListFailure(store, ids.a!, 'boom', NOW);
    expect(failure).toEqual({
      attempts: 1,
      retryAfter: new Date(NOW.getTime() + 120_000).toISOString(),
      sidelined: false,
    });
    failure = await recordListFailure(store, ids.a!, 'boom', NOW);
    expect(failure.retryAfter).toBe(new Date(NOW.getTime() + 480_000).toISOString());
    expect(await claimAll(claimOptions())).toEqual(['b', 'c']);
    const later = new Date(NOW.getTime() + 481_000);
    expect((await store.fetchState.claimNext(claimOptions({ now: later })))?.name).toBe('a');
    for (let i = 0; i < 8; i++) failure = await recordListFailure(store, ids.a!, 'boom', NOW);
    expect(failure).toMatchObject({ attempts: 10, sidelined: true });
    await store.locks.release(ids.a!, 'fetch', me);
    expect(
      await store.fetchState.claimNext(claimOptions({ ignoreSchedule: true, excludeIds: [ids.b!, ids.c!] })),
    ).toBeUndefined();
    expect((await store.fetchState.claimNext(claimOptions({ ignoreSchedule: true, listIds: [ids.a!] })))?.name).toBe(
      'a',
    );
    await store.fetchState.recordScan(ids.a!, true, NOW);
    expect(await store.lists.byId(ids.a!)).toMatchObject({
      failedAttempts: 0,
      sidelinedAt: null,
      retryAfter: null,
      scanComplete: true,
    });
  });

  it('waits at least as long as the archive asked (Retry-After) when that is longer than the backoff', async () => {
    const store = getStore();
    const failure = await recordListFailure(store, ids.a!, 'rate limited', NOW, 7_200_000);
    expect(failure.retryAfter).toBe(new Date(NOW.getTime() + 7_200_000).toISOString());
    expect(await claimAll(claimOptions({ now: new Date(NOW.getTime() + 3_600_000) }))).toEqual(['b', 'c']);
    const short = await recordListFailure(store, ids.b!, 'rate limited', NOW, 1_000);
    expect(short.retryAfter).toBe(new Date(NOW.getTime() + 120_000).toISOString());
  });

  it('opens a host breaker after ten consecutive transient failures and closes it on success', async () => {
    const store = getStore();
    for (let i = 0; i < 9; i++)
      expect(
        await store.breakers.recordFailure('lists.example.org', NOW, (failures) => breakerOpenUntil(failures, NOW)),
      ).toBe(false);
    expect(await store.breakers.openHosts(NOW)).toEqual([]);
    expect(
      await store.breakers.recordFailure('lists.example.org', NOW, (failures) => breakerOpenUntil(failures, NOW)),
    ).toBe(true);
    expect(await store.breakers.openHosts(NOW)).toEqual(['lists.example.org']);
    expect(await store.breakers.openHosts(new Date(NOW.getTime() + 3601_000))).toEqual([]);
    await store.breakers.recordSuccess('lists.example.org', NOW);
    expect(await store.breakers.openHosts(NOW)).toEqual([]);
  });

  it('records each deletion once however often its month is read', async () => {
    const store = getStore();
    const deletion = { messageKey: 'gone@example.org', sourceRef: '0.git/abc', deletedAt: NOW.toISOString() };
    expect(await store.transaction((tx) => tx.fetchState.recordDeletions(ids.a!, [deletion]))).toBe(1);
    expect(await store.transaction((tx) => tx.fetchState.recordDeletions(ids.a!, [deletion]))).toBe(0);
    expect(await store.db.all('SELECT message_key, source_ref FROM archive_deletions')).toEqual([
      { message_key: 'gone@example.org', source_ref: '0.git/abc' },
    ]);
  });
  it('makes a month a gap at its third failing run in a row, keeps counting it, and forgets it once it is read whole', async () => {
    const store = getStore();
    const at = (day: number) => new Date(`2024-06-${String(day).padStart(2, '0')}T00:00:00Z`);
    expect(await store.fetchState.recordMonthFailure(ids.a!, '2024-03', 'cut short', at(1), isGapMonth)).toEqual({
      failures: 1,
      gap: false,
    });
    expect(await store.fetchState.recordMonthFailure(ids.a!, '2024-03', 'cut short again', at(2), isGapMonth)).toEqual({
      failures: 2,
      gap: false,
    });
    expect(await store.fetchState.gapMonths(ids.a!)).toEqual([]);
    expect(
      await store.fetchState.recordMonthFailure(ids.a!, '2024-03', 'cut short a third time', at(3), isGapMonth),
    ).toEqual({ failures: 3, gap: true });
    expect(await store.fetchState.recordMonthFailure(ids.a!, '2024-03', 'still cut', at(4), isGapMonth)).toEqual({
      failures: 4,
      gap: true,
    });
    await store.fetchState.recordMonthFailure(ids.b!, '2024-01', 'one failure is no gap', at(4), isGapMonth);
    expect(await store.fetchState.gapMonths(ids.a!)).toEqual(['2024-03']);
    expect(await store.fetchState.gapMonths(ids.b!)).toEqual([]);
    const gaps = await store.fetchState.gaps();
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({
      listId: ids.a,
      system: 'public_inbox',
      list: 'a',
      month: '2024-03',
      failures: 4,
      lastError: 'still cut',
    });
    expect(Date.parse(gaps[0]!.lastFailedAt)).toBe(at(4).getTime());
    expect(Date.parse(gaps[0]!.gapSince)).toBe(at(3).getTime());
    expect(await store.fetchState.gaps([ids.b!])).toEqual([]);

    await store.transaction((tx) => tx.fetchState.clearMonthFailure(ids.a!, '2024-03'));
    expect(await store.fetchState.gapMonths(ids.a!)).toEqual([]);
    expect(await store.fetchState.gaps()).toEqual([]);
    // A month that fails again after it was read whole starts its count over.
    expect(await store.fetchState.recordMonthFailure(ids.a!, '2024-03', 'cut once more', at(5), isGapMonth)).toEqual({
      failures: 1,
      gap: false,
    });
  });

  it('drops the failing months of a list that is removed', async () => {
    const store = getStore();
    for (let i = 0; i < 3; i++) await store.fetchState.recordMonthFailure(ids.c!, '2024-02', 'cut', NOW, isGapMonth);
    expect(await store.lists.remove(ids.c!)).toBe(true);
    expect(await store.fetchState.gaps()).toEqual([]);
  });
});
