import { addToGroup } from '../add-to-group.js';
import { decodeRaw, encodeRaw } from './raw-codec.js';
import { TableStatistics } from './table-statistics.js';
import {
  chunkRows,
  inPlaceholders,
  valuesPlaceholders,
  type SqlSession,
  type SqlValue,
  type TableShape,
} from './sql-driver.js';

export type StagedStatus = 'staged' | 'classified' | 'drained' | 'deferred' | 'shunted';

/** A message's label as the store keeps it: its class, the rule that gave it, and the rule's captures. */
export interface StoredLabel {
  msgClass: string;
  source: string;
  captures: Record<string, string>;
}

/** Which rules made a label: the systems file's sha256 and listminer's version (docs/systems.md, Provenance). */
export interface LabelProvenance {
  rulesHash: string;
  listminerVersion: string;
}

/** Who a message is, worked out from its bytes before it reaches the store. */
export interface StagingIdentity {
  /** Normalized Message-ID, or null when the message has none. */
  messageId: string | null;
  contentHash: string;
  /** The key it is stored under unless that key holds a different message: its Message-ID, else one made from its content. */
  key: string;
  /** The key it takes when its Message-ID is held by a different message; null without a Message-ID. */
  variantKey: string | null;
}

export interface MessageToStage extends StagingIdentity {
  raw: Buffer;
  /** Set for a message staged but never to be parsed (larger than max_message_bytes): it is stored shunted with this reason and its bytes. */
  shunt?: string;
  /** sync: what classify made of it before it was staged, written with its row (status `classified`, or `shunted` with the error). */
  label?: ArrivedLabel;
}

/** A label made on arrival (docs/classify.md, "In sync: labelled on arrival"): the label and its envelope, or why there is none. */
export type ArrivedLabel = { classification: StoredLabel; envelopeJson: string } | { error: string };

/**
 * Whether a message the store holds under a Message-ID and a new copy with
 * another content hash are one mail all the same (an archive that rebuilds
 * mail on export: docs/store.md, "Identity"). The store knows no MIME; fetch
 * hands it this.
 */
export type SameMail = (stored: Buffer, incoming: Buffer) => boolean;

export interface StageOptions {
  /** Compares a copy held under its Message-ID with another content hash (SameMail). */
  sameMail?: SameMail;
  /** Which rules made the labels the messages come with. */
  provenance?: LabelProvenance;
  /** False: the labelled rows' envelopes are not written; the caller drains them from memory (sync). */
  keepEnvelopes?: boolean;
}

export interface StageResult {
  /** Messages written now. */
  staged: number;
  /** Messages that were already stored (or repeated in the batch): not written again. */
  duplicates: number;
  /** The rows written now: each one's id and its message's place in the batch. */
  rows: StagedRow[];
}

export interface StagedRow {
  id: number;
  key: string;
  /** Index of the message in the batch handed to `stage`. */
  index: number;
}

export interface MonthCheckpoint {
  month: string;
  /** Messages the archive handed over for the month, duplicates included. */
  seen: number;
  /** Messages of the month written, over all its batches. */
  staged: number;
  /** What a local source held for the month when it was read (null or absent: nothing to compare later). */
  fingerprint?: string | null;
}

/** A staged message's raw bytes, written with `append`: its row was just inserted, so nothing else holds its id. */
const RAW_SHAPE: TableShape = {
  table: 'staged_message_raws',
  columns: [
    ['staged_message_id', 'bigint'],
    ['raw', 'bytea'],
    ['raw_codec', 'text'],
  ],
};

/** The columns of `staged_messages` the stages' statements look rows up, join or sort by (TableStatistics). */
const STAGED_LOOKUP_COLUMNS = ['id', 'list_id', 'message_key', 'message_id', 'status', 'size'];

const STAGE_COLUMNS = [
  'list_id',
  'message_key',
  'message_id',
  'content_hash',
  'size',
  'archive_month',
  'fetched_at',
  'updated_at',
  // What labelColumns gives.
  'status',
  'error',
  'msg_class',
  'class_source',
  'captures',
  'rules_hash',
  'listminer_version',
];

