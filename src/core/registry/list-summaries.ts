import type { ListCounts, ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import { listState, type ListState } from './register-list.js';

export interface ListSummary extends ListRecord {
  state: ListState;
  counts: ListCounts;
}

export async function listLists(store: Store, filter: { system?: string } = {}): Promise<ListSummary[]> {
  const [lists, counts] = await Promise.all([store.lists.all(filter), store.lists.counts()]);
  return lists.map((list) => ({
    ...list,
    state: listState(list),
    counts: counts.get(list.id) ?? { staged: 0, drained: 0, deferred: 0, shunted: 0 },
  }));
}
