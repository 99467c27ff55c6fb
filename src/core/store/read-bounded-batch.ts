import { inPlaceholders, type SqlSession } from './sql-driver.js';

export interface BoundedBatch {
  /** `staged_messages` rows the batch may hold: a WHERE condition with `?` placeholders, and their values. */
  where: string;
  params: readonly (string | number)[];
  /** Keyset position: the batch starts after this id. */
  afterId: number;
  limit: number;
  /** Raw bytes the batch may hold (the staged `size`), unless its first message alone is larger. */
  maxBytes: number;
}

/**
 * The next batch of staged rows in id order, bounded by rows and by bytes, so
 * a stage's memory follows the batch budget however large the messages are.
 * The ids are chosen from the sizes first; `read` then loads just those rows.
 * Rows another process moved on between the two reads are skipped, not
 * taken for the end.
 */
export async function readBoundedBatch<T>(
  db: SqlSession,
  batch: BoundedBatch,
  read: (ids: readonly number[]) => Promise<T[]>,
): Promise<T[]> {
  for (let from = batch.afterId; ;) {
    const sizes = await db.all<{ id: number; size: number }>(
      `SELECT id, size FROM staged_messages WHERE ${batch.where} AND id > ? ORDER BY id LIMIT ?`,
      [...batch.params, from, batch.limit],
    );
    if (sizes.length === 0) return [];
    const ids: number[] = [];
    let bytes = 0;
    for (const row of sizes) {
      bytes += Number(row.size);
      if (ids.length > 0 && bytes > batch.maxBytes) break;
      ids.push(Number(row.id));
    }
    const rows = await read(ids);
    if (rows.length > 0) return rows;
    from = ids[ids.length - 1]!;
  }
}

/** `id IN (?, ?, …)` for the ids of a bounded batch. */
export function idsIn(ids: readonly number[]): string {
  return `id IN (${inPlaceholders(ids.length)})`;
}