/**
 * A row's status, error and label: shunted when too large to parse or when
 * parsing it failed, classified when it came labelled, else staged for
 * classify.
 */
function labelColumns({ shunt, label }: MessageToStage, provenance: LabelProvenance | undefined): unknown[] {
  if (shunt !== undefined) return ['shunted', shunt, null, null, null, null, null];
  if (!label) return ['staged', null, null, null, null, null, null];
  if ('error' in label) return ['shunted', label.error, null, null, null, null, null];
  if (!provenance) throw new Error('a labelled message is staged with the provenance of its label');
  const { msgClass, source, captures } = label.classification;
  return [
    'classified',
    null,
    msgClass,
    source,
    JSON.stringify(captures),
    provenance.rulesHash,
    provenance.listminerVersion,
  ];
}

/**
 * Keeps what classify read out of each message beside its staged row, in
 * place of one it had; drain copies it into email_messages and
 * message_bodies, then deletes it.
 */
export async function writeEnvelopes(
  session: SqlSession,
  envelopes: readonly { id: number; envelopeJson: string }[],
): Promise<void> {
  for (const chunk of chunkRows(envelopes, 2, session.capabilities)) {
    await session.run(
      `INSERT INTO staged_envelopes (staged_message_id, envelope) VALUES ${valuesPlaceholders(chunk.length, 2)}
       ON CONFLICT (staged_message_id) DO UPDATE SET envelope = excluded.envelope`,
      chunk.flatMap((e) => [e.id, e.envelopeJson]),
    );
  }
}

/**
 * Writes raw messages into staging. Identity is (list, message key); the
 * decision of which key a message gets is made against what is stored and
 * what came earlier in the batch, so re-runs, resumed runs and any order of
 * arrival converge on the same rows.
 */
export class StagingRecords {
  constructor(private readonly db: SqlSession) {}

  /** Stages a batch and, when given, checkpoints its month, all in one transaction. */
  stageBatch(
    listId: number,
    month: string | null,
    messages: readonly MessageToStage[],
    checkpoint?: MonthCheckpoint,
  ): Promise<StageResult> {
    return this.db.transaction(async (tx) => {
      const staging = new StagingRecords(tx);
      const result = await staging.stage(listId, month, messages);
      if (checkpoint) await staging.checkpoint(listId, checkpoint);
      return result;
    });
  }

  /**
   * Stages messages not stored yet: the row, then its raw bytes (compressed
   * when that makes them smaller), in one transaction (the caller's, when it
   * is in one). With `sameMail`, a copy whose Message-ID is held under
   * another content hash is compared with the held message's bytes before
   * it is taken for a different mail. A message that comes with its label
   * (sync) is written labelled, with its envelope, under `provenance`: its
   * row is written once, not staged and then labelled.
   */
  async stage(
    listId: number,
    month: string | null,
    messages: readonly MessageToStage[],
    { sameMail, provenance, keepEnvelopes = true }: StageOptions = {},
  ): Promise<StageResult> {
    if (messages.length === 0) return { staged: 0, duplicates: 0, rows: [] };
    const { jsonParameter } = this.db.capabilities;
    const row = `(${STAGE_COLUMNS.map((column) => (column === 'captures' ? jsonParameter : '?')).join(', ')})`;
    return this.db.transaction(async (tx) => {
      const staging = new StagingRecords(tx);
      const stored = await staging.storedHashes(listId, messages);
      const rows: unknown[][] = [];
      const indexes = new Map<string, number>();
      // Every mail held under a contested Message-ID, stored or staged earlier in this batch, in its bytes.
      const held = sameMail ? await staging.contestedRaws(listId, messages, stored) : undefined;
      const heldBySameMail = (message: MessageToStage) =>
        // A message too large to parse is not parsed to compare it either: it is the mail its key and hash say.
        message.shunt === undefined &&
        (held?.get(message.messageId!) ?? []).some((holder) => sameMail!(holder, message.raw));
      const now = new Date().toISOString();
      let duplicates = 0;
      for (const [index, message] of messages.entries()) {
        const key = chooseKey(message, stored, heldBySameMail);
        if (key === undefined) {
          duplicates++;
          continue;
        }
        stored.set(key, message.contentHash);
        indexes.set(key, index);
        if (held && message.messageId !== null) addToGroup(held, message.messageId, message.raw);
        rows.push([
          listId,
          key,
          message.messageId,
          message.contentHash,
          message.raw.length,
          month,
          now,
          now,
          ...labelColumns(message, provenance),
        ]);
      }
      const inserted: SqlValue[][] = [];
      const staged: StagedRow[] = [];
      for (const chunk of chunkRows(rows, STAGE_COLUMNS.length, this.db.capabilities)) {
        const ids = await tx.all<{ id: number; message_key: string }>(
          `INSERT INTO staged_messages (${STAGE_COLUMNS.join(', ')}) VALUES ${new Array(chunk.length).fill(row).join(', ')}
           ON CONFLICT (list_id, message_key) DO NOTHING RETURNING id, message_key`,
          chunk.flat() as never[],
        );
        for (const row of ids) {
          const index = indexes.get(row.message_key)!;
          // Compressed only once it is known to be new: a re-fetch of stored mail costs no CPU here.
          const { bytes, codec } = encodeRaw(messages[index]!.raw);
          inserted.push([Number(row.id), bytes, codec]);
          staged.push({ id: Number(row.id), key: row.message_key, index });
        }
      }
      await tx.append(RAW_SHAPE, inserted);
      if (keepEnvelopes)
        await writeEnvelopes(
          tx,
          staged.flatMap(({ id, index }) => {
            const label = messages[index]!.label;
            return label && 'envelopeJson' in label ? [{ id, envelopeJson: label.envelopeJson }] : [];
          }),
        );
      // A row another writer inserted between our read and our write is a duplicate too.
      return { staged: inserted.length, duplicates: duplicates + (rows.length - inserted.length), rows: staged };
    });
  }

