import type { Classification } from '../classify/envelope.js';
import { mapRow } from './row-mapping.js';
import { inPlaceholders, type SqlDriver } from './sql-driver.js';
import type { StagedStatus } from './staging-records.js';

/** A staged message as classify reads it. */
export interface MessageToClassify {
  id: number;
  listId: number;
  raw: Buffer;
  status: StagedStatus;
  msgClass: string | null;
}

/** What classify decided for one message: labelled, or shunted with the reason. */
export type ClassifyOutcome =
  | { id: number; status: StagedStatus; envelopeJson: string; classification: Classification }
  | { id: number; status: StagedStatus; error: string };

/** Which stored messages a run works on. */
export interface ClassifySelection {
  listId: number;
  statuses: readonly StagedStatus[];
}

/**
 * The queries of the classify stage. Rows are read in id order in batches
 * (keyset, so a batch costs the same at the end of a million rows as at the
 * start) and each batch is written back in one transaction. Every write
 * names the status it read, so a row another process moved on meanwhile
 * (drained, classified by a second classify) is left as that process left it.
 */
export class ClassifyRecords {
  constructor(private readonly db: SqlDriver) {}

  async count(selection: ClassifySelection): Promise<number> {
    const row = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM staged_messages WHERE list_id = ? AND status IN (${inPlaceholders(selection.statuses.length)})`,
      [selection.listId, ...selection.statuses],
    );
    return Number(row?.n ?? 0);
  }

  async nextBatch(selection: ClassifySelection, afterId: number, limit: number): Promise<MessageToClassify[]> {
    const rows = await this.db.all(
      `SELECT id, list_id, raw, status, msg_class FROM staged_messages
       WHERE list_id = ? AND status IN (${inPlaceholders(selection.statuses.length)}) AND id > ?
       ORDER BY id LIMIT ?`,
      [selection.listId, ...selection.statuses, afterId, limit],
    );
    return rows.map((row) => {
      const message = mapRow<MessageToClassify>(row);
      return { ...message, id: Number(message.id), listId: Number(message.listId), raw: Buffer.from(message.raw) };
    });
  }

  /**
   * Writes a batch of outcomes. A staged (or shunted) message becomes
   * classified; a drained or deferred one keeps its status, and its
   * email_messages row takes the new class too. Returns the ids written (a
   * row whose status changed meanwhile is skipped).
   */
  async save(outcomes: readonly ClassifyOutcome[]): Promise<Set<number>> {
    if (outcomes.length === 0) return new Set();
    const now = new Date().toISOString();
    return this.db.transaction(async (tx) => {
      const written = new Set<number>();
      for (const outcome of outcomes) {
        if ('error' in outcome) {
          const result = await tx.run(
            `UPDATE staged_messages SET status = 'shunted', error = ?, updated_at = ? WHERE id = ? AND status = ?`,
            [outcome.error, now, outcome.id, outcome.status],
          );
          if (result.changes > 0) written.add(outcome.id);
          continue;
        }
        const { classification, envelopeJson } = outcome;
        const captures = JSON.stringify(classification.captures);
        const keepsStatus = outcome.status === 'drained' || outcome.status === 'deferred' || outcome.status === 'classified';
        const result = await tx.run(
          `UPDATE staged_messages SET status = ?, msg_class = ?, class_source = ?, captures = ?, envelope = ?, error = NULL, updated_at = ?
           WHERE id = ? AND status = ?`,
          [keepsStatus ? outcome.status : 'classified', classification.msgClass, classification.source, captures, envelopeJson, now, outcome.id, outcome.status],
        );
        if (result.changes > 0) written.add(outcome.id);
        if (result.changes > 0 && (outcome.status === 'drained' || outcome.status === 'deferred')) {
          await tx.run(
            `UPDATE email_messages SET msg_class = ?, class_source = ?, captures = ?
             WHERE (list_id, message_key) IN (SELECT list_id, message_key FROM staged_messages WHERE id = ?)`,
            [classification.msgClass, classification.source, captures, outcome.id],
          );
        }
      }
      return written;
    });
  }
}
