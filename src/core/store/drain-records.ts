import { addToGroup } from '../add-to-group.js';
import { decodeRaw } from './raw-codec.js';
import { idsIn, readBoundedBatch } from './read-bounded-batch.js';
import { mapRow, parseJson, sameJson } from './row-mapping.js';
import { TableStatistics } from './table-statistics.js';
import { chunkRows, inPlaceholders, valuesPlaceholders, type SqlSession, type TableShape } from './sql-driver.js';

/** A classified staged message as drain reads it (the raw bytes stay where they are). */
export interface DrainCandidate {
  id: number;
  messageKey: string;
  messageId: string | null;
  contentHash: string;
  status: string;
  msgClass: string | null;
  classSource: string | null;
  captures: Record<string, string> | null;
  /** The label's provenance (docs/systems.md): the rules file's sha256 and the listminer that labelled it. */
  rulesHash: string | null;
  listminerVersion: string | null;
  envelope: unknown;
  size: number;
  /** For a message without its envelope (drained before, or labelled by sync to drain on arrival): its raw bytes, to be read again (null when unreadable). */
  storedRaw: Buffer | null;
}

/** The mirror handling a list's drained mail is brought to (config `mirror_handling`). */
export type StoredMirrorHandling = 'full' | 'metadata_only' | 'skip';

/** A stored message's fields that depend on its class and the mirror handling. */
interface StoredLabels {
  id: number;
  msgClass: string;
  classSource: string | null;
  captures: unknown;
  signaledRepoUrl: string | null;
  signaledRepoId: number | null;
  bodyStored: boolean;
  rulesHash: string | null;
  listminerVersion: string | null;
}

/** One email_messages row to write, with its body and thread links. */
export interface NewEmailMessage {
  stagedId: number;
  messageKey: string;
  messageId: string | null;
  repoId: number;
  senderId: number | null;
  fromName: string | null;
  fromAddress: string | null;
  isBot: boolean;
  /** Sent from the list's own address (early pipermail): no contributor, name and address kept as written. */
  fromList: boolean;
  subject: string | null;
  sentAt: string | null;
  sentAtOffset: number | null;
  inReplyTo: string | null;
  references: string[];
  msgClass: string;
  classSource: string | null;
  /** Which rules and which listminer made the label (docs/systems.md). */
  rulesHash: string | null;
  listminerVersion: string | null;
  captures: Record<string, string> | null;
  hasPatch: boolean;
  patchVersion: number | null;
  patchIndex: number | null;
  patchTotal: number | null;
  isRfc: boolean;
  isResend: boolean;
  trailers: unknown[];
  size: number | null;
  /** The body to store, or null when the message is kept without one. */
  body: { text: string; hash: string } | null;
  signaledRepoUrl: string | null;
  signaledRepoId: number | null;
  /** Ancestor Message-IDs, oldest first. */
  ancestors: string[];
}

/** A message drain is about to write, under the id it will have, with what threading needs of it. */
export interface PlacedMessage {
  id: number;
  messageKey: string;
  sentAt: string | null;
  /** Ancestor Message-IDs, oldest first, as written to thread_links. */
  ancestors: string[];
}

/** A thread root: its message key and id. */
export interface ThreadRoot {
  key: string;
  id: number;
}

/** What threading needs of a drained message. */
export interface ThreadRow {
  id: number;
  messageKey: string;
  sentAt: string | null;
  threadRootKey: string | null;
  threadRootId: number | null;
}

/** The columns of `email_messages` the stages' statements look rows up, join or sort by (TableStatistics). */
const EMAIL_LOOKUP_COLUMNS = [
  'id',
  'list_id',
  'message_key',
  'message_id',
  'staged_message_id',
  'repo_id',
  'sender_id',
  'from_address',
  'is_bot',
  'thread_root_id',
  'msg_class',
  'body_stored',
  'signaled_repo_url',
  'signaled_repo_id',
  'projected_kind',
  'patch_series_id',
];