  /** Whether the list holds mail fetched and not yet labelled (`staged`). */
  async hasUnlabelled(listId: number): Promise<boolean> {
    const row = await this.db.get(
      `SELECT 1 AS waiting FROM staged_messages WHERE list_id = ? AND status = 'staged' LIMIT 1`,
      [listId],
    );
    return row !== undefined;
  }

  /**
   * Where in the batch are the messages `stage` would write, as far as the
   * stored keys and content hashes tell: a copy it would compare byte by
   * byte with the one held under its Message-ID counts as new. Read outside
   * the transaction that stages them, so it is a forecast, not a decision.
   */
  async unstored(listId: number, messages: readonly MessageToStage[]): Promise<number[]> {
    const stored = await this.storedHashes(listId, messages);
    const fresh: number[] = [];
    for (const [index, message] of messages.entries()) {
      const key = chooseKey(message, stored);
      if (key === undefined) continue;
      stored.set(key, message.contentHash);
      fresh.push(index);
    }
    return fresh;
  }

  /** The planner statistics of the table fetch grows and classify relabels (see TableStatistics). */
  statistics(): TableStatistics {
    // Without them PostgreSQL looked a batch's keys up by reading every staged row of the list,
    // and, once classify had labelled every row, planned drain's read of the classified rows for one row.
    return new TableStatistics(this.db, [{ table: 'staged_messages', columns: STAGED_LOOKUP_COLUMNS }]);
  }

  /** Records the month as done: the list's checkpoint moves to it. */
  async checkpoint(listId: number, checkpoint: MonthCheckpoint): Promise<void> {
    const now = new Date().toISOString();
    await this.db.run(
      `INSERT INTO fetched_months (list_id, month, messages_seen, messages_staged, fetched_at, source_fingerprint) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (list_id, month) DO UPDATE SET messages_seen = excluded.messages_seen,
         messages_staged = fetched_months.messages_staged + excluded.messages_staged, fetched_at = excluded.fetched_at,
         source_fingerprint = excluded.source_fingerprint`,
      [listId, checkpoint.month, checkpoint.seen, checkpoint.staged, now, checkpoint.fingerprint ?? null],
    );
    await this.db.run('UPDATE lists SET last_month = ? WHERE id = ? AND (last_month IS NULL OR last_month < ?)', [
      checkpoint.month,
      listId,
      checkpoint.month,
    ]);
  }

