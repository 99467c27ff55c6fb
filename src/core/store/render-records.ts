import { decodeRaw } from './raw-codec.js';
import { mapRow } from './row-mapping.js';
import { inPlaceholders, type SqlSession } from './sql-driver.js';

/** What a list's pages show of one message without its text: enough for trees, tables and charts. */
export interface RenderHead {
  id: number;
  messageKey: string;
  messageId: string | null;
  threadRootId: number | null;
  inReplyTo: string | null;
  fromName: string | null;
  fromAddress: string | null;
  /** The person the sender's address belongs to (contributors.id); null for bots and the list's own addresses. */
  senderId: number | null;
  isBot: boolean;
  subject: string | null;
  sentAt: string | null;
  msgClass: string;
  hasPatch: boolean;
  patchSeriesId: number | null;
  patchVersion: number | null;
}

export interface RenderTrailer {
  kind: string;
  name: string | null;
  address: string | null;
}

/** An issue or pull request a message was projected onto. */
export interface RenderLink {
  kind: 'issue' | 'pull request';
  label: string;
  title: string | null;
  url: string | null;
  role: string;
}

/** What a thread page shows of one message beyond its head. */
export interface RenderDetail {
  id: number;
  bodyText: string | null;
  trailers: RenderTrailer[];
  links: RenderLink[];
  /** The bytes the archive handed over; null when the staged row is gone. */
  raw: Buffer | null;
}

/** A person as its page shows it. */
export interface RenderPerson {
  name: string | null;
  /** The address the person's row was made for (contributors.email): it stays when merges bring other addresses. */
  email: string | null;
  /** Its addresses in normal form, in code-point order. */
  addresses: string[];
}

/** A patch series of a list, as pr_equivalents shows it. */
export interface RenderSeries {
  seriesId: number;
  /** Lower-cased author address, a newline, lower-cased title: the series' identity in its list. */
  seriesKey: string;
  rootMessageId: number | null;
  title: string;
  authorAddress: string | null;
  version: number;
  patchCount: number;
  replyCount: number;
  reviewedBy: number;
  ackedBy: number;
  testedBy: number;
  participants: number;
  merged: boolean;
  mergedAt: string | null;
  firstActivityAt: string | null;
  lastActivityAt: string | null;
}

/** A list's messages of one UTC month (null: no date) and class. */
export interface RenderMonthClass {
  month: string | null;
  msgClass: string;
  messages: number;
}

/** A list's threads with mail in one UTC month (null: no date). */
export interface RenderMonthThreads {
  month: string | null;
  threads: number;
}

/** A list's messages of one exact sender (address, name, person), with the lowest id among them. */
export interface RenderSenderCount {
  fromAddress: string | null;
  fromName: string | null;
  senderId: number | null;
  messages: number;
  firstId: number;
}

/** One thread of a list without its messages: enough to place it among the others. */
export interface RenderThreadEntry {
  /** thread_root_id, or the id of a message with none. */
  rootId: number;
  /** The earliest date of its mail; null when none is dated. */
  startedAt: string | null;
  /** Whether it has mail in the month given or later, or mail with no date. */
  fresh: boolean;
  /** Whether it holds mail of a patch series. */
  inSeries: boolean;
  /** Its root message's key and subject; null when its root is not one of its own messages in the list. */
  rootKey: string | null;
  rootSubject: string | null;
}

/** A message of a thread as a patch series' page counts it. */
export interface RenderSeriesMark {
  id: number;
  /** Its thread (thread_root_id, or its own id when it has none). */
  rootId: number;
  fromAddress: string | null;
  fromName: string | null;
  patchSeriesId: number | null;
  patchVersion: number | null;
}

/** A message as a person's page and the Message-ID map show it. */
export interface RenderMail {
  listId: number;
  messageKey: string;
  messageId: string | null;
  senderId: number | null;
  subject: string | null;
  sentAt: string | null;
}

const HEAD_SHAPE = { booleans: ['is_bot', 'has_patch'] } as const;
const HEAD_COLUMNS =
  'id, message_key, message_id, thread_root_id, in_reply_to, from_name, from_address, sender_id, is_bot, subject, sent_at, msg_class, has_patch, patch_series_id, patch_version';

/**
 * The read-only queries of `render`. A list's heads are read once as a
 * stream; texts, trailers, links and raw bytes are read for one batch of
 * messages at a time, so a page's worth of mail is what memory holds of them.
 * Text order is decided by the caller (engines sort text differently).
 */
export class RenderRecords {
  constructor(private readonly db: SqlSession) {}

