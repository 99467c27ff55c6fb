import type { ListCounts, ListRecord, SkippedSourceEntry } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import { listState, type ListState } from './register-list.js';

export interface ListSummary extends ListRecord {
  state: ListState;
  counts: ListCounts;
  /** Entries of a local source fetch could not read and skipped. */
  skippedEntries: SkippedSourceEntry[];
}

export async function listLists(store: Store, filter: { system?: string } = {}): Promise<ListSummary[]> {
  const [lists, counts, skipped] = await Promise.all([store.lists.all(filter), store.lists.counts(), store.lists.skippedEntries()]);
  return lists.map((list) => ({
    ...list,
    state: listState(list),
    counts: counts.get(list.id) ?? { staged: 0, drained: 0, deferred: 0, shunted: 0 },
    skippedEntries: skipped.get(list.id) ?? [],
  }));
}
