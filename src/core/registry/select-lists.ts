import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../errors.js';
import type { ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';

/** What `--list` and `--system` ask for. */
export interface ListSelection {
  /** Names as the user typed them: an address, an inbox name, or a path (relative or absolute). */
  names?: readonly string[];
  system?: string;
}

/**
 * The one way every command turns `--list` and `--system` into lists. With
 * names, each must name exactly one registered list: an address or inbox name
 * in any case, or a path as typed from here (local lists are registered by
 * their absolute path). Without names, every list (of `--system`, if given).
 */
export async function selectLists(store: Store, selection: ListSelection): Promise<ListRecord[]> {
  if (!selection.names || selection.names.length === 0) return store.lists.all({ system: selection.system });
  const selected = new Map<number, ListRecord>();
  for (const name of selection.names) {
    const list = await selectList(store, name, selection.system);
    selected.set(list.id, list);
  }
  return [...selected.values()];
}

/** The one list a name refers to; an unknown or ambiguous name is refused (exit 2). */
export async function selectList(store: Store, name: string, system?: string): Promise<ListRecord> {
  const path = resolve(name.trim());
  // A local archive's list is named by its real path (register-list.ts): a link to it names it too.
  const real = existsSync(path) ? realpathSync(path) : path;
  const spellings = [...new Set([name, name.trim(), name.trim().toLowerCase(), path, real])];
  const lists = (await store.lists.find(spellings)).filter((list) => !system || list.system === system);
  if (lists.length === 0) {
    const where = system ? ` in the ${system} system` : '';
    throw new InputError(
      `No list "${name}" is registered${where}.`,
      'See `listminer lists ls` for the registered lists, or add it with `listminer lists add`.',
    );
  }
  if (lists.length > 1) {
    const candidates = lists.map((list) => `${list.system} ${list.name}`).join('; ');
    throw new InputError(
      `"${name}" names ${lists.length} lists: ${candidates}.`,
      `Add --system (one of ${[...new Set(lists.map((l) => l.system))].join(', ')}) to choose one.`,
    );
  }
  return lists[0]!;
}

/** The ids of the lists `--list`/`--system` name, or undefined when they name none: every list then. */
export async function selectListIds(store: Store, selection: ListSelection): Promise<number[] | undefined> {
  if (!selection.names?.length && !selection.system) return undefined;
  return (await selectLists(store, selection)).map((list) => list.id);
}
