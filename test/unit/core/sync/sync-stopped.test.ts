import { expect, it } from 'vitest';
import { silentProgress } from '../../../../src/core/progress.js';
import { syncLists } from '../../../../src/core/sync/sync-lists.js';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';
import { describeOnDialects } from '../../../helpers/describe-on-dialects.js';
import { FakeSource, archive } from '../../../helpers/fake-archive-source.js';

describeOnDialects('sync stopped on $dialect', (getStore) => {
  const systems = loadSystems();

  it('in fetch, counts in its classify figures the mail it labelled as it arrived', async () => {
    const store = getStore();
    await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    const controller = new AbortController();
    const source = new FakeSource(archive({ 2: 600, 1: 600, 0: 5 }));
    const original = source.fetchMonth.bind(source);
    // Stopped in the second month: the first month's batches are written and labelled, then the batch at hand.
    source.fetchMonth = async function* (context, m) {
      for await (const item of original(context, m)) {
        if (item.sourceRef === '1/100') controller.abort();
        yield item;
      }
    };
    const result = await syncLists(
      store,
      systems,
      {
        full: true,
        cadenceDays: 30,
        cacheDir: '/nonexistent',
        openSource: async () => source,
        signal: controller.signal,
      },
      silentProgress,
    );
    expect(result.interrupted).toBe(true);
    expect(result.drain).toBeUndefined();
    const labelled = await store.db.get<{ n: number }>(
      "SELECT count(*) AS n FROM staged_messages WHERE status = 'classified'",
    );
    expect(Number(labelled!.n)).toBeGreaterThanOrEqual(600);
    expect(result.classify).toMatchObject({
      interrupted: true,
      classified: Number(labelled!.n),
      lists: [expect.objectContaining({ list: 'netdev', classified: Number(labelled!.n) })],
    });
    expect(Object.values(result.classify!.classes).reduce((sum, n) => sum + n, 0)).toBe(Number(labelled!.n));
  });
});