/** A drained message's row, written with `append`: placeMessages gave it an id and a key no row of the list holds. */
const MESSAGE_SHAPE: TableShape = {
  table: 'email_messages',
  columns: [
    ['list_id', 'bigint'],
    ['message_key', 'text'],
    ['message_id', 'text'],
    ['staged_message_id', 'bigint'],
    ['repo_id', 'bigint'],
    ['sender_id', 'bigint'],
    ['from_name', 'text'],
    ['from_address', 'text'],
    ['is_bot', 'boolean'],
    ['subject', 'text'],
    ['sent_at', 'timestamptz'],
    ['sent_at_offset', 'integer'],
    ['in_reply_to', 'text'],
    ['references_ids', 'jsonb'],
    ['msg_class', 'text'],
    ['class_source', 'text'],
    ['rules_hash', 'text'],
    ['listminer_version', 'text'],
    ['captures', 'jsonb'],
    ['has_patch', 'boolean'],
    ['patch_version', 'integer'],
    ['patch_index', 'integer'],
    ['patch_total', 'integer'],
    ['is_rfc', 'boolean'],
    ['is_resend', 'boolean'],
    ['trailers', 'jsonb'],
    ['size', 'integer'],
    ['body_stored', 'boolean'],
    ['signaled_repo_url', 'text'],
    ['signaled_repo_id', 'bigint'],
    ['drained_at', 'timestamptz'],
    ['id', 'bigint'],
    ['thread_root_key', 'text'],
    ['thread_root_id', 'bigint'],
  ],
};

/** A drained message's tie to its body, written with `append` after the message itself. */
const BODY_LINK_SHAPE: TableShape = {
  table: 'email_message_bodies',
  columns: [
    ['email_message_id', 'bigint'],
    ['body_id', 'bigint'],
  ],
};

/** A drained message's ancestors, one row each, written with `append` beside the message's new row. */
const THREAD_LINK_SHAPE: TableShape = {
  table: 'thread_links',
  columns: [
    ['email_message_id', 'bigint'],
    ['position', 'integer'],
    ['list_id', 'bigint'],
    ['ancestor_id', 'text'],
  ],
};

const DRAINABLE_STATUSES = "'classified', 'deferred'";
const DRAINABLE = `status IN (${DRAINABLE_STATUSES})`;

/**
 * The queries of drain: reading classified mail, writing email_messages
 * with bodies and thread links (inside the caller's transaction), and the
 * thread rows root repair works on.
 */
export class DrainRecords {
  constructor(private readonly db: SqlSession) {}

  /** Lists holding mail drain could move (or must keep deferred), in id order. */
  async listsWithWork(only?: readonly number[]): Promise<number[]> {
    const filter = only ? ` AND list_id IN (${inPlaceholders(only.length)})` : '';
    if (only && only.length === 0) return [];
    const rows = await this.db.all<{ list_id: number }>(
      `SELECT DISTINCT list_id FROM staged_messages WHERE ${DRAINABLE}${filter} ORDER BY list_id`,
      only ? [...only] : [],
    );
    return rows.map((row) => Number(row.list_id));
  }

  /** Parks a list's classified mail until the list has a repo. */
  async deferClassified(listId: number): Promise<number> {
    const result = await this.db.run(
      "UPDATE staged_messages SET status = 'deferred', updated_at = ? WHERE list_id = ? AND status = 'classified'",
      [new Date().toISOString(), listId],
    );
    return result.changes;
  }

  /** Whether any of the list's mail waits for classify or drain (staged, classified or deferred). */
  async hasWaiting(listId: number): Promise<boolean> {
    const row = await this.db.get(
      // One IN list: both engines seek the (list_id, status) index with it, where an OR read every row of the list.
      `SELECT 1 AS waiting FROM staged_messages WHERE list_id = ? AND status IN ('staged', ${DRAINABLE_STATUSES}) LIMIT 1`,
      [listId],
    );
    return row !== undefined;
  }