  async heads(listId: number): Promise<RenderHead[]> {
    const heads: RenderHead[] = [];
    const rows = this.db.stream<Record<string, unknown>>(
      `SELECT ${HEAD_COLUMNS} FROM email_messages WHERE list_id = ? ORDER BY id`,
      [listId],
      2000,
    );
    for await (const batch of rows) for (const row of batch) heads.push(toHead(row));
    return heads;
  }

  /** The heads of these threads of a list (by rootId, as threads() gives it), in id order. */
  async threadHeads(listId: number, rootIds: readonly number[]): Promise<RenderHead[]> {
    const rows = await this.rowsOfThreads(listId, rootIds, HEAD_COLUMNS);
    return rows.map(toHead).sort((a, b) => a.id - b.id);
  }

  /** What a patch series' page needs of each message of these threads (by rootId), without their heads. */
  async seriesMarks(listId: number, rootIds: readonly number[]): Promise<RenderSeriesMark[]> {
    const rows = await this.rowsOfThreads(
      listId,
      rootIds,
      'id, thread_root_id, from_address, from_name, patch_series_id, patch_version',
    );
    return rows.map((row) => ({
      id: Number(row.id),
      rootId: row.thread_root_id === null ? Number(row.id) : Number(row.thread_root_id),
      fromAddress: (row.from_address as string | null) ?? null,
      fromName: (row.from_name as string | null) ?? null,
      patchSeriesId: row.patch_series_id === null ? null : Number(row.patch_series_id),
      patchVersion: row.patch_version === null ? null : Number(row.patch_version),
    }));
  }

  /** `ids` in parts of at most 1,000 that fit one statement beside its `others` parameters (the engine's limit). */
  private *parts(ids: readonly number[], others = 0): Generator<number[]> {
    const size = Math.min(1000, this.db.capabilities.maxParameters - others);
    for (let at = 0; at < ids.length; at += size) yield ids.slice(at, at + size);
  }

  /**
   * `columns` of every message of these threads of a list: those whose
   * thread_root_id is one of `rootIds`, and a message without one whose own
   * id is. Asked in chunks, within the engine's limit on parameters.
   */
  private async rowsOfThreads(
    listId: number,
    rootIds: readonly number[],
    columns: string,
  ): Promise<Record<string, unknown>[]> {
    const rows: Record<string, unknown>[] = [];
    for (const part of this.parts(rootIds, 1)) {
      const marks = inPlaceholders(part.length);
      for (const where of [`thread_root_id IN (${marks})`, `thread_root_id IS NULL AND id IN (${marks})`]) {
        const found = await this.db.all<Record<string, unknown>>(
          `SELECT ${columns} FROM email_messages WHERE list_id = ? AND ${where}`,
          [listId, ...part],
        );
        for (const row of found) rows.push(row);
      }
    }
    return rows;
  }

