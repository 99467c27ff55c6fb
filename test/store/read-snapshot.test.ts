import { expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

const NOW = '2024-03-05T09:00:00.000Z';

// store.readSnapshot: what export and render read through, so that their files are of one moment.
describeOnDialects('a read snapshot on $dialect', (getStore) => {
  const addList = (store: { db: { run: (sql: string, params: string[]) => Promise<unknown> } }, name: string) =>
    store.db.run("INSERT INTO lists (system, name, created_at) VALUES ('mbox', ?, ?)", [name, NOW]);
  const countLists = async (store: { db: { get: <T>(sql: string) => Promise<T | undefined> } }) =>
    Number((await store.db.get<{ n: unknown }>('SELECT COUNT(*) AS n FROM lists'))!.n);

  it('sees the store as it was at its first read while another connection commits, without making that one wait', async () => {
    const reader = getStore();
    await addList(reader, 'before');
    const writer = await openStore(reader.url);
    try {
      const seen = await reader.readSnapshot(async (snapshot) => {
        const first = await countLists(snapshot);
        // Awaited inside the snapshot: a writer made to wait for it would never finish here.
        await writer.transaction((tx) => addList(tx, 'during'));
        expect(await countLists(writer)).toBe(2);
        return [first, await countLists(snapshot)];
      });
      expect(seen).toEqual([1, 1]);
      expect(await countLists(reader)).toBe(2);
    } finally {
      await writer.close();
    }
  });

  it('refuses a write inside it and leaves the store as it was', async () => {
    const store = getStore();
    await expect(store.readSnapshot((snapshot) => addList(snapshot, 'written'))).rejects.toThrow();
    expect(await countLists(store)).toBe(0);
    // The connection is whole afterwards: writes go on outside it.
    await addList(store, 'after');
    expect(await countLists(store)).toBe(1);
  });

  it('is not taken inside a transaction, which on PostgreSQL would not be one moment', async () => {
    const store = getStore();
    await expect(store.transaction((tx) => tx.readSnapshot(() => Promise.resolve(1)))).rejects.toThrow(
      /outside any transaction/,
    );
  });
});
