import { expect } from 'vitest';
import { drainLists, type DrainOptions, type DrainResult } from '../../src/core/drain/drain-lists.js';
import type { Store } from '../../src/core/store/store.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { mail as mailWith, stageClassified } from './stage-classified.js';

/** Registers a list, with a repo when a URL is given. */
export async function addTestList(
  store: Store,
  name: string,
  repoUrl?: string,
  system = 'apache_ponymail',
): Promise<number> {
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
    thread_links: 'email_message_id, position',
    stage_locks: 'list_id, stage',
    repos: 'id',
    lists: 'id',
  };
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(tables))
    out[table] = await store.db.all(`SELECT * FROM ${table} ORDER BY ${order}`);
  return out;
}

export async function statusCounts(store: Store, listId: number): Promise<Record<string, number>> {
  const rows = await store.db.all<{ status: string; n: number }>(
    'SELECT status, COUNT(*) AS n FROM staged_messages WHERE list_id = ? GROUP BY status',
    [listId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

const contractMail = (id: string) =>
  mailWith(
    { From: 'a@example.org', Subject: 'a subject', Date: 'Mon, 1 Jan 2024 10:00:00 +0000', 'Message-ID': `<${id}>` },
    'hello\n',
  );

/**
 * The drain contract on three lists (one with a repo, kernel mail with a
 * repo, one without): every staged message ends drained, deferred or
 * shunted, the counts drain reports are the rows it wrote, two messages that
 * cannot be drained are shunted with their error, and a second drain changes
 * nothing.
 */
export async function expectDrainAccountsForEveryMessage(
  store: Store,
  mail: { withRepo: Buffer[]; kernel: Buffer[]; noRepo: Buffer[] },
): Promise<void> {
  const withRepo = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
  const lkml = await addTestList(store, 'lkml@example.org', 'https://github.com/torvalds/linux');
  const noRepo = await addTestList(store, 'users@kafka.apache.org');
  for (const raw of mail.withRepo) await stageClassified(store, withRepo, raw);
  for (const raw of mail.kernel) await stageClassified(store, lkml, raw);
  for (const raw of mail.noRepo) await stageClassified(store, noRepo, raw);
  // Two that cannot be drained: no class (the table refuses it) and an envelope that is not one.
  await stageClassified(store, withRepo, contractMail('no-class@x'), { msgClass: null });
  const broken = await stageClassified(store, withRepo, contractMail('bad-envelope@x'));
  await store.db.run("UPDATE staged_envelopes SET envelope = '[]' WHERE staged_message_id = ?", [broken.stagedId]);
  // One whose envelope is missing, as sync leaves mail it labelled to drain on arrival and was stopped before
  // draining: read again from its bytes and drained.
  const bare = await stageClassified(store, withRepo, contractMail('bare@x'));
  await store.db.run('DELETE FROM staged_envelopes WHERE staged_message_id = ?', [bare.stagedId]);

  const first = await drain(store, { workers: 2 });
  for (const listId of [withRepo, lkml, noRepo]) {
    const counts = await statusCounts(store, listId);
    const staged = Object.values(counts).reduce((a, b) => a + b, 0);
    expect(staged).toBeGreaterThan(5);
    expect((counts.drained ?? 0) + (counts.deferred ?? 0) + (counts.shunted ?? 0)).toBe(staged);
    const stored = await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM email_messages WHERE list_id = ?', [
      listId,
    ]);
    expect(Number(stored!.n)).toBe(counts.drained ?? 0);
    const result = first.lists.find((l) => l.listId === listId)!;
    expect(result.drained).toBe(counts.drained ?? 0);
    expect(result.deferred).toBe(counts.deferred ?? 0);
    expect(result.shunted).toBe(counts.shunted ?? 0);
  }
  expect(first.lists.find((l) => l.listId === noRepo)).toMatchObject({ status: 'deferred', drained: 0 });
  expect((await statusCounts(store, withRepo)).shunted).toBe(2);
  const shunted = await store.db.all<{ message_key: string; error: string }>(
    "SELECT message_key, error FROM staged_messages WHERE status = 'shunted' ORDER BY message_key",
  );
  expect(shunted.map((r) => r.message_key)).toEqual(['bad-envelope@x', 'no-class@x']);
  expect(shunted.every((r) => r.error.length > 0)).toBe(true);
  expect(
    await store.db.get('SELECT subject FROM email_messages WHERE list_id = ? AND message_key = ?', [
      withRepo,
      'bare@x',
    ]),
  ).toEqual({ subject: expect.any(String) });

  const before = await snapshotTables(store);
  const second = await drain(store, { workers: 2 });
  expect(second.drained).toBe(0);
  expect(second.shunted).toBe(0);
  expect(second.threadsRepaired).toBe(0);
  expect(await snapshotTables(store)).toEqual(before);
}

/** Message key → thread root key of a list's stored mail, after checking every thread_root_id points at the row of its root key. */
export async function threadRoots(store: Store, listId: number): Promise<Record<string, string>> {
  const rows = await store.db.all<{ id: number; message_key: string; thread_root_key: string; thread_root_id: number }>(
    'SELECT id, message_key, thread_root_key, thread_root_id FROM email_messages WHERE list_id = ? ORDER BY message_key',
    [listId],
  );
  const idOf = new Map(rows.map((r) => [r.message_key, Number(r.id)]));
  for (const row of rows) expect(Number(row.thread_root_id), row.message_key).toBe(idOf.get(row.thread_root_key));
  return Object.fromEntries(rows.map((r) => [r.message_key, r.thread_root_key]));
}

/**
 * Stages `messages` and drains them at once, then drains them again from
 * scratch newest first, `chunk` at a time in batches of `batchSize`, and
 * expects the same thread roots both ways; the roots.
 */
export async function expectSameRootsInAnyOrder(
  store: Store,
  listId: number,
  messages: Buffer[],
  chunk: number,
  batchSize?: number,
): Promise<Record<string, string>> {
  for (const raw of messages) await stageClassified(store, listId, raw);
  await drain(store);
  const together = await threadRoots(store, listId);
  await store.db.run('DELETE FROM email_messages');
  await store.db.run('DELETE FROM thread_links');
  await store.db.run("UPDATE staged_messages SET status = 'staged'");
  const reversed = [...messages].reverse();
  for (let i = 0; i < reversed.length; i += chunk) {
    for (const raw of reversed.slice(i, i + chunk)) {
      const { stagedId } = await stageClassified(store, listId, raw);
      await store.db.run("UPDATE staged_messages SET status = 'classified' WHERE id = ?", [stagedId]);
    }
    await drain(store, batchSize ? { batchSize } : {});
  }
  expect(await threadRoots(store, listId)).toEqual(together);
  return together;
}

/**
 * Stages `messages`, which reuse the Message-ID `shared`, and a reply to
 * that id: every one is stored, the reply threads to the first holder of the
 * id, and each other holder is its own root.
 */
export async function expectReusedIdThreaded(
  store: Store,
  listId: number,
  messages: Buffer[],
  shared: string,
): Promise<void> {
  for (const raw of messages) await stageClassified(store, listId, raw);
  await stageClassified(
    store,
    listId,
    mailWith({
      From: 'Sean <sean@example.org>',
      Subject: 'Re: severity',
      'Message-ID': '<reply@x>',
      'In-Reply-To': `<${shared}>`,
      Date: 'Fri, 21 Dec 2018 10:00:00 +0000',
    }),
  );
  await drain(store);
  const roots = await threadRoots(store, listId);
  const staged = Number(
    (await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM staged_messages WHERE list_id = ?', [listId]))!.n,
  );
  expect(Object.keys(roots)).toHaveLength(staged);
  expect(roots['reply@x']).toBe(shared);
  for (const [key, root] of Object.entries(roots)) if (key.startsWith(`${shared}#`)) expect(root).toBe(key);
}
