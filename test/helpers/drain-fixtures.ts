import { drainLists, type DrainOptions, type DrainResult } from '../../src/core/drain/drain-lists.js';
import type { Store } from '../../src/core/store/store.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';

/** Registers a list, with a repo when a URL is given. */
export async function addTestList(store: Store, name: string, repoUrl?: string, system = 'apache_ponymail'): Promise<number> {
  let repoId: number | undefined;
  if (repoUrl) {
    const url = new URL(repoUrl);
    const [owner, repoName] = url.pathname.slice(1).split('/');
    repoId = (await store.repos.ensure({ url: repoUrl, host: url.hostname, owner: owner!, name: repoName! })).repo.id;
  }
  return (await store.lists.register({ system, name, repoUrl, repoId })).list.id;
}

export function drain(store: Store, options: Partial<DrainOptions> = {}): Promise<DrainResult> {
  return drainLists(store, { systems: loadSystems(), ...options }, () => {});
}

/** Every row of the tables drain touches, in a stable order, for before/after comparisons. */
export async function snapshotTables(store: Store): Promise<Record<string, unknown[]>> {
  const tables: Record<string, string> = {
    staged_messages: 'id',
    email_messages: 'id',
    message_bodies: 'id',
    email_message_bodies: 'email_message_id',
    contributors: 'id',
    thread_links: 'list_id, message_key, position',
    stage_locks: 'list_id, stage',
    repos: 'id',
    lists: 'id',
  };
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(tables)) out[table] = await store.db.all(`SELECT * FROM ${table} ORDER BY ${order}`);
  return out;
}

export async function statusCounts(store: Store, listId: number): Promise<Record<string, number>> {
  const rows = await store.db.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM staged_messages WHERE list_id = ? GROUP BY status', [listId]);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