  async countWithStatus(listId: number, status: string): Promise<number> {
    const row = await this.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM staged_messages WHERE list_id = ? AND status = ?',
      [listId, status],
    );
    return Number(row?.n ?? 0);
  }

  /** The next messages of a list in this status after `afterId`, in staging order. */
  /** The next classified (or deferred) messages of the list in id order: at most `limit` rows and `maxBytes` of mail. */
  async nextBatch(
    listId: number,
    status: 'classified' | 'deferred',
    afterId: number,
    limit: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<DrainCandidate[]> {
    const where = 'list_id = ? AND status = ?';
    return readBoundedBatch(this.db, { where, params: [listId, status], afterId, limit, maxBytes }, async (ids) => {
      const rows = await this.db.all<Record<string, unknown>>(
        `SELECT id, message_key, message_id, content_hash, status, msg_class, class_source, rules_hash, listminer_version, captures, size,
           (SELECT envelope FROM staged_envelopes WHERE staged_message_id = staged_messages.id) AS envelope
         FROM staged_messages WHERE ${where} AND ${idsIn(ids)} ORDER BY id`,
        [listId, status, ...ids],
      );
      const candidates = rows.map((row) => {
        const candidate = mapRow<DrainCandidate>(row);
        candidate.id = Number(candidate.id);
        // A malformed JSON value is the drain's to report, not the reader's.
        candidate.captures = readJson(row.captures) as DrainCandidate['captures'];
        candidate.envelope = readJson(row.envelope);
        candidate.storedRaw = null;
        return candidate;
      });
      // No envelope: a stored message drained again (its envelope went at its first drain), or a message sync
      // labelled to drain as it arrived and was stopped before it could. Either is read again from its bytes.
      const bare = candidates.filter((c) => c.envelope === null);
      if (bare.length > 0) {
        const raws = await this.storedRaws(bare.map((c) => c.id));
        for (const candidate of bare) candidate.storedRaw = raws.get(candidate.id) ?? null;
      }
      return candidates;
    });
  }

  /** The raw bytes of staged messages, by id. */
  private async storedRaws(stagedIds: readonly number[]): Promise<Map<number, Buffer>> {
    const out = new Map<number, Buffer>();
    for (const chunk of chunkRows(stagedIds, 1, this.db.capabilities)) {
      const rows = await this.db.all<{ id: number; raw: Uint8Array; raw_codec: string | null }>(
        `SELECT staged_message_id AS id, raw, raw_codec FROM staged_message_raws WHERE staged_message_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      for (const row of rows) {
        try {
          out.set(Number(row.id), decodeRaw(row.raw, row.raw_codec));
        } catch {
          // Unreadable bytes: the row is shunted with the reason drain gives a row without an envelope.
        }
      }
    }
    return out;
  }

  /**
   * Lists with drained mail whose mirror handling is not recorded as
   * `handling`: their stored mirror mail may disagree with it.
   */
  async listsWithOtherHandling(handling: StoredMirrorHandling, only?: readonly number[]): Promise<number[]> {
    if (only && only.length === 0) return [];
    const filter = only ? ` AND id IN (${inPlaceholders(only.length)})` : '';
    const rows = await this.db.all<{ id: number }>(
      `SELECT id FROM lists WHERE (mirror_handling IS NULL OR mirror_handling <> ?) AND repo_id IS NOT NULL${filter}
         AND EXISTS (SELECT 1 FROM email_messages e WHERE e.list_id = lists.id) ORDER BY id`,
      [handling, ...(only ?? [])],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * Sets the list's drained mail back to `classified`, to be drained again
   * from its raw bytes: what drain derived depends on the list's rules system
   * too (the repo a message names follows its URL template). Counts the rows.
   */
  async drainAgain(listId: number): Promise<number> {
    const result = await this.db.run(
      "UPDATE staged_messages SET status = 'classified', updated_at = ? WHERE list_id = ? AND status = 'drained'",
      [new Date().toISOString(), listId],
    );
    return result.changes;
  }

  /**
   * Brings the list's drained mail to this mirror handling: every stored
   * message whose body, captures or signaled repo disagree with it (mirror
   * mail, by `mirrorClasses`, under the handling; any other mail always has
   * its body) is set back to `classified`, to be drained again from its raw
   * bytes, and the handling is recorded. One statement each; a list already
   * recorded with this handling is not touched. Counts the messages set back.
   */
  async applyMirrorHandling(
    listId: number,
    handling: StoredMirrorHandling,
    mirrorClasses: readonly string[],
  ): Promise<number> {
    const recorded = await this.db.get<{ mirror_handling: string | null }>(
      'SELECT mirror_handling FROM lists WHERE id = ?',
      [listId],
    );
    if (recorded?.mirror_handling === handling) return 0;
    const mirror = `e.msg_class IN (${inPlaceholders(mirrorClasses.length)})`;
    const disagrees =
      handling === 'skip'
        ? '(e.body_stored = ? OR e.captures IS NOT NULL OR e.signaled_repo_url IS NOT NULL)'
        : `(e.body_stored = ? OR (e.captures IS NULL AND staged_messages.captures IS NOT NULL))`;
    const result = await this.db.run(
      `UPDATE staged_messages SET status = 'classified', updated_at = ?
       WHERE list_id = ? AND status = 'drained' AND EXISTS (
         SELECT 1 FROM email_messages e WHERE e.list_id = staged_messages.list_id AND e.message_key = staged_messages.message_key
           AND ((${mirror} AND ${disagrees}) OR (NOT ${mirror} AND e.body_stored = ?)))`,
      [new Date().toISOString(), listId, ...mirrorClasses, handling !== 'full', ...mirrorClasses, false],
    );
    await this.db.run('UPDATE lists SET mirror_handling = ? WHERE id = ?', [handling, listId]);
    return result.changes;
  }

  /**
   * Gives back the space of the envelopes drain deleted: on a first import
   * they held as many pages as the message bodies, free once drained, and a
   * SQLite file never shrinks by itself. (Only a file made with
   * auto_vacuum = INCREMENTAL, as listminer makes new ones, can.)
   */
  async reclaimSpace(): Promise<void> {
    if (this.db.capabilities.reclaimSql) await this.db.exec(this.db.capabilities.reclaimSql);
  }

  /** The planner statistics of the tables drain grows (see TableStatistics). */
  statistics(): TableStatistics {
    // The two whose lookups went wrong; the wide rows of email_messages are analyzed by the columns looked up by.
    return new TableStatistics(this.db, [
      { table: 'email_messages', columns: EMAIL_LOOKUP_COLUMNS },
      { table: 'thread_links' },
    ]);
  }

  async shunt(stagedId: number, error: string): Promise<void> {
    await this.db.run("UPDATE staged_messages SET status = 'shunted', error = ?, updated_at = ? WHERE id = ?", [
      error,
      new Date().toISOString(),
      stagedId,
    ]);
  }

  /**
   * The first half of writing a batch. A message already drained is not
   * written again; when it comes back classified (classify --reclassify, a
   * change of mirror handling), what depends on its class and the handling
   * is brought up to date (relabelStored) and nothing else changes. The rest
   * are given the ids they will be written under, so their thread roots can
   * be worked out before they are written, and come back in batch order.
   * Call it in the transaction that writes them.
   */
  async placeMessages(listId: number, messages: readonly NewEmailMessage[]): Promise<PlacedMessage[]> {
    const stored = await this.storedLabels(
      listId,
      messages.map((m) => m.messageKey),
    );
    await this.relabelStored(
      messages.filter((m) => stored.has(m.messageKey)),
      stored,
    );
    const fresh = messages.filter((m) => !stored.has(m.messageKey));
    if (fresh.length === 0) return [];
    const ids = (await this.db.all<{ id: number }>(this.db.capabilities.newIdsSql('email_messages'), [fresh.length]))
      .map((row) => Number(row.id))
      .sort((a, b) => a - b);
    return fresh.map((m, i) => ({ id: ids[i]!, messageKey: m.messageKey, sentAt: m.sentAt, ancestors: m.ancestors }));
  }

  /**
   * Stored messages drained again: a changed class, captures or signaled
   * repo is written and the message's outcome reset (projected_kind NULL),
   * so the next project works its thread out again; a body the handling now
   * wants is stored, one it no longer wants leaves the message (the shared
   * message_bodies row stays: another list's drain may be linking it). A
   * message whose labels and body are what they were is not written.
   */
  private async relabelStored(
    messages: readonly NewEmailMessage[],
    stored: ReadonlyMap<string, StoredLabels>,
  ): Promise<void> {
    const wantBodies: Array<{ id: number; message: NewEmailMessage }> = [];
    const dropBodies: number[] = [];
    for (const m of messages) {
      const row = stored.get(m.messageKey)!;
      const capturesChanged = !sameJson(row.captures, m.captures);
      // The label's provenance goes with it: which rules and which listminer made it (docs/systems.md).
      const label = [m.classSource, m.rulesHash, m.listminerVersion];
      if (
        row.msgClass !== m.msgClass ||
        capturesChanged ||
        row.signaledRepoUrl !== m.signaledRepoUrl ||
        row.signaledRepoId !== m.signaledRepoId
      ) {
        await this.db.run(
          `UPDATE email_messages SET class_source = ?, rules_hash = ?, listminer_version = ?,
             msg_class = ?, captures = ?, signaled_repo_url = ?, signaled_repo_id = ?, projected_kind = NULL WHERE id = ?`,
          [
            ...label,
            m.msgClass,
            m.captures === null ? null : JSON.stringify(m.captures),
            m.signaledRepoUrl,
            m.signaledRepoId,
            row.id,
          ],
        );
      } else if (
        row.classSource !== m.classSource ||
        row.rulesHash !== m.rulesHash ||
        row.listminerVersion !== m.listminerVersion
      ) {
        await this.db.run(
          'UPDATE email_messages SET class_source = ?, rules_hash = ?, listminer_version = ? WHERE id = ?',
          [...label, row.id],
        );
      }
      if (m.body !== null && !row.bodyStored) wantBodies.push({ id: row.id, message: m });
      if (m.body === null && row.bodyStored) dropBodies.push(row.id);
    }
    if (wantBodies.length > 0) {
      const bodyIds = await this.storeBodies(
        wantBodies.map((w) => w.message),
        new Date().toISOString(),
      );
      const bridges = wantBodies.map((w) => [w.id, bodyIds.get(w.message.body!.hash)!]);
      for (const chunk of chunkRows(bridges, 2, this.db.capabilities)) {
        await this.db.run(
          `INSERT INTO email_message_bodies (email_message_id, body_id) VALUES ${valuesPlaceholders(chunk.length, 2)}
           ON CONFLICT (email_message_id) DO UPDATE SET body_id = excluded.body_id`,
          chunk.flat(),
        );
      }
      await this.setBodyStored(
        wantBodies.map((w) => w.id),
        true,
      );
    }
    for (const chunk of chunkRows(dropBodies, 1, this.db.capabilities)) {
      await this.db.run(
        `DELETE FROM email_message_bodies WHERE email_message_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
    }
    await this.setBodyStored(dropBodies, false);
  }

  private async setBodyStored(ids: readonly number[], stored: boolean): Promise<void> {
    for (const chunk of chunkRows(ids, 1, this.db.capabilities)) {
      await this.db.run(`UPDATE email_messages SET body_stored = ? WHERE id IN (${inPlaceholders(chunk.length)})`, [
        stored,
        ...chunk,
      ]);
    }
  }

  /**
   * The second half: writes the placed messages under their ids with their
   * thread roots, their bodies (one per distinct text), the bridge rows and
   * thread links, and marks every staged row of the batch drained.
   */
  async writeMessages(
    listId: number,
    messages: readonly NewEmailMessage[],
    placed: readonly PlacedMessage[],
    roots: ReadonlyMap<string, ThreadRoot>,
  ): Promise<void> {
    const now = new Date().toISOString();
    const ids = new Map(placed.map((p) => [p.messageKey, p.id]));
    await this.insertMessages(
      listId,
      messages.filter((m) => ids.has(m.messageKey)),
      (key) => ({ id: ids.get(key)!, root: roots.get(key)! }),
      now,
    );
    for (const chunk of chunkRows(
      messages.map((m) => m.stagedId),
      1,
      this.db.capabilities,
    )) {
      // Everything of the envelope is in the research tables now; --reclassify writes a new one from the raw bytes.
      await this.db.run(
        `DELETE FROM staged_envelopes WHERE staged_message_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
    }
  }

  /**
   * Takes the staged rows of a batch for drain, first in its transaction:
   * marks `drained` each row that still has the label drain read (the same
   * rules and listminer made it) and gives back the ids taken. A row that
   * `classify --reclassify` relabelled since drain read it is left alone:
   * the next drain derives its row from the new label. On PostgreSQL the
   * update holds the rows it takes until the transaction ends, so a relabel
   * that comes later waits for it and then finds them drained.
   */
  async claim(messages: readonly NewEmailMessage[]): Promise<Set<number>> {
    const byLabel = new Map<string, number[]>();
    for (const m of messages) addToGroup(byLabel, JSON.stringify([m.rulesHash, m.listminerVersion]), m.stagedId);
    const now = new Date().toISOString();
    const claimed = new Set<number>();
    for (const [label, ids] of byLabel) {
      const [rulesHash, listminerVersion] = JSON.parse(label) as [string | null, string | null];
      for (const chunk of chunkRows(ids, 1, this.db.capabilities)) {
        const rows = await this.db.all<{ id: number }>(
          `UPDATE staged_messages SET status = 'drained', error = NULL, updated_at = ?
           WHERE id IN (${inPlaceholders(chunk.length)}) AND status IN ('classified', 'deferred')
             AND rules_hash IS NOT DISTINCT FROM ? AND listminer_version IS NOT DISTINCT FROM ? RETURNING id`,
          [now, ...chunk, rulesHash, listminerVersion],
        );
        for (const row of rows) claimed.add(Number(row.id));
      }
    }
    return claimed;
  }

  /** The stored messages among these keys, with what relabelStored compares. */
  private async storedLabels(listId: number, keys: readonly string[]): Promise<Map<string, StoredLabels>> {
    const out = new Map<string, StoredLabels>();
    for (const chunk of chunkRows(keys, 1, this.db.capabilities)) {
      const rows = await this.db.all<Record<string, unknown>>(
        `SELECT id, message_key, msg_class, class_source, captures, signaled_repo_url, signaled_repo_id, body_stored,
           rules_hash, listminer_version
         FROM email_messages WHERE list_id = ? AND message_key IN (${inPlaceholders(chunk.length)})`,
        [listId, ...chunk],
      );
      for (const row of rows) {
        out.set(String(row.message_key), {
          id: Number(row.id),
          msgClass: String(row.msg_class),
          classSource: (row.class_source as string | null) ?? null,
          captures: readJson(row.captures) ?? null,
          signaledRepoUrl: (row.signaled_repo_url as string | null) ?? null,
          signaledRepoId:
            row.signaled_repo_id === null || row.signaled_repo_id === undefined ? null : Number(row.signaled_repo_id),
          bodyStored: Boolean(row.body_stored),
          rulesHash: (row.rules_hash as string | null) ?? null,
          listminerVersion: (row.listminer_version as string | null) ?? null,
        });
      }
    }
    return out;
  }

  private async insertMessages(
    listId: number,
    messages: readonly NewEmailMessage[],
    placement: (key: string) => { id: number; root: ThreadRoot },
    now: string,
  ): Promise<void> {
    if (messages.length === 0) return;
    const bodyIds = await this.storeBodies(messages, now);
    const rows = messages.map((m) => {
      const { id, root } = placement(m.messageKey);
      return [
        listId,
        m.messageKey,
        m.messageId,
        m.stagedId,
        m.repoId,
        m.senderId,
        m.fromName,
        m.fromAddress,
        m.isBot,
        m.subject,
        m.sentAt,
        m.sentAtOffset,
        m.inReplyTo,
        JSON.stringify(m.references),
        m.msgClass,
        m.classSource,
        m.rulesHash,
        m.listminerVersion,
        m.captures === null ? null : JSON.stringify(m.captures),
        m.hasPatch,
        m.patchVersion,
        m.patchIndex,
        m.patchTotal,
        m.isRfc,
        m.isResend,
        JSON.stringify(m.trailers),
        m.size,
        m.body !== null,
        m.signaledRepoUrl,
        m.signaledRepoId,
        now,
        id,
        root.key,
        root.id,
      ];
    });
    // Only a second writer on the list, which the drain lock keeps out, could have stored one since placeMessages
    // looked; the key's unique index then refuses the batch, and it is written again, message by message.
    await this.db.append(MESSAGE_SHAPE, rows);
    const bridges = messages
      .filter((m) => m.body !== null)
      .map((m) => [placement(m.messageKey).id, bodyIds.get(m.body!.hash)!]);
    await this.db.append(BODY_LINK_SHAPE, bridges);
    const links = messages.flatMap((m) => {
      const id = placement(m.messageKey).id;
      return m.ancestors.map((ancestor, position) => [id, position, listId, ancestor]);
    });
    await this.db.append(THREAD_LINK_SHAPE, links);
  }

  private async storeBodies(messages: readonly NewEmailMessage[], now: string): Promise<Map<string, number>> {
    const bodies = new Map<string, string>();
    for (const m of messages) if (m.body) bodies.set(m.body.hash, m.body.text);
    const ids = new Map<string, number>();
    const rows = [...bodies].map(([hash, text]) => [hash, text, now]);
    for (const chunk of chunkRows(rows, 3, this.db.capabilities)) {
      await this.db.run(
        `INSERT INTO message_bodies (content_hash, body_text, created_at) VALUES ${valuesPlaceholders(chunk.length, 3)} ON CONFLICT (content_hash) DO NOTHING`,
        chunk.flat(),
      );
      const found = await this.db.all<{ id: number; content_hash: string }>(
        `SELECT id, content_hash FROM message_bodies WHERE content_hash IN (${inPlaceholders(chunk.length)})`,
        chunk.map((row) => row[0]!),
      );
      for (const row of found) ids.set(row.content_hash, Number(row.id));
    }
    return ids;
  }

  /** Drained messages of the list by key. */
  async threadRows(listId: number, keys: Iterable<string>): Promise<Map<string, ThreadRow>> {
    const out = new Map<string, ThreadRow>();
    for (const chunk of chunkRows([...new Set(keys)], 1, this.db.capabilities)) {
      const rows = await this.db.all<Record<string, unknown>>(
        `SELECT ${THREAD_COLUMNS} FROM email_messages WHERE list_id = ? AND message_key IN (${inPlaceholders(chunk.length)})`,
        [listId, ...chunk],
      );
      for (const row of rows) {
        const thread = threadRow(row);
        out.set(thread.messageKey, thread);
      }
    }
    return out;
  }

  /** Each drained message's ancestor ids, oldest first, by its key. */
  async threadLinks(messages: Iterable<ThreadRow>): Promise<Map<string, string[]>> {
    const keyOf = new Map<number, string>();
    for (const m of messages) keyOf.set(m.id, m.messageKey);
    const out = new Map<string, string[]>();
    for (const chunk of chunkRows([...keyOf.keys()], 1, this.db.capabilities)) {
      const rows = await this.db.all<{ email_message_id: number; ancestor_id: string }>(
        `SELECT email_message_id, ancestor_id FROM thread_links WHERE email_message_id IN (${inPlaceholders(chunk.length)}) ORDER BY email_message_id, position`,
        chunk,
      );
      for (const row of rows) {
        const key = keyOf.get(Number(row.email_message_id))!;
        const list = out.get(key);
        if (list) list.push(row.ancestor_id);
        else out.set(key, [row.ancestor_id]);
      }
    }
    return out;
  }

  /** The drained messages of the list that name any of these ids as an ancestor. */
  async descendantsNaming(listId: number, ids: readonly string[]): Promise<ThreadRow[]> {
    const found = new Set<number>();
    for (const chunk of chunkRows([...new Set(ids)], 1, this.db.capabilities)) {
      // The ancestor index alone; joined to email_messages, PostgreSQL's planner chose to scan all the links instead.
      const rows = await this.db.all<{ email_message_id: number }>(
        `SELECT email_message_id FROM thread_links WHERE list_id = ? AND ancestor_id IN (${inPlaceholders(chunk.length)})`,
        [listId, ...chunk],
      );
      for (const row of rows) found.add(Number(row.email_message_id));
    }
    // Mail usually arrives after what it answers: most batches name no stored message, and this reads nothing.
    const out: ThreadRow[] = [];
    for (const chunk of chunkRows([...found], 1, this.db.capabilities)) {
      const rows = await this.db.all<Record<string, unknown>>(
        `SELECT ${THREAD_COLUMNS} FROM email_messages WHERE id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      for (const row of rows) out.push(threadRow(row));
    }
    return out;
  }

  /** Sets the thread root of each stored message (by its id), many per statement. */
  async setThreadRoots(roots: ReadonlyArray<{ id: number; rootKey: string; rootId: number }>): Promise<void> {
    // VALUES columns are column1, column2, … on both engines; idParameter types the ids for PostgreSQL.
    const id = this.db.capabilities.idParameter;
    for (const chunk of chunkRows(roots, 3, this.db.capabilities)) {
      await this.db.run(
        `UPDATE email_messages SET thread_root_key = v.column2, thread_root_id = v.column3
         FROM (VALUES ${chunk.map(() => `(${id}, ?, ${id})`).join(', ')}) AS v
         WHERE email_messages.id = v.column1`,
        chunk.flatMap((r) => [r.id, r.rootKey, r.rootId]),
      );
    }
  }
}

const THREAD_COLUMNS = 'id, message_key, sent_at, thread_root_key, thread_root_id';

/** A row of THREAD_COLUMNS as a ThreadRow, its ids as numbers. */
function threadRow(row: Record<string, unknown>): ThreadRow {
  const thread = mapRow<ThreadRow>(row);
  thread.id = Number(thread.id);
  thread.threadRootId = thread.threadRootId === null ? null : Number(thread.threadRootId);
  return thread;
}

/** Unreadable JSON comes back undefined, so the row is shunted rather than the batch failing. */
function readJson(value: unknown): unknown {
  try {
    return parseJson(value);
  } catch {
    return undefined;
  }
}
