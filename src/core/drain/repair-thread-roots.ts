import type { DrainRecords, PlacedMessage, ThreadRoot, ThreadRow } from '../store/drain-records.js';

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
export interface ThreadRoots {
  /** The root of each message about to be written, by its key. */
  fresh: Map<string, ThreadRoot>;
  /** Messages drained earlier whose root changed now, with their new roots (DrainRecords.setThreadRoots). */
  repairs: Array<{ id: number; rootKey: string; rootId: number }>;
}

/**
 * Works out the roots of messages about to be written (placed, with their
 * ids) and again of every stored message that names them; call it in the
 * transaction that writes them.
 */
export async function repairThreadRoots(
  records: DrainRecords,
  listId: number,
  placed: readonly PlacedMessage[],
): Promise<ThreadRoots> {
  if (placed.length === 0) return { fresh: new Map(), repairs: [] };
  const newKeys = placed.map((m) => m.messageKey);
  const fresh = new Set(newKeys);
  const affected = new Set(newKeys);
  // What is being written is known without asking the store: only older mail naming it is read.
  const rows = new Map<string, ThreadRow>();
  let frontier = [...newKeys];
  while (frontier.length > 0) {
    const next = (await records.descendantsNaming(listId, frontier)).filter((row) => !affected.has(row.messageKey));
    for (const row of next) {
      affected.add(row.messageKey);
      rows.set(row.messageKey, row);
    }
    frontier = next.map((row) => row.messageKey);
  }
  const links = await records.threadLinks(rows.values());
  for (const m of placed) {
    rows.set(m.messageKey, {
      id: m.id,
      messageKey: m.messageKey,
      sentAt: m.sentAt,
      threadRootKey: null,
      threadRootId: null,
    });
    if (m.ancestors.length > 0) links.set(m.messageKey, m.ancestors);
  }
  const outside = new Set<string>();
  for (const ancestors of links.values()) for (const id of ancestors) if (!affected.has(id)) outside.add(id);
  const stored = await records.threadRows(listId, outside);

  const anchorOf = (key: string): string | undefined =>
    (links.get(key) ?? []).find((id) => id !== key && (rows.has(id) || stored.has(id)));

  const roots = new Map<string, ThreadRoot>();
  for (const start of rows.keys()) {
    if (roots.has(start)) continue;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let current = start;
    let root: ThreadRoot;
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
        root =
          settled.threadRootKey !== null && settled.threadRootId !== null
            ? { key: settled.threadRootKey, id: settled.threadRootId }
            : { key: anchor, id: settled.id };
        break;
      }
      current = anchor;
    }
    for (const key of path) roots.set(key, root);
  }

  const repairs = [...roots]
    .filter(
      ([key, root]) =>
        !fresh.has(key) && (rows.get(key)!.threadRootKey !== root.key || rows.get(key)!.threadRootId !== root.id),
    )
    .map(([key, root]) => ({ id: rows.get(key)!.id, rootKey: root.key, rootId: root.id }));
  return { fresh: new Map(newKeys.map((key) => [key, roots.get(key)!])), repairs };
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
