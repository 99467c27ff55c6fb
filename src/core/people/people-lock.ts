import type { Store } from '../store/store.js';

/**
 * One transaction that changes people (merges, identities, progress). It
 * takes the people lock first, so two processes resolving or merging at once
 * change people one transaction at a time and each sees the other's merges:
 * without it two `people resolve` on PostgreSQL read the same mail, recorded
 * one merge twice, or deadlocked.
 */
export function changePeople<T>(store: Store, work: (tx: Store) => Promise<T>): Promise<T> {
  return store.transaction(async (tx) => {
    await tx.people.lock();
    return work(tx);
  });
}
