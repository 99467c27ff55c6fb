import { decodeRaw } from './raw-codec.js';
import { idsIn, readBoundedBatch } from './read-bounded-batch.js';
import { parseJson } from './row-mapping.js';
import { chunkRows, inPlaceholders, valuesPlaceholders, type SqlSession } from './sql-driver.js';
import { writeEnvelopes, type LabelProvenance, type StagedStatus, type StoredLabel } from './staging-records.js';

/** A staged message as classify reads it. */
export interface MessageToClassify {
  id: number;
  listId: number;
  messageKey: string;
  raw: Buffer;
  status: StagedStatus;
  msgClass: string | null;
  /** The label it has now (null: none yet), which a new one may replace. */
  label: ProvenLabel | null;
}

/** A stored label with what made it; labels written before provenance was recorded have nulls. */
export interface ProvenLabel extends StoredLabel {
  rulesHash: string | null;
  listminerVersion: string | null;
}

/** A stored label a new one replaces, with the message it belongs to. */
export interface ReplacedLabel extends ProvenLabel {
  listId: number;
  messageKey: string;
}

/** What classify decided for one message: labelled (with the label it replaces, if it differs), or shunted with the reason. */
export type ClassifyOutcome =
  | { id: number; status: StagedStatus; envelopeJson: string; classification: StoredLabel; replaces?: ReplacedLabel }
  | { id: number; status: StagedStatus; error: string };

/** A stored message found by its Message-ID or key, for `classify --explain`. */
export interface FoundMessage {
  id: number;
  listId: number;
  messageKey: string;
  status: StagedStatus;
  size: number;
  label: ProvenLabel | null;
}

/** Which stored messages a run works on. */
export interface ClassifySelection {
  listId: number;
  statuses: readonly StagedStatus[];
  /** Only messages of at most this many bytes: larger ones are never read to be parsed (see tooLarge). */
  maxSize?: number;
}

/** The rows of a selection and the SQL that picks them. */
function selectionWhere(selection: ClassifySelection): { where: string; params: Array<string | number> } {
  const where = `list_id = ? AND status IN (${inPlaceholders(selection.statuses.length)})`;
  const params: Array<string | number> = [selection.listId, ...selection.statuses];
  if (selection.maxSize === undefined) return { where, params };
  return { where: `${where} AND size <= ?`, params: [...params, selection.maxSize] };
}

/**
 * The queries of the classify stage. Rows are read in id order in batches
 * (keyset, so a batch costs the same at the end of a million rows as at the
 * start) and each batch is written back in one transaction. Every write
 * names the status it read, so a row another process moved on meanwhile
 * (drained, classified by a second classify) is left as that process left it.
 */
export class ClassifyRecords {
  constructor(private readonly db: SqlSession) {}

