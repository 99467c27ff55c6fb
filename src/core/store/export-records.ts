import { inPlaceholders, type SqlSession, type SqlValue } from './sql-driver.js';

/** A row as the engine gave it: snake_case names, engine-specific booleans, JSON and numbers. */
export type ExportRow = Record<string, unknown>;

/**
 * Which mail an export covers. `listIds` undefined: every list. `sentFrom`
 * (included) and `sentBefore` (excluded) are ISO-8601 UTC instants; with
 * either, mail with no date (sent_at NULL) is left out.
 */
export interface MailScope {
  listIds?: readonly number[];
  sentFrom?: string;
  sentBefore?: string;
}

/** Which issues and pull requests an export covers: those of these repos, or every one (undefined). */
export type RepoScope = readonly number[] | undefined;

/**
 * The read-only queries of `export`. Tables of rows (mail, issues, pull
 * requests, threads) are read one batch after a key (keyset pagination:
 * `key > after ORDER BY key LIMIT n`); tables grouped over the whole mail
 * (senders, pr_equivalents) are one query read as a stream. Either way an
 * export of any size holds one batch at a time. Nothing here writes.
 */
export class ExportRecords {
  constructor(private readonly db: SqlSession) {}

  /**
   * email_messages with their list, repo and (when asked) body, in id order.
   * With bodies a batch also stops at `maxBytes` of the messages' raw size
   * (at least one message), so a run of large mail does not make it large:
   * ids and sizes are read first, then the rows up to the last id that fits.
   */
  async emailMessages(
    scope: MailScope,
    after: number,
    limit: number,
    withBodies: boolean,
    maxBytes = Infinity,
  ): Promise<ExportRow[]> {
    const where = mailWhere('e', scope);
    let upTo = Number.MAX_SAFE_INTEGER;
    if (withBodies && Number.isFinite(maxBytes)) {
      const sizes = await this.db.all<{ id: unknown; size: unknown }>(
        `SELECT e.id, e.size FROM email_messages e WHERE e.id > ? ${where.sql} ORDER BY e.id LIMIT ?`,
        [after, ...where.params, limit],
      );
      if (sizes.length === 0) return [];
      let bytes = 0;
      for (const [index, row] of sizes.entries()) {
        bytes += Number(row.size ?? 0);
        if (index > 0 && bytes > maxBytes) break;
        upTo = Number(row.id);
      }
    }
    return this.db.all(
      `SELECT e.id, e.list_id, l.system AS list_system, l.name AS list_name, e.message_key, e.message_id,
         e.repo_id, r.url AS repo_url, e.sender_id, e.from_name, e.from_address, e.is_bot, e.subject, e.sent_at, e.sent_at_offset,
         e.in_reply_to, e.references_ids, e.thread_root_key, e.thread_root_id, e.msg_class, e.class_source, e.captures,
         e.has_patch, e.patch_version, e.patch_index, e.patch_total, e.is_rfc, e.is_resend, e.patch_series_id, e.trailers,
         e.size, e.body_stored, e.signaled_repo_url, e.signaled_repo_id, e.projected_kind, e.drained_at, e.rules_hash, e.listminer_version
         ${withBodies ? ', mb.body_text' : ''}
       FROM email_messages e
       JOIN lists l ON l.id = e.list_id
       LEFT JOIN repos r ON r.id = e.repo_id
       ${withBodies ? 'LEFT JOIN email_message_bodies eb ON eb.email_message_id = e.id LEFT JOIN message_bodies mb ON mb.id = eb.body_id' : ''}
       WHERE e.id > ? AND e.id <= ? ${where.sql}
       ORDER BY e.id LIMIT ?`,
      [after, upTo, ...where.params, limit],
    );
  }

