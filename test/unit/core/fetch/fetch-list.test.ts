import { expect, it } from 'vitest';
import type { ArchiveItem, ArchiveSource, Month } from '../../../../src/core/archive/archive-source.js';
import { addMonths, monthOf } from '../../../../src/core/archive/month.js';
import { ArchiveError } from '../../../../src/core/errors.js';
import { fetchLists, type FetchOptions } from '../../../../src/core/fetch/fetch-lists.js';
import { silentProgress } from '../../../../src/core/progress.js';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';
import { describeOnDialects } from '../../../helpers/describe-on-dialects.js';

const NOW_MONTH = monthOf(new Date());
const month = (back: number) => addMonths(NOW_MONTH, -back);

function mail(id: string): Buffer {
  return Buffer.from(
    `From: Dev <dev@example.org>\nSubject: [PATCH] ${id}\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <${id}>\n\nbody of ${id}\n`,
  );
}

/** An archive in memory: months of messages. */
class FakeSource implements ArchiveSource {
  readonly name = 'fake';
  constructor(readonly months: Map<Month, ArchiveItem[]>) {}
  async firstMonth(): Promise<Month | undefined> {
    return [...this.months.keys()].sort()[0];
  }
  async *fetchMonth(_context: unknown, m: Month): AsyncIterable<ArchiveItem> {
    yield* this.months.get(m) ?? [];
  }
}

function archive(spec: Record<number, number>): Map<Month, ArchiveItem[]> {
  const months = new Map<Month, ArchiveItem[]>();
  for (const [back, count] of Object.entries(spec)) {
    months.set(
      month(Number(back)),
      Array.from({ length: count }, (_, i) => ({ raw: mail(`m${back}-${i}@example.org`), sourceRef: `${back}/${i}` })),
    );
  }
  return months;
}

describeOnDialects('what fetch reports on $dialect', (getStore) => {
  const systems = loadSystems();
  const options = (source: FakeSource, extra: Partial<FetchOptions> = {}): FetchOptions => ({
    cadenceDays: 30,
    cacheDir: '/nonexistent',
    openSource: async () => source,
    full: true,
    ...extra,
  });
  const stored = async () =>
    Number((await getStore().db.get<{ n: number }>('SELECT COUNT(*) AS n FROM staged_messages'))!.n);

  it('counts as staged only batches that committed: one rolled back at its commit is not counted', async () => {
    const store = getStore();
    await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    // The second batch's transaction fails after its rows were inserted, before it commits.
    const transaction = store.transaction.bind(store);
    let transactions = 0;
    store.transaction = (fn) =>
      transaction(async (tx) => {
        const result = await fn(tx);
        if (++transactions === 2) throw new Error('the transaction failed at its end');
        return result;
      });
    const result = await fetchLists(store, systems, options(new FakeSource(archive({ 2: 3, 1: 4 }))), silentProgress);
    expect(result.lists[0]).toMatchObject({ status: 'failed', staged: 3 });
    expect(await stored()).toBe(3);
    expect(result.totals.staged).toBe(3);
  });

  it('counts as seen only what it wrote: a batch a failure left half read is read again next time, and counted then', async () => {
    const store = getStore();
    await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    const months = archive({ 1: 600 });
    let broken = true;
    /** Breaks off after 550 messages of the month, the second batch half read, as a server gone mid-month does. */
    class BreaksOff extends FakeSource {
      override async *fetchMonth(context: unknown, m: Month): AsyncIterable<ArchiveItem> {
        let handed = 0;
        for await (const item of super.fetchMonth(context, m)) {
          if (broken && handed++ === 550) throw new ArchiveError('the server went away', 'transient');
          yield item;
        }
      }
    }
    const run = () => fetchLists(store, systems, options(new BreaksOff(months), { now: true }), silentProgress);
    const first = (await run()).lists[0]!;
    expect(first).toMatchObject({ status: 'failed', staged: 512, seen: 512, duplicates: 0 });
    broken = false;
    const second = (await run()).lists[0]!;
    expect(second).toMatchObject({ status: 'done', staged: 88, seen: 600, duplicates: 512 });
  });

  it('says which process on which host holds a list, since when, and when its lock counts as abandoned', async () => {
    const store = getStore();
    const { list } = await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    const since = new Date(Date.now() - 10 * 60_000).toISOString();
    await store.db.run(
      "INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host) VALUES (?, 'fetch', ?, 4242, 'another-boot', 'elsewhere.example.org')",
      [list.id, since],
    );
    const result = await fetchLists(
      store,
      systems,
      options(new FakeSource(archive({ 1: 2 })), { now: true }),
      silentProgress,
    );
    expect(result.lists).toEqual([]);
    expect(result.heldElsewhere).toEqual([
      {
        system: 'public_inbox',
        list: 'netdev',
        host: 'elsewhere.example.org',
        pid: 4242,
        since,
        staleAt: new Date(Date.parse(since) + 2 * 3_600_000).toISOString(),
      },
    ]);

    const named = await fetchLists(
      store,
      systems,
      options(new FakeSource(archive({ 1: 2 })), { now: true, lists: ['netdev'] }),
      silentProgress,
    );
    expect(named.lists[0]!.reason).toMatch(/held by pid 4242 on elsewhere\.example\.org since .*taken over at .*2 h/);
    expect(await stored()).toBe(0);
  });
  it.each([
    ['transient', true],
    ['rate_limited', false],
    ['permanent', false],
  ] as const)(
    'at the third run in a row of a month failing with %s errors, goes past it as a gap: %s',
    async (kind, becomesGap) => {
      const store = getStore();
      await store.lists.register({ system: 'public_inbox', name: 'netdev' });
      const months = archive({ 2: 2, 1: 3, 0: 1 });
      class BrokenMonth extends FakeSource {
        override async *fetchMonth(context: unknown, m: Month): AsyncIterable<ArchiveItem> {
          if (m === month(1))
            throw new ArchiveError(`${m} is broken`, kind, kind === 'rate_limited' ? 1000 : undefined);
          yield* super.fetchMonth(context, m);
        }
      }
      const run = () => fetchLists(store, systems, options(new BrokenMonth(months), { now: true }), silentProgress);
      for (let i = 0; i < 2; i++) expect((await run()).lists[0]).toMatchObject({ status: 'failed' });
      const third = (await run()).lists[0]!;
      if (becomesGap) {
        expect(third).toMatchObject({ status: 'done', gaps: [month(1)] });
        expect(await stored()).toBe(3);
        expect(await store.fetchState.gapMonths(third.listId)).toEqual([month(1)]);
      } else {
        expect(third).toMatchObject({ status: 'failed', error: { kind } });
        expect(third.gaps).toBeUndefined();
        expect(await store.fetchState.gaps()).toEqual([]);
      }
    },
  );
});