  async count(selection: ClassifySelection): Promise<number> {
    const { where, params } = selectionWhere(selection);
    const row = await this.db.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM staged_messages WHERE ${where}`,
      params,
    );
    return Number(row?.n ?? 0);
  }

  /** Staged or shunted messages of the list larger than `maxSize`, read without their bytes: classify shunts them unparsed. */
  async tooLarge(
    listId: number,
    statuses: readonly StagedStatus[],
    maxSize: number,
  ): Promise<Array<{ id: number; size: number; status: StagedStatus }>> {
    const open = statuses.filter((s) => s === 'staged' || s === 'shunted');
    if (open.length === 0) return [];
    const rows = await this.db.all<{ id: number; size: number | string; status: StagedStatus }>(
      `SELECT id, size, status FROM staged_messages WHERE list_id = ? AND status IN (${inPlaceholders(open.length)}) AND size > ? ORDER BY id`,
      [listId, ...open, maxSize],
    );
    return rows.map((r) => ({ id: Number(r.id), size: Number(r.size), status: r.status }));
  }

  /**
   * The next messages after `afterId`: at most `limit`, and no more than
   * `maxBytes` of raw mail unless the first alone is larger. Sizes are read
   * first, so a batch of large messages never loads more than it keeps.
   */
  async nextBatch(
    selection: ClassifySelection,
    afterId: number,
    limit: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<MessageToClassify[]> {
    const { where, params } = selectionWhere(selection);
    return readBoundedBatch(this.db, { where, params: params, afterId, limit, maxBytes }, async (ids) => {
      const rows = await this.db.all<
        {
          id: number;
          list_id: number;
          message_key: string;
          raw: Uint8Array;
          raw_codec: string | null;
          status: StagedStatus;
        } & LabelRow
      >(
        `SELECT s.id, s.list_id, s.message_key, r.raw, r.raw_codec, s.status, ${LABEL_COLUMNS} FROM staged_messages s JOIN staged_message_raws r ON r.staged_message_id = s.id
         WHERE ${where} AND ${idsIn(ids)} ORDER BY s.id`,
        [...params, ...ids],
      );
      return rows.map((row) => ({
        id: Number(row.id),
        listId: Number(row.list_id),
        messageKey: row.message_key,
        raw: readRaw(row),
        status: row.status,
        msgClass: row.msg_class,
        label: readLabel(row),
      }));
    });
  }

  /**
   * Writes a batch of outcomes. A staged (or shunted) message becomes
   * classified; a deferred or classified one keeps its status. A drained one
   * whose class or captures change goes back to `classified` with its new
   * envelope, so the next drain re-derives what depends on them (its row's
   * labels, body and signaled repo, and its outcome for project: docs/drain.md);
   * one whose labels stay keeps `drained`, its email_messages row taking the
   * new class_source and provenance only. Returns the ids written (a row whose status
   * changed meanwhile is skipped).
   */
  async save(outcomes: readonly ClassifyOutcome[], provenance: LabelProvenance): Promise<Set<number>> {
    if (outcomes.length === 0) return new Set();
    const now = new Date().toISOString();
    const shunts = outcomes.filter((o) => 'error' in o);
    const labels = outcomes.filter(
      (o): o is Extract<ClassifyOutcome, { classification: StoredLabel }> => !('error' in o),
    );
    const { jsonParameter: json, idParameter: id } = this.db.capabilities;
    return this.db.transaction(async (tx) => {
      const written = new Set<number>();
      // One statement per chunk: VALUES columns are column1, column2, … on both engines.
      for (const chunk of chunkRows(shunts, 4, this.db.capabilities)) {
        const rows = await tx.all<{ id: number }>(
          `UPDATE staged_messages SET status = 'shunted', error = v.column2, updated_at = ?
           FROM (VALUES ${chunk.map(() => `(${id}, ?, ?)`).join(', ')}) AS v
           WHERE staged_messages.id = v.column1 AND staged_messages.status = v.column3 RETURNING id`,
          [now, ...chunk.flatMap((o) => [o.id, o.error, o.status])],
        );
        for (const row of rows) written.add(Number(row.id));
      }
      const stillDrained = new Set<number>();
      for (const chunk of chunkRows(labels, 7, this.db.capabilities)) {
        // Drained mail whose labels change goes back to classified (the old values are the row's own in SET);
        // drained mail whose labels stay keeps its updated_at, so verify does not take it for mail drain went past.
        const relabelled =
          'staged_messages.msg_class IS DISTINCT FROM v.column3 OR staged_messages.captures IS DISTINCT FROM v.column5';
        // A label this run replaces must still be the row's, made by the rules and listminer that made it when it was read:
        // another run that relabelled the row first wrote the change and its history.
        const stillReplaced = `v.column7 IS NULL OR v.column7 = ${PROVENANCE_TOKEN_SQL}`;
        const rows = await tx.all<{ id: number; status: string }>(
          `UPDATE staged_messages SET
             status = CASE WHEN v.column2 = 'drained' AND (${relabelled}) THEN 'classified' ELSE v.column2 END,
             updated_at = CASE WHEN v.column2 = 'drained' AND NOT (${relabelled}) THEN staged_messages.updated_at ELSE ? END,
             msg_class = v.column3, class_source = v.column4, captures = v.column5, rules_hash = ?, listminer_version = ?, error = NULL
           FROM (VALUES ${chunk.map(() => `(${id}, ?, ?, ?, ${json}, ?, ?)`).join(', ')}) AS v
           WHERE staged_messages.id = v.column1 AND staged_messages.status = v.column6 AND (${stillReplaced})
           RETURNING staged_messages.id, staged_messages.status`,
          [
            now,
            provenance.rulesHash,
            provenance.listminerVersion,
            ...chunk.flatMap((o) => [
              o.id,
              keepsStatus(o.status) ? o.status : 'classified',
              o.classification.msgClass,
              o.classification.source,
              JSON.stringify(o.classification.captures),
              o.status,
              o.replaces ? provenanceToken(o.replaces) : null,
            ]),
          ],
        );
        for (const row of rows) {
          written.add(Number(row.id));
          if (row.status === 'drained') stillDrained.add(Number(row.id));
        }
      }
      // Drained mail whose labels stay takes no envelope back.
      await writeEnvelopes(
        tx,
        labels.filter((o) => written.has(o.id) && !stillDrained.has(o.id)),
      );
      // Drained mail whose class and captures stay: only the rule that gave them may have another name.
      const renamed = labels.filter((o) => stillDrained.has(o.id));
      for (const chunk of chunkRows(renamed, 2, this.db.capabilities)) {
        await tx.run(
          `UPDATE email_messages SET class_source = v.column2, rules_hash = ?, listminer_version = ?
           FROM (VALUES ${chunk.map(() => `(${id}, ?)`).join(', ')}) AS v, staged_messages
           WHERE staged_messages.id = v.column1 AND email_messages.list_id = staged_messages.list_id AND email_messages.message_key = staged_messages.message_key`,
          [provenance.rulesHash, provenance.listminerVersion, ...chunk.flatMap((o) => [o.id, o.classification.source])],
        );
      }
      // The label a new one replaced goes to the history, so a figure made from the old rules can be traced.
      const replaced = labels.filter((o) => written.has(o.id) && o.replaces);
      for (const chunk of chunkRows(replaced, 13, this.db.capabilities)) {
        await tx.run(
          `INSERT INTO label_history (list_id, message_key, old_class, new_class, old_class_source, new_class_source, old_captures, new_captures,
             old_rules_hash, new_rules_hash, old_listminer_version, listminer_version, relabelled_at)
           VALUES ${valuesPlaceholders(chunk.length, 13)}`,
          chunk.flatMap((o) => {
            const old = o.replaces!;
            const label = o.classification;
            return [
              old.listId,
              old.messageKey,
              old.msgClass,
              label.msgClass,
              old.source,
              label.source,
              JSON.stringify(old.captures),
              JSON.stringify(label.captures),
              old.rulesHash,
              provenance.rulesHash,
              old.listminerVersion,
              provenance.listminerVersion,
              now,
            ];
          }),
        );
      }
      return written;
    });
  }

  /**
   * The stored messages a Message-ID (with or without <>) or a message key
   * names, on the lists given. The key is looked up first (indexed); only
   * when no key matches are the rows searched by Message-ID, which finds a
   * message stored under a variant key (two mails reusing one Message-ID).
   */
  async find(reference: string, listIds: readonly number[]): Promise<FoundMessage[]> {
    if (listIds.length === 0) return [];
    const bare = reference.trim().replace(/^<(.*)>$/, '$1');
    const select = `SELECT id, list_id, message_key, status, size, ${LABEL_COLUMNS} FROM staged_messages WHERE list_id IN (${inPlaceholders(listIds.length)})`;
    let rows = await this.db.all<
      { id: number; list_id: number; message_key: string; status: StagedStatus; size: number } & LabelRow
    >(`${select} AND message_key IN (?, ?) ORDER BY id`, [...listIds, reference.trim(), bare]);
    if (rows.length === 0) rows = await this.db.all(`${select} AND message_id = ? ORDER BY id`, [...listIds, bare]);
    return rows.map((row) => ({
      id: Number(row.id),
      listId: Number(row.list_id),
      messageKey: row.message_key,
      status: row.status,
      size: Number(row.size),
      label: readLabel(row),
    }));
  }

  /** A stored message's raw bytes, as the archive handed them over. */
  async raw(id: number): Promise<Buffer> {
    const row = await this.db.get<{ id: number; raw: Uint8Array; raw_codec: string | null }>(
      'SELECT staged_message_id AS id, raw, raw_codec FROM staged_message_raws WHERE staged_message_id = ?',
      [id],
    );
    if (!row) throw new Error(`staged message ${id} has no raw bytes`);
    return readRaw(row);
  }
}

const LABEL_COLUMNS = 'msg_class, class_source, captures, rules_hash, listminer_version';
interface LabelRow {
  msg_class: string | null;
  class_source: string | null;
  captures: unknown;
  rules_hash: string | null;
  listminer_version: string | null;
}

/** A label's rules and listminer in one value, as PROVENANCE_TOKEN_SQL reads them from a row. */
function provenanceToken({ rulesHash, listminerVersion }: ProvenLabel): string {
  return `${rulesHash ?? ''} ${listminerVersion ?? ''}`;
}
const PROVENANCE_TOKEN_SQL =
  "COALESCE(staged_messages.rules_hash, '') || ' ' || COALESCE(staged_messages.listminer_version, '')";

function readLabel(row: LabelRow): ProvenLabel | null {
  if (row.msg_class === null) return null;
  return {
    msgClass: row.msg_class,
    source: row.class_source ?? '',
    captures: (parseJson(row.captures) ?? {}) as Record<string, string>,
    rulesHash: row.rules_hash,
    listminerVersion: row.listminer_version,
  };
}

/** A row's message as the archive handed it over; a row that cannot give it back is named. */
function readRaw(row: { id: number; raw: Uint8Array; raw_codec: string | null }): Buffer {
  try {
    return decodeRaw(row.raw, row.raw_codec);
  } catch (error) {
    throw new Error(`staged message ${row.id}: its raw bytes cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Drained, deferred and already classified mail keeps its status when labelled again. */
function keepsStatus(status: StagedStatus): boolean {
  return status === 'drained' || status === 'deferred' || status === 'classified';
}