  /**
   * The next thread roots of one list after `after`, read from the
   * (list_id, thread_root_id) index, so the threads of a batch are one index
   * range whatever the list's size.
   */
  async threadRootIds(listId: number, after: number, limit: number): Promise<number[]> {
    const rows = await this.db.all<{ id: unknown }>(
      'SELECT DISTINCT thread_root_id AS id FROM email_messages WHERE list_id = ? AND thread_root_id > ? ORDER BY thread_root_id LIMIT ?',
      [listId, after, limit],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * The threads of one list whose root id lies in (after, upTo]: size,
   * people and activity over the mail in scope, grouped on thread_root_id.
   */
  async threads(listId: number, scope: MailScope, after: number, upTo: number): Promise<ExportRow[]> {
    const where = mailWhere('e', { ...scope, listIds: undefined });
    return this.db.all(
      `SELECT g.thread_root_id, g.list_id, l.system AS list_system, l.name AS list_name,
         root.message_key AS root_message_key, root.subject AS root_subject, root.msg_class AS root_msg_class,
         g.message_count, g.participants, g.bot_message_count, g.first_activity_at, g.last_activity_at
       FROM (SELECT e.list_id, e.thread_root_id, COUNT(*) AS message_count,
               COUNT(DISTINCT CASE WHEN e.is_bot = FALSE THEN COALESCE('p' || e.sender_id, 'a' || lower(e.from_address)) END) AS participants,
               SUM(CASE WHEN e.is_bot = TRUE THEN 1 ELSE 0 END) AS bot_message_count,
               MIN(e.sent_at) AS first_activity_at, MAX(e.sent_at) AS last_activity_at
             FROM email_messages e
             WHERE e.list_id = ? AND e.thread_root_id > ? AND e.thread_root_id <= ? ${where.sql}
             GROUP BY e.list_id, e.thread_root_id) g
       JOIN lists l ON l.id = g.list_id
       LEFT JOIN email_messages root ON root.id = g.thread_root_id
       ORDER BY g.thread_root_id`,
      [listId, after, upTo, ...where.params],
    );
  }

  /**
   * Contributors who sent mail in scope, with their mail's count and dates,
   * in id order. One grouped query read as a stream: a batch of it by keyset
   * would group the whole table again for every batch.
   */
  contributorSenders(scope: MailScope, batchSize: number): AsyncIterable<ExportRow[]> {
    const where = mailWhere('e', scope);
    return this.db.stream(
      `SELECT c.id AS contributor_id, c.email AS address, c.name, c.github_login, FALSE AS is_bot,
         m.message_count, m.first_sent_at, m.last_sent_at
       ${senderActivity(where.sql)}`,
      where.params,
      batchSize,
    );
  }

  /** People who sent mail in scope (docs/people.md), with their addresses' count and their mail's count and dates, in id order; streamed. */
  people(scope: MailScope, batchSize: number): AsyncIterable<ExportRow[]> {
    const where = mailWhere('e', scope);
    return this.db.stream(
      `SELECT c.id AS person_id, c.name, c.github_login,
         (SELECT COUNT(*) FROM identities i WHERE i.person_id = c.id AND i.kind = 'email') AS address_count,
         m.message_count, m.first_sent_at, m.last_sent_at
       ${senderActivity(where.sql)}`,
      where.params,
      batchSize,
    );
  }

  /** The identities of the people who sent mail in scope, in id order; streamed. */
  identities(scope: MailScope, batchSize: number): AsyncIterable<ExportRow[]> {
    const where = mailWhere('e', scope);
    return this.db.stream(
      `SELECT i.id, i.person_id, i.kind, i.value, i.seen_with, i.source, i.seen_at
       FROM identities i
       WHERE i.person_id IN (SELECT e.sender_id FROM email_messages e WHERE e.sender_id IS NOT NULL ${where.sql})
       ORDER BY i.id`,
      where.params,
      batchSize,
    );
  }

  /**
   * Bot senders of the mail in scope, one row per lower-cased address
   * (bots never become contributors), in the engine's text order; streamed.
   */
  botSenders(scope: MailScope, batchSize: number): AsyncIterable<ExportRow[]> {
    const where = mailWhere('e', scope);
    return this.db.stream(
      `SELECT NULL AS contributor_id, b.address, b.name, NULL AS github_login, TRUE AS is_bot, b.message_count, b.first_sent_at, b.last_sent_at
       FROM (SELECT lower(e.from_address) AS address, MIN(e.from_name) AS name, COUNT(*) AS message_count,
               MIN(e.sent_at) AS first_sent_at, MAX(e.sent_at) AS last_sent_at
             FROM email_messages e
             WHERE e.is_bot = TRUE AND e.from_address IS NOT NULL ${where.sql}
             GROUP BY lower(e.from_address)) b
       ORDER BY b.address`,
      where.params,
      batchSize,
    );
  }

  /** Issues of the repos in scope, with the count of linked mail in scope, in id order. */
  async issues(repos: RepoScope, scope: MailScope, after: number, limit: number): Promise<ExportRow[]> {
    const repoWhere = idsClause('i.repo_id', repos);
    const mail = mailWhere('e', scope);
    return this.db.all(
      `SELECT i.id, i.repo_id, r.url AS repo_url, i.number, i.external_key, i.title, i.state, i.author_id,
         a.github_login AS author_login, a.name AS author_name, i.is_synthetic, i.comment_count, i.url, i.created_at, i.updated_at,
         (SELECT COUNT(*) FROM issue_email_messages x JOIN email_messages e ON e.id = x.email_message_id
          WHERE x.issue_id = i.id ${mail.sql}) AS linked_mail_count
       FROM issues i
       JOIN repos r ON r.id = i.repo_id
       LEFT JOIN contributors a ON a.id = i.author_id
       WHERE i.id > ? ${repoWhere.sql}
       ORDER BY i.id LIMIT ?`,
      [...mail.params, after, ...repoWhere.params, limit],
    );
  }

  /** Pull requests of the repos in scope, with the count of linked mail in scope, in id order. */
  async pullRequests(repos: RepoScope, scope: MailScope, after: number, limit: number): Promise<ExportRow[]> {
    const repoWhere = idsClause('p.repo_id', repos);
    const mail = mailWhere('e', scope);
    return this.db.all(
      `SELECT p.id, p.repo_id, r.url AS repo_url, p.number, p.title, p.state, p.author_id,
         a.github_login AS author_login, a.name AS author_name, p.url, p.created_at, p.merged_at,
         (SELECT COUNT(*) FROM pull_request_email_messages x JOIN email_messages e ON e.id = x.email_message_id
          WHERE x.pull_request_id = p.id ${mail.sql}) AS linked_mail_count
       FROM pull_requests p
       JOIN repos r ON r.id = p.repo_id
       LEFT JOIN contributors a ON a.id = p.author_id
       WHERE p.id > ? ${repoWhere.sql}
       ORDER BY p.id LIMIT ?`,
      [...mail.params, after, ...repoWhere.params, limit],
    );
  }

  /**
   * Rows of the pr_equivalents view of the lists in scope whose first
   * activity lies in the window, in series order; streamed, since the view
   * aggregates the whole table whatever part of it is asked for.
   */
  prEquivalents(scope: MailScope, batchSize: number): AsyncIterable<ExportRow[]> {
    const lists = idsClause('list_id', scope.listIds);
    const window = windowClause('first_activity_at', scope);
    return this.db.stream(
      `SELECT series_id, list_id, repo_id, root_message_id, title, author_address, author_id, version, versions, patch_count,
         patches_announced, has_cover_letter, reply_count, reviewed_by, acked_by, tested_by, participants,
         first_activity_at, last_activity_at, merged, merged_at, source
       FROM pr_equivalents WHERE 1 = 1 ${lists.sql} ${window.sql}
       ORDER BY series_id`,
      [...lists.params, ...window.params],
      batchSize,
    );
  }
}

interface Clause {
  sql: string;
  params: SqlValue[];
}

/** `AND …` for the lists and the sent_at window of a mail scope, on table alias `e`. */
function mailWhere(alias: string, scope: MailScope): Clause {
  const lists = idsClause(`${alias}.list_id`, scope.listIds);
  const window = windowClause(`${alias}.sent_at`, scope);
  return { sql: `${lists.sql} ${window.sql}`, params: [...lists.params, ...window.params] };
}

function idsClause(column: string, ids: readonly number[] | undefined): Clause {
  if (ids === undefined) return { sql: '', params: [] };
  if (ids.length === 0) return { sql: 'AND 1 = 0', params: [] };
  return { sql: `AND ${column} IN (${inPlaceholders(ids.length)})`, params: [...ids] };
}

/** Timestamps compare as ISO-8601 text in SQLite and as timestamptz in PostgreSQL; the bound is ISO text for both. */
function windowClause(column: string, scope: MailScope): Clause {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  if (scope.sentFrom !== undefined) {
    parts.push(`AND ${column} >= ?`);
    params.push(scope.sentFrom);
  }
  if (scope.sentBefore !== undefined) {
    parts.push(`AND ${column} < ?`);
    params.push(scope.sentBefore);
  }
  return { sql: parts.join(' '), params };
}

/** Each sender of the mail in scope with its message count and first and last date, joined to its contributor row (as c), in id order. */
function senderActivity(scopeSql: string): string {
  return `FROM (SELECT e.sender_id, COUNT(*) AS message_count, MIN(e.sent_at) AS first_sent_at, MAX(e.sent_at) AS last_sent_at
             FROM email_messages e WHERE e.sender_id IS NOT NULL ${scopeSql}
             GROUP BY e.sender_id) m
       JOIN contributors c ON c.id = m.sender_id
       ORDER BY c.id`;
}
