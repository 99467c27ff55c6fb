import { expect, it } from 'vitest';
import { ArchiveError } from '../../../../src/core/errors.js';
import { describeFailures, fetchLists, type FetchOptions } from '../../../../src/core/fetch/fetch-lists.js';
import { breakerOpenUntil } from '../../../../src/core/fetch/fetch-policy.js';
import { BATCH_MESSAGES } from '../../../../src/core/pipeline/batch-bytes.js';
import { silentProgress } from '../../../../src/core/progress.js';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';
import { describeOnDialects } from '../../../helpers/describe-on-dialects.js';
import { FakeSource, NOW_MONTH, archive, mail, month } from '../../../helpers/fake-archive-source.js';

describeOnDialects('fetchLists on $dialect', (getStore) => {
  const systems = loadSystems();
  const options = (sources: Record<string, FakeSource>, extra: Partial<FetchOptions> = {}): FetchOptions => ({
    cadenceDays: 30,
    cacheDir: '/nonexistent',
    openSource: async (_backend, list) => sources[list.name]!,
    ...extra,
  });
  const keys = async (name = 'netdev') =>
    (
      await getStore().db.all<{ message_key: string }>(
        'SELECT message_key FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ? ORDER BY message_key',
        [name],
      )
    ).map((r) => r.message_key);
  const add = (name: string, baseUrl?: string) => getStore().lists.register({ system: 'public_inbox', name, baseUrl });

  it('stages every month of the whole history once and checkpoints each', async () => {
    const store = getStore();
    await add('netdev');
    const source = new FakeSource(archive({ 3: 4, 1: 2, 0: 3 }));
    const result = await fetchLists(store, systems, options({ netdev: source }, { full: true }), silentProgress);
    expect(result.lists).toEqual([
      expect.objectContaining({
        list: 'netdev',
        status: 'done',
        monthsPlanned: 4,
        monthsFetched: 4,
        seen: 9,
        staged: 9,
        duplicates: 0,
      }),
    ]);
    expect(await keys()).toHaveLength(9);
    const list = (await store.lists.byName('public_inbox', 'netdev'))!;
    expect(list).toMatchObject({
      firstMonth: month(3),
      lastMonth: NOW_MONTH,
      scanComplete: true,
      lockedAt: null,
      lockedPid: null,
    });
    const months = await store.db.all<{ month: string; messages_seen: number }>(
      'SELECT month, messages_seen FROM fetched_months ORDER BY month',
    );
    expect(months.map((m) => [m.month, Number(m.messages_seen)])).toEqual([
      [month(3), 4],
      [month(2), 0],
      [month(1), 2],
      [month(0), 3],
    ]);
    expect(source.closed).toBe(1);
  });

  it('reads only the current month again on the next run and stages only the new mail', async () => {
    const store = getStore();
    await add('netdev');
    const months = archive({ 2: 3, 0: 2 });
    await fetchLists(store, systems, options({ netdev: new FakeSource(months) }, { full: true }), silentProgress);
    months.get(NOW_MONTH)!.push({ raw: mail('late@example.org') });
    const again = await fetchLists(
      store,
      systems,
      options({ netdev: new FakeSource(months) }, { now: true }),
      silentProgress,
    );
    expect(again.lists[0]).toMatchObject({ monthsPlanned: 1, seen: 3, staged: 1, duplicates: 2 });
    expect(await keys()).toHaveLength(6);
  });

  it('leaves a list fetched recently alone until its cadence passes', async () => {
    const store = getStore();
    await add('netdev');
    const source = new FakeSource(archive({ 0: 1 }));
    await fetchLists(store, systems, options({ netdev: source }), silentProgress);
    const again = await fetchLists(store, systems, options({ netdev: source }), silentProgress);
    expect(again.lists).toEqual([]);
  });

  it('reads a recent window of a new list: --months, else backfill_months', async () => {
    const store = getStore();
    await add('netdev');
    await add('bpf');
    const spec = { 30: 1, 5: 1, 2: 1, 0: 1 };
    const result = await fetchLists(
      store,
      systems,
      options(
        { netdev: new FakeSource(archive(spec)), bpf: new FakeSource(archive(spec, 'b')) },
        { months: 3, lists: ['netdev'] },
      ),
      silentProgress,
    );
    expect(result.lists[0]).toMatchObject({ monthsPlanned: 3, staged: 2 });
    const window = await fetchLists(
      store,
      systems,
      options({ bpf: new FakeSource(archive(spec, 'b')) }, { backfillMonths: 6, lists: ['bpf'] }),
      silentProgress,
    );
    expect(window.lists[0]).toMatchObject({ monthsPlanned: 6, staged: 3 });
  });

  it('stages after a crash mid-month exactly what a clean run stages', async () => {
    const store = getStore();
    await add('netdev');
    await add('clean');
    const months = archive({ 1: 1200, 0: 10 });
    const crashing = new FakeSource(months);
    crashing.fault = { month: month(1), afterItems: 1100, error: new ArchiveError('connection reset', 'transient') };
    const crashed = await fetchLists(
      store,
      systems,
      options({ netdev: crashing }, { full: true, lists: ['netdev'] }),
      silentProgress,
    );
    // The crash after 1,100 messages loses the batch being read: the two written before it stay.
    const written = 2 * BATCH_MESSAGES;
    expect(crashed.lists[0]).toMatchObject({
      status: 'failed',
      staged: written,
      error: { kind: 'transient', message: 'connection reset' },
    });
    let list = (await store.lists.byName('public_inbox', 'netdev'))!;
    expect(list).toMatchObject({ lastMonth: null, scanComplete: false, failedAttempts: 1, lockedAt: null });
    expect(Date.parse(list.retryAfter!)).toBeGreaterThan(Date.now() + 100_000);
    const resumed = await fetchLists(
      store,
      systems,
      options({ netdev: new FakeSource(months) }, { lists: ['netdev'] }),
      silentProgress,
    );
    expect(resumed.lists[0]!.status).toBe('skipped');
    const retried = await fetchLists(
      store,
      systems,
      options({ netdev: new FakeSource(months) }, { now: true, lists: ['netdev'] }),
      silentProgress,
    );
    expect(retried.lists[0]).toMatchObject({ status: 'done', staged: 1210 - written, duplicates: written });
    await fetchLists(
      store,
      systems,
      options({ clean: new FakeSource(months) }, { full: true, lists: ['clean'] }),
      silentProgress,
    );
    expect(await keys('netdev')).toEqual(await keys('clean'));
    list = (await store.lists.byName('public_inbox', 'netdev'))!;
    expect(list).toMatchObject({ failedAttempts: 0, scanComplete: true, retryAfter: null });
  });

  it('on abort writes what was read, keeps the month unfinished and releases the list', async () => {
    const store = getStore();
    await add('netdev');
    const months = archive({ 1: 50, 0: 5 });
    const controller = new AbortController();
    const source = new FakeSource(months);
    const original = source.fetchMonth.bind(source);
    source.fetchMonth = async function* (context, m) {
      let n = 0;
      for await (const item of original(context, m)) {
        if (++n === 20) controller.abort();
        yield item;
      }
    };
    const result = await fetchLists(
      store,
      systems,
      options({ netdev: source }, { full: true, signal: controller.signal }),
      silentProgress,
    );
    expect(result.interrupted).toBe(true);
    expect(result.lists[0]).toMatchObject({ status: 'interrupted', monthsFetched: 0, staged: 20 });
    const list = (await store.lists.byName('public_inbox', 'netdev'))!;
    expect(list).toMatchObject({ lastMonth: null, failedAttempts: 0, lockedAt: null, lastRunAt: null });
    const rest = await fetchLists(
      store,
      systems,
      options({ netdev: new FakeSource(months) }, { full: true }),
      silentProgress,
    );
    expect(rest.lists[0]).toMatchObject({ status: 'done', staged: 35, duplicates: 20 });
  });

  it('records deletions with the key of the withdrawn message', async () => {
    const store = getStore();
    await add('netdev');
    const months = archive({ 0: 2 });
    months.get(NOW_MONTH)!.push({
      kind: 'deletion',
      raw: mail('spam@example.org'),
      sourceRef: '0.git/deadbeef',
      deletedAt: '2024-01-01T00:00:00.000Z',
    });
    const result = await fetchLists(store, systems, options({ netdev: new FakeSource(months) }), silentProgress);
    expect(result.lists[0]).toMatchObject({ staged: 2, deletions: 1 });
    expect(await store.db.all('SELECT message_key, source_ref, deleted_at FROM archive_deletions')).toEqual([
      { message_key: 'spam@example.org', source_ref: '0.git/deadbeef', deleted_at: '2024-01-01T00:00:00.000Z' },
    ]);
    await fetchLists(store, systems, options({ netdev: new FakeSource(months) }, { now: true }), silentProgress);
    expect(await store.db.all('SELECT source_ref FROM archive_deletions')).toHaveLength(1);
  });

  it('goes on with other lists when one fails, and counts transient failures on its host breaker', async () => {
    const store = getStore();
    await add('broken', 'https://lore.example.org');
    await add('netdev', 'https://lore.example.org');
    const broken = new FakeSource(archive({ 0: 3 }));
    broken.fault = { month: NOW_MONTH, afterItems: 1, error: new ArchiveError('502 Bad Gateway', 'transient') };
    const result = await fetchLists(
      store,
      systems,
      options({ broken, netdev: new FakeSource(archive({ 0: 2 })) }),
      silentProgress,
    );
    expect(result.totals).toMatchObject({ lists: 2, failed: 1, staged: 2 });
    const breaker = await store.db.get<{ consecutive_failures: number }>(
      'SELECT consecutive_failures FROM circuit_breakers WHERE host = ?',
      ['lore.example.org'],
    );
    // broken failed first (claimed by name order), then netdev succeeded and reset the count.
    expect(Number(breaker!.consecutive_failures)).toBe(0);
  });

  it('claims nothing behind an open breaker', async () => {
    const store = getStore();
    await add('netdev', 'https://lore.example.org');
    await add('local');
    for (let i = 0; i < 10; i++)
      await store.breakers.recordFailure('lore.example.org', new Date(), (failures) =>
        breakerOpenUntil(failures, new Date()),
      );
    const result = await fetchLists(
      store,
      systems,
      options(
        { netdev: new FakeSource(archive({ 0: 1 })), local: new FakeSource(archive({ 0: 1 }, 'l')) },
        { now: true },
      ),
      silentProgress,
    );
    expect(result.lists.map((l) => l.list)).toEqual(['local']);
  });

  it('fails a list at once on a permanent error without touching the breaker', async () => {
    const store = getStore();
    await add('netdev', 'https://lore.example.org');
    const source = new FakeSource(archive({ 0: 2 }));
    source.fault = { month: NOW_MONTH, afterItems: 0, error: new ArchiveError('no such inbox', 'permanent') };
    const result = await fetchLists(store, systems, options({ netdev: source }), silentProgress);
    expect(result.lists[0]).toMatchObject({ status: 'failed', error: { kind: 'permanent' } });
    expect(await store.breakers.openHosts()).toEqual([]);
    expect(await store.db.all('SELECT * FROM circuit_breakers')).toEqual([]);
  });

  it("keeps an archive error's hint in the failed list's result, and names it under the failure's line", async () => {
    const store = getStore();
    await add('netdev', 'https://lore.example.org');
    const source = new FakeSource(archive({ 0: 2 }));
    const hint = 'Check the host name lore.example.org and the network.';
    source.fault = {
      month: NOW_MONTH,
      afterItems: 0,
      error: new ArchiveError('lore.example.org could not be resolved', 'transient', undefined, hint),
    };
    const result = await fetchLists(store, systems, options({ netdev: source }), silentProgress);
    expect(result.lists[0]).toMatchObject({ status: 'failed', error: { message: expect.any(String), hint } });
    expect(describeFailures(result)).toEqual([
      expect.stringMatching(
        /^public_inbox netdev \d{4}-\d\d: lore\.example\.org could not be resolved \(next try after /,
      ),
      `Hint: ${hint}`,
    ]);
  });

  it('with several workers fetches every list exactly once', async () => {
    const store = getStore();
    const sources: Record<string, FakeSource> = {};
    for (let i = 0; i < 7; i++) {
      await add(`list-${i}`);
      sources[`list-${i}`] = new FakeSource(archive({ 1: 3, 0: 2 }, `l${i}-`));
    }
    const result = await fetchLists(store, systems, options(sources, { workers: 3, full: true }), silentProgress);
    expect(result.lists.map((l) => l.list).sort()).toEqual(Object.keys(sources).sort());
    expect(result.totals.staged).toBe(35);
    expect(Object.values(sources).map((s) => s.closed)).toEqual(new Array(7).fill(1));
  });

  it('fails a list whose backend cannot be loaded and goes on with the others', async () => {
    const store = getStore();
    await add('netdev');
    await add('bpf');
    const result = await fetchLists(
      store,
      systems,
      options(
        {},
        {
          openSource: async (_backend, list) => {
            if (list.name === 'netdev') throw new Error('Cannot find module');
            return new FakeSource(archive({ 0: 2 }));
          },
        },
      ),
      silentProgress,
    );
    expect(result.lists.map((l) => [l.list, l.status]).sort()).toEqual([
      ['bpf', 'done'],
      ['netdev', 'failed'],
    ]);
    expect(await store.lists.byName('public_inbox', 'netdev')).toMatchObject({ failedAttempts: 1, lockedAt: null });
  });

  it('refuses a --list name that is not registered', async () => {
    const store = getStore();
    await expect(fetchLists(store, systems, options({}, { lists: ['nope'] }), silentProgress)).rejects.toThrow(
      'No list "nope" is registered.',
    );
  });
});
