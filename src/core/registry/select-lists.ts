import { realpathSync } from 'node:fs';
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

/**
 * The lists whose local archive is the file or folder at `path`, however
 * each was reached when it was registered: through a symbolic link or a
 * linked folder, the path differs and the archive is the same.
 */
export async function listsOfArchive(store: Store, system: string | undefined, path: string): Promise<ListRecord[]> {
  const real = realPath(path);
  if (real === undefined) return [];
  return (await store.lists.all({ system })).filter(
    (list) => list.name.startsWith('/') && realPath(list.name) === real,
  );
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The one list a name refers to; an unknown or ambiguous name is refused (exit 2). */
export async function selectList(store: Store, name: string, system?: string): Promise<ListRecord> {
  const path = resolve(name.trim());
  const spellings = [...new Set([name, name.trim(), name.trim().toLowerCase(), path])];
  let lists = (await store.lists.find(spellings)).filter((list) => !system || list.system === system);
  // A local archive reached another way (through a symbolic link, a linked folder) is its list too.
  if (lists.length === 0) lists = await listsOfArchive(store, system, path);
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