  /**
   * Every thread of a list, one row each, with whether it has mail in
   * `month` (YYYY-MM) or later: what an update of a site from that month on
   * needs to find the threads to render and their neighbours without reading
   * every message.
   */
  async threads(listId: number, month: string): Promise<RenderThreadEntry[]> {
    const sent = this.db.capabilities.utcMonth('sent_at');
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT t.root_id, t.started_at, t.fresh, t.in_series, r.message_key AS root_key, r.subject AS root_subject
       FROM (SELECT COALESCE(thread_root_id, id) AS root_id, MIN(sent_at) AS started_at,
               MAX(CASE WHEN sent_at IS NULL OR ${sent} >= ? THEN 1 ELSE 0 END) AS fresh,
               MAX(CASE WHEN patch_series_id IS NOT NULL THEN 1 ELSE 0 END) AS in_series
             FROM email_messages WHERE list_id = ? GROUP BY COALESCE(thread_root_id, id)) t
       LEFT JOIN email_messages r ON r.id = t.root_id AND r.list_id = ? AND COALESCE(r.thread_root_id, r.id) = t.root_id`,
      [month, listId, listId],
    );
    return rows.map((row) => ({
      rootId: Number(row.root_id),
      startedAt: (row.started_at as string | null) ?? null,
      fresh: Number(row.fresh) === 1,
      inSeries: Number(row.in_series) === 1,
      rootKey: (row.root_key as string | null) ?? null,
      rootSubject: (row.root_subject as string | null) ?? null,
    }));
  }

  /** A list's messages per UTC month and class. */
  async monthClasses(listId: number): Promise<RenderMonthClass[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT ${this.db.capabilities.utcMonth('sent_at')} AS month, msg_class, COUNT(*) AS messages
       FROM email_messages WHERE list_id = ? GROUP BY ${this.db.capabilities.utcMonth('sent_at')}, msg_class`,
      [listId],
    );
    return rows.map((row) => ({
      month: (row.month as string | null) ?? null,
      msgClass: String(row.msg_class),
      messages: Number(row.messages),
    }));
  }

  /** A list's threads with mail in each UTC month (a thread counts in each month it has mail in). */
  async monthThreads(listId: number): Promise<RenderMonthThreads[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT month, COUNT(DISTINCT root_id) AS threads
       FROM (SELECT ${this.db.capabilities.utcMonth('sent_at')} AS month, COALESCE(thread_root_id, id) AS root_id
             FROM email_messages WHERE list_id = ?) m
       GROUP BY month`,
      [listId],
    );
    return rows.map((row) => ({ month: (row.month as string | null) ?? null, threads: Number(row.threads) }));
  }

  /** A list's messages per exact sender address, name and person. */
  async senders(listId: number): Promise<RenderSenderCount[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT from_address, from_name, sender_id, COUNT(*) AS messages, MIN(id) AS first_id
       FROM email_messages WHERE list_id = ? GROUP BY from_address, from_name, sender_id`,
      [listId],
    );
    return rows.map((row) => ({
      fromAddress: (row.from_address as string | null) ?? null,
      fromName: (row.from_name as string | null) ?? null,
      senderId: row.sender_id === null ? null : Number(row.sender_id),
      messages: Number(row.messages),
      firstId: Number(row.first_id),
    }));
  }

  /** Every message of these lists as people's pages and the Message-ID map show it. */
  async mail(listIds: readonly number[]): Promise<RenderMail[]> {
    const mail: RenderMail[] = [];
    for (const listId of listIds) {
      const rows = this.db.stream<Record<string, unknown>>(
        `SELECT ${MAIL_COLUMNS} FROM email_messages WHERE list_id = ?`,
        [listId],
        5000,
      );
      for await (const batch of rows) for (const row of batch) mail.push(toMail(row));
    }
    return mail;
  }

  /** The messages of these senders (sender_id) in these lists, as mail() gives them. */
  async mailOf(senderIds: readonly number[], listIds: readonly number[]): Promise<RenderMail[]> {
    const mail: RenderMail[] = [];
    const lists = new Set(listIds);
    for (const part of this.parts(senderIds)) {
      const rows = await this.db.all<Record<string, unknown>>(
        `SELECT ${MAIL_COLUMNS} FROM email_messages WHERE sender_id IN (${inPlaceholders(part.length)})`,
        part,
      );
      for (const row of rows) if (lists.has(Number(row.list_id))) mail.push(toMail(row));
    }
    return mail;
  }

  /** Text, trailers, links and raw bytes of these messages, by id (read in chunks: a thread may hold more messages than a statement takes parameters). */
  async details(ids: readonly number[]): Promise<Map<number, RenderDetail>> {
    const details = new Map<number, RenderDetail>();
    for (const part of this.parts(ids)) await this.readDetails(part, details);
    // Engines return rows in their own order; a page must not depend on it.
    for (const detail of details.values())
      detail.links.sort(
        (a, b) =>
          order(a.kind, b.kind) || order(a.label, b.label) || order(a.role, b.role) || order(a.url ?? '', b.url ?? ''),
      );
    return details;
  }

  private async readDetails(ids: readonly number[], details: Map<number, RenderDetail>): Promise<void> {
    const marks = inPlaceholders(ids.length);
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT e.id, e.trailers, mb.body_text, r.raw, r.raw_codec
       FROM email_messages e
       LEFT JOIN email_message_bodies eb ON eb.email_message_id = e.id
       LEFT JOIN message_bodies mb ON mb.id = eb.body_id
       LEFT JOIN staged_message_raws r ON r.staged_message_id = e.staged_message_id
       WHERE e.id IN (${marks})`,
      ids,
    );
    for (const row of rows) {
      const mapped = mapRow<{
        id: unknown;
        trailers: unknown;
        bodyText: string | null;
        raw: Uint8Array | null;
        rawCodec: string | null;
      }>(row, { json: ['trailers'] });
      details.set(Number(mapped.id), {
        id: Number(mapped.id),
        bodyText: mapped.bodyText,
        trailers: Array.isArray(mapped.trailers) ? (mapped.trailers as RenderTrailer[]) : [],
        links: [],
        raw: mapped.raw ? decodeRaw(mapped.raw, mapped.rawCodec) : null,
      });
    }
    const issues = await this.db.all<Record<string, unknown>>(
      `SELECT x.email_message_id, x.role, i.number, i.external_key, i.title, i.url
       FROM issue_email_messages x JOIN issues i ON i.id = x.issue_id WHERE x.email_message_id IN (${marks})`,
      ids,
    );
    for (const row of issues) {
      const label = row.external_key
        ? (row.external_key as string)
        : row.number !== null
          ? `#${row.number as number}`
          : 'issue';
      details.get(Number(row.email_message_id))?.links.push({
        kind: 'issue',
        label,
        title: (row.title as string | null) ?? null,
        url: (row.url as string | null) ?? null,
        role: String(row.role),
      });
    }
    const pulls = await this.db.all<Record<string, unknown>>(
      `SELECT x.email_message_id, x.role, p.number, p.title, p.url
       FROM pull_request_email_messages x JOIN pull_requests p ON p.id = x.pull_request_id WHERE x.email_message_id IN (${marks})`,
      ids,
    );
    for (const row of pulls) {
      details.get(Number(row.email_message_id))?.links.push({
        kind: 'pull request',
        label: `#${String(row.number)}`,
        title: (row.title as string | null) ?? null,
        url: (row.url as string | null) ?? null,
        role: String(row.role),
      });
    }
  }

  /**
   * The people behind these senders: the name and every address of each
   * (docs/people.md).
   */
  async people(ids: readonly number[]): Promise<Map<number, RenderPerson>> {
    const people = new Map<number, RenderPerson>();
    for (const part of this.parts(ids)) {
      const marks = inPlaceholders(part.length);
      for (const row of await this.db.all<{ id: unknown; name: string | null; email: string | null }>(
        `SELECT id, name, email FROM contributors WHERE id IN (${marks})`,
        part,
      )) {
        people.set(Number(row.id), { name: row.name, email: row.email, addresses: [] });
      }
      const identities = await this.db.all<{ person_id: unknown; value: string }>(
        `SELECT person_id, value FROM identities WHERE kind = 'email' AND person_id IN (${marks})`,
        part,
      );
      for (const row of identities) people.get(Number(row.person_id))?.addresses.push(row.value);
    }
    for (const person of people.values()) person.addresses.sort(order);
    return people;
  }

  /** The list's patch series (pr_equivalents). */
  async series(listId: number): Promise<RenderSeries[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT p.series_id, s.series_key, p.root_message_id, p.title, p.author_address, p.version, p.patch_count, p.reply_count,
         p.reviewed_by, p.acked_by, p.tested_by, p.participants, p.merged, p.merged_at, p.first_activity_at, p.last_activity_at
       FROM pr_equivalents p JOIN patch_series s ON s.id = p.series_id WHERE p.list_id = ?`,
      [listId],
    );
    return rows.map((row) => {
      const s = mapRow<RenderSeries>(row, { booleans: ['merged'] });
      return {
        ...s,
        seriesId: Number(s.seriesId),
        rootMessageId: s.rootMessageId === null ? null : Number(s.rootMessageId),
        version: Number(s.version),
        patchCount: Number(s.patchCount),
        replyCount: Number(s.replyCount ?? 0),
        reviewedBy: Number(s.reviewedBy ?? 0),
        ackedBy: Number(s.ackedBy ?? 0),
        testedBy: Number(s.testedBy ?? 0),
        participants: Number(s.participants ?? 0),
      };
    });
  }
}

const MAIL_COLUMNS = 'list_id, message_key, message_id, sender_id, subject, sent_at';

function toMail(row: Record<string, unknown>): RenderMail {
  return {
    listId: Number(row.list_id),
    messageKey: String(row.message_key),
    messageId: (row.message_id as string | null) ?? null,
    senderId: row.sender_id === null ? null : Number(row.sender_id),
    subject: (row.subject as string | null) ?? null,
    sentAt: (row.sent_at as string | null) ?? null,
  };
}

function toHead(row: Record<string, unknown>): RenderHead {
  const head = mapRow<RenderHead>(row, HEAD_SHAPE);
  head.id = Number(head.id);
  head.threadRootId = head.threadRootId === null ? null : Number(head.threadRootId);
  head.senderId = head.senderId === null ? null : Number(head.senderId);
  head.patchSeriesId = head.patchSeriesId === null ? null : Number(head.patchSeriesId);
  head.patchVersion = head.patchVersion === null ? null : Number(head.patchVersion);
  return head;
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