  /**
   * The stored bytes of every mail held under each Message-ID that a message
   * of the batch finds held under another content hash: the mail under the
   * plain id, and the mails other than it that reused the id (variant keys,
   * found by the id in staged_messages_variants), by Message-ID.
   */
  private async contestedRaws(
    listId: number,
    messages: readonly MessageToStage[],
    stored: ReadonlyMap<string, string>,
  ): Promise<Map<string, Buffer[]>> {
    const ids = new Set<string>();
    for (const m of messages) {
      const holder = stored.get(m.key);
      if (holder !== undefined && holder !== m.contentHash && m.variantKey && !stored.has(m.variantKey))
        ids.add(m.messageId!);
    }
    const raws = new Map<string, Buffer[]>();
    const heldWhere = async (condition: string, chunk: readonly string[]) => {
      const rows = await this.db.all<{ message_id: string; raw: Uint8Array; raw_codec: string | null }>(
        `SELECT s.message_id, r.raw, r.raw_codec FROM staged_messages s JOIN staged_message_raws r ON r.staged_message_id = s.id
         WHERE s.list_id = ? AND ${condition}`,
        [listId, ...chunk],
      );
      for (const row of rows) addToGroup(raws, row.message_id, decodeRaw(row.raw, row.raw_codec));
    };
    for (const chunk of chunkRows([...ids], 1, this.db.capabilities)) {
      const list = inPlaceholders(chunk.length);
      // The mail under the plain id, then those that reused the id: a variant's key is the id and a digest of its own.
      await heldWhere(`s.message_key IN (${list})`, chunk);
      await heldWhere(`s.message_id IN (${list}) AND s.message_key <> s.message_id`, chunk);
    }
    return raws;
  }

  /**
   * The stored keys a batch could collide with, with their content hashes:
   * its messages' keys, then the variant keys of those whose key holds
   * other content (stored, or earlier in the batch), which is when
   * chooseKey turns to a variant. Most mail is new: half as many keys are
   * looked up as when every variant was. A variant missed here (a key held
   * by a variant chosen earlier in the batch) that is stored all the same
   * is refused by the unique key on insert: a duplicate, as chooseKey
   * would have said.
   */
  private async storedHashes(listId: number, messages: readonly MessageToStage[]): Promise<Map<string, string>> {
    const stored = await this.hashesOf(listId, new Set(messages.map((m) => m.key)));
    const earlier = new Map<string, string>();
    const variants = new Set<string>();
    for (const m of messages) {
      const holder = stored.get(m.key) ?? earlier.get(m.key);
      if (holder === undefined) earlier.set(m.key, m.contentHash);
      else if (holder !== m.contentHash && m.variantKey) variants.add(m.variantKey);
    }
    for (const [key, hash] of await this.hashesOf(listId, variants)) stored.set(key, hash);
    return stored;
  }

  private async hashesOf(listId: number, keys: ReadonlySet<string>): Promise<Map<string, string>> {
    const stored = new Map<string, string>();
    for (const chunk of chunkRows([...keys], 1, this.db.capabilities)) {
      const rows = await this.db.all<{ message_key: string; content_hash: string }>(
        `SELECT message_key, content_hash FROM staged_messages WHERE list_id = ? AND message_key IN (${inPlaceholders(chunk.length)})`,
        [listId, ...chunk],
      );
      for (const row of rows) stored.set(row.message_key, row.content_hash);
    }
    return stored;
  }
}

/**
 * The key this message is stored under, or undefined when it is already
 * stored: under its own key with the same content, or by the same mail in
 * another form (`heldBySameMail`), or under its variant key.
 */
export function chooseKey<M extends StagingIdentity>(
  message: M,
  stored: ReadonlyMap<string, string>,
  heldBySameMail: (message: M) => boolean = () => false,
): string | undefined {
  const holder = stored.get(message.key);
  if (holder === undefined) return message.key;
  if (holder === message.contentHash || !message.variantKey) return undefined;
  if (stored.has(message.variantKey)) return undefined;
  return heldBySameMail(message) ? undefined : message.variantKey;
}
