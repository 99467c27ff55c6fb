import { expect } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { classifyStaged } from '../../src/core/classify/classify-staged.js';
import { projectLists } from '../../src/core/project/project-lists.js';
import type { Store } from '../../src/core/store/store.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { addTestList, drain } from './drain-fixtures.js';

/** One row of pr_equivalents, as the tests compare it. */
export interface Row {
  list: string;
  title: string;
  author: string;
  version: number;
  versions: number;
  patches: number;
  cover: boolean;
  replies: number;
  reviewed: number;
  acked: number;
  tested: number;
  participants: number;
  merged: boolean;
}

export type Expected = Omit<Row, 'list' | 'merged'> & { merged?: boolean };
export const series = (title: string, author: string, counts: Partial<Expected> = {}): Expected => ({
  title,
  author,
  version: 1,
  versions: 1,
  patches: 1,
  cover: false,
  replies: 0,
  reviewed: 0,
  acked: 0,
  tested: 0,
  participants: 1,
  ...counts,
});

async function loadList(store: Store, name: string, messages: Buffer[]): Promise<void> {
  const listId = await addTestList(store, name, 'https://github.com/torvalds/linux', 'public_inbox');
  await store.staging.stageBatch(
    listId,
    null,
    messages.map((raw) => ({ raw, ...identifyMessage(raw) })),
  );
}

/** Each list (name → its mail) staged, classified, drained and projected under the bundled rules; the pr_equivalents rows that makes. */
export async function projectedEquivalents(
  store: Store,
  lists: ReadonlyArray<[name: string, messages: Buffer[]]>,
): Promise<Row[]> {
  const systems = loadSystems();
  for (const [name, messages] of lists) await loadList(store, name, messages);
  await classifyStaged(store, systems, {}, () => {});
  await drain(store);
  const result = await projectLists(store, { systems }, () => {});
  expect(result.lists.every((l) => l.status === 'projected' && l.policy === 'none')).toBe(true);
  return equivalents(store);
}

/** The rows of one list, without the list name, against the series counted by hand. */
export function expectSeries(rows: Row[], list: string, expected: Expected[]): void {
  const got = rows.filter((r) => r.list === list).map(({ list: _, ...rest }) => rest);
  expect(got).toEqual(expected.map((e) => ({ merged: false, ...e })).sort(byTitle));
}

async function equivalents(store: Store): Promise<Row[]> {
  const rows = await store.db.all<Record<string, unknown>>(
    `SELECT l.name AS list, e.* FROM pr_equivalents e JOIN lists l ON l.id = e.list_id ORDER BY l.name, e.title, e.version`,
  );
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows
    .map((r) => {
      expect(r.source).toBe('mailing_list');
      return {
        list: String(r.list),
        title: String(r.title),
        author: String(r.author_address),
        version: Number(r.version),
        versions: Number(r.versions),
        patches: Number(r.patch_count),
        cover: Boolean(r.has_cover_letter),
        replies: Number(r.reply_count),
        reviewed: Number(r.reviewed_by),
        acked: Number(r.acked_by),
        tested: Number(r.tested_by),
        participants: Number(r.participants),
        merged: Boolean(r.merged),
      };
    })
    .sort((a, b) => byName(a.list, b.list) || byTitle(a, b));
}

/** Titles in code-point order, then versions: the same order whatever the database's collation. */
function byTitle(a: { title: string; version: number }, b: { title: string; version: number }): number {
  return (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) || a.version - b.version;
}
