import { expect, it } from 'vitest';
import { currentLockOwner } from '../../src/core/locks/lock-owner.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { addTestList, drain } from '../helpers/drain-fixtures.js';

const DEAD_PID = 2 ** 22 + 12345; // beyond pid_max: no such process

describeOnDialects('per-list stage locks on $dialect', (getStore) => {
  it('frees the drain lock a dead process left on a list with nothing to drain', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
    const me = currentLockOwner();
    await store.db.run(
      "INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host) VALUES (?, 'drain', ?, ?, ?, ?)",
      [listId, new Date().toISOString(), DEAD_PID, me.bootId, me.host],
    );
    expect((await drain(store)).lists).toEqual([]);
    expect(await store.locks.held()).toEqual([]);
  });

  it('keeps the lock of a live process of this machine, and of a process elsewhere until it is stale', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
    const me = currentLockOwner();
    const fresh = new Date().toISOString();
    await store.db.run(
      "INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host) VALUES (?, 'drain', ?, ?, ?, ?), (?, 'fetch', ?, ?, ?, ?)",
      [
        listId,
        fresh,
        process.ppid,
        me.bootId,
        me.host,
        listId,
        fresh,
        DEAD_PID,
        'another-boot',
        'elsewhere.example.org',
      ],
    );
    expect(await store.locks.recoverDead('drain', me)).toBe(0);
    expect(await store.locks.recoverDead('fetch', me)).toBe(0);
    expect(await store.locks.claim(listId, 'drain', me)).toBe(false);
    expect(await store.locks.claim(listId, 'fetch', me)).toBe(false);
    expect(await store.locks.claim(listId, 'fetch', me, new Date(Date.now() + 3 * 3_600_000))).toBe(true);
  });

  it('takes no lock of a list removed after it was chosen (lists rm beside a run), without failing', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
    await store.lists.remove(listId);
    const me = currentLockOwner();
    for (const stage of ['fetch', 'drain', 'project'] as const)
      expect(await store.locks.claim(listId, stage, me)).toBe(false);
    expect(await store.locks.held()).toEqual([]);
  });
});
