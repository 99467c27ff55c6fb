import type { DrainRecords, ThreadRow, WrittenMessage } from '../store/drain-records.js';

/**
 * Thread roots (docs/drain.md has the rule and why). A message's anchor is
 * the first of its ancestors, oldest first, that is drained in the same
 * list; its root is its anchor's root, or itself when it has no anchor. When
 * anchors form a loop, the loop's earliest-sent member (then the smallest
 * key) is the root of all of it. The root depends only on which messages are
 * stored, never on the order they came in: whenever messages are drained,
 * they and every stored message that names them as an ancestor, transitively,
 * are worked out again, and a message that arrived before its parent gets
 * its root repaired.
 */
export interface RootRepair {
  /** Messages drained earlier whose root changed now. */
  repaired: number;
}

interface Root {
  key: string;
  id: number;
}

/** Works out the roots again for newly drained messages and what names them; call it in the transaction that wrote them. */
export async function repairThreadRoots(records: DrainRecords, listId: number, written: readonly WrittenMessage[]): Promise<RootRepair> {
  if (written.length === 0) return { repaired: 0 };
  const newKeys = written.map((m) => m.messageKey);
  const fresh = new Set(newKeys);
  const affected = new Set(newKeys);
  let frontier = [...newKeys];
  while (frontier.length > 0) {
    const next = (await records.descendantsNaming(listId, frontier)).filter((key) => !affected.has(key));
    for (const key of next) affected.add(key);
    frontier = next;
  }

  // What was just written is known without asking the store: only older mail naming it is read.
  const older = [...affected].filter((key) => !fresh.has(key));
  const rows = await records.threadRows(listId, older);
  const links = await records.threadLinks(listId, older);
  for (const m of written) {
    rows.set(m.messageKey, { id: m.id, messageKey: m.messageKey, sentAt: m.sentAt, threadRootKey: null, threadRootId: null });
    if (m.ancestors.length > 0) links.set(m.messageKey, m.ancestors);
  }
  const outside = new Set<string>();
  for (const ancestors of links.values()) for (const id of ancestors) if (!affected.has(id)) outside.add(id);
  const stored = await records.threadRows(listId, outside);

  const anchorOf = (key: string): string | undefined => (links.get(key) ?? []).find((id) => id !== key && (rows.has(id) || stored.has(id)));

  const roots = new Map<string, Root>();
  for (const start of rows.keys()) {
    if (roots.has(start)) continue;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let current = start;
    let root: Root;
    for (;;) {
      const known = roots.get(current);
      if (known) {
        root = known;
        break;
      }
      const seenAt = onPath.get(current);
      if (seenAt !== undefined) {
        const loop = path.slice(seenAt);
        const first = earliest(loop.map((key) => rows.get(key)!));
        root = { key: first.messageKey, id: first.id };
        break;
      }
      onPath.set(current, path.length);
      path.push(current);
      const anchor = anchorOf(current);
      if (anchor === undefined) {
        root = { key: current, id: rows.get(current)!.id };
        break;
      }
      const settled = stored.get(anchor);
      if (settled) {
        // Not affected by this drain, so its stored root is still right.
        root = settled.threadRootKey !== null && settled.threadRootId !== null ? { key: settled.threadRootKey, id: settled.threadRootId } : { key: anchor, id: settled.id };
        break;
      }
      current = anchor;
    }
    for (const key of path) roots.set(key, root);
  }

  const changed = [...roots]
    .filter(([key, root]) => rows.get(key)!.threadRootKey !== root.key || rows.get(key)!.threadRootId !== root.id)
    .map(([key, root]) => ({ key, id: rows.get(key)!.id, rootKey: root.key, rootId: root.id }));
  await records.setThreadRoots(changed);
  return { repaired: changed.filter((c) => !fresh.has(c.key)).length };
}

function earliest(rows: ThreadRow[]): ThreadRow {
  return rows.reduce((best, row) => (compareSent(row, best) < 0 ? row : best));
}

function compareSent(a: ThreadRow, b: ThreadRow): number {
  if (a.sentAt !== b.sentAt) {
    if (a.sentAt === null) return 1;
    if (b.sentAt === null) return -1;
    return new Date(a.sentAt).getTime() - new Date(b.sentAt).getTime();
  }
  return a.messageKey < b.messageKey ? -1 : a.messageKey > b.messageKey ? 1 : 0;
}
