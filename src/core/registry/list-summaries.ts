import type { FetchGap } from '../store/fetch-state-records.js';
import type { ListCounts, ListRecord, SkippedSourceEntry } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import { listState, type ListState } from './register-list.js';

export interface ListSummary extends ListRecord {
  state: ListState;
  counts: ListCounts;
  /** Entries of a local source fetch could not read and skipped. */
  skippedEntries: SkippedSourceEntry[];
  /** Months fetch could not read run after run and went past; tried again on every fetch. */
  gaps: Array<Omit<FetchGap, 'listId' | 'system' | 'list'>>;
}

export async function listLists(store: Store, filter: { system?: string } = {}): Promise<ListSummary[]> {
  const [lists, counts, skipped, gaps] = await Promise.all([
    store.lists.all(filter),
    store.lists.counts(),
    store.lists.skippedEntries(),
    store.fetchState.gaps(),
  ]);
  return lists.map((list) => ({
    ...list,
    state: listState(list),
    counts: counts.get(list.id) ?? { staged: 0, drained: 0, deferred: 0, shunted: 0 },
    skippedEntries: skipped.get(list.id) ?? [],
    gaps: gaps
      .filter((gap) => gap.listId === list.id)
      .map(({ listId: _id, system: _system, list: _list, ...gap }) => gap),
  }));
}
