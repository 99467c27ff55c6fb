import { mapRow } from './row-mapping.js';
import { TableStatistics } from './table-statistics.js';
import { chunkRows, inPlaceholders, valuesPlaceholders, type SqlSession } from './sql-driver.js';
import { addToGroup } from '../add-to-group.js';

/** What project reads of a drained message. */
export interface ProjectMessage {
  id: number;
  messageKey: string;
  messageId: string | null;
  repoId: number | null;
  senderId: number | null;
  fromAddress: string | null;
  isBot: boolean;
  subject: string | null;
  sentAt: string | null;
  msgClass: string;
  captures: Record<string, string> | null;
  threadRootId: number | null;
  signaledRepoUrl: string | null;
  projectedKind: string | null;
  patchSeriesId: number | null;
}

/** A thread project could not write; see project_failures. */
export interface ProjectFailure {
  listId: number;
  /** email_messages.id of the thread's root. */
  rootId: number;
  messageId: string | null;
  error: string;
  failedAt: string;
}

export type ProjectedKind = 'linked' | 'created' | 'inherited' | 'mirror' | 'none';
/** reference: the mail's subject names the GitHub issue or pull request (`GH-12`, `#12`). */
export type LinkRole = 'event' | 'comment' | 'mirror' | 'reference';

export interface IssueLink {
  issueId: number;
  emailMessageId: number;
  role: LinkRole;
  authorId: number | null;
}

export interface PullRequestLink {
  pullRequestId: number;
  emailMessageId: number;
  role: LinkRole;
  authorId: number | null;
}

export interface IssueRef {
  id: number;
  isSynthetic: boolean;
}

/** One linked mail of an issue, as the issue's state and dates are worked out from it. */
export interface IssueMail {
  issueId: number;
  role: LinkRole;
  authorId: number | null;
  sentAt: string | null;
  messageKey: string;
  subject: string | null;
  captures: Record<string, string> | null;
}

export interface SyntheticIssueUpdate {
  id: number;
  title: string | null;
  state: string;
  authorId: number | null;
  commentCount: number;
  createdAt: string | null;
  updatedAt: string | null;
}

/** A native issue whose title starts with a tracker key while its external_key is empty. */
export interface TitledIssue {
  id: number;
  repoId: number;
  title: string;
}

export interface PatchSeriesRow {
  id: number;
  title: string;
}

/**
 * Mail with no outcome that a later `repos import` can still give one:
 * mirror mail, and a GitHub-backed list's mail whose subject may name an
 * issue or pull request (`GH-12`, `#12`; github-references.ts reads it).
 */
const WAITING_FOR_IMPORT = `projected_kind = 'none' AND (msg_class = 'github_mirror'
  OR ((UPPER(subject) LIKE '%GH-%' OR subject LIKE '%#%') AND repo_id IN (SELECT id FROM repos WHERE host = 'github.com')))`;

const MESSAGE_COLUMNS =
  'id, message_key, message_id, repo_id, sender_id, from_address, is_bot, subject, sent_at, msg_class, captures, thread_root_id, signaled_repo_url, projected_kind, patch_series_id';
const MESSAGE_SHAPE = { booleans: ['is_bot'], json: ['captures'] } as const;

function toMessage(row: Record<string, unknown>): ProjectMessage {
  const m = mapRow<ProjectMessage>(row, MESSAGE_SHAPE);
  return {
    ...m,
    id: Number(m.id),
    repoId: nullableNumber(m.repoId),
    senderId: nullableNumber(m.senderId),
    threadRootId: nullableNumber(m.threadRootId),
    patchSeriesId: nullableNumber(m.patchSeriesId),
    captures: m.captures && typeof m.captures === 'object' && !Array.isArray(m.captures) ? m.captures : null,
  };
}

function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/**
 * The queries of project: the mail waiting for an outcome, the issues and
 * pull requests it links to, synthetic issues, and patch series. Writes go
 * inside the caller's transaction (store.transaction).
 */
export class ProjectRecords {
  constructor(private readonly db: SqlSession) {}

  /** Lists with mail that has no outcome yet, or mail an import may link yet (WAITING_FOR_IMPORT), in id order. */
  async listsWithWork(only?: readonly number[]): Promise<number[]> {
    if (only && only.length === 0) return [];
    const filter = only ? ` AND list_id IN (${inPlaceholders(only.length)})` : '';
    const rows = await this.db.all<{ list_id: number }>(
      `SELECT DISTINCT list_id FROM email_messages
       WHERE (projected_kind IS NULL OR (${WAITING_FOR_IMPORT}))${filter} ORDER BY list_id`,
      only ? [...only] : [],
    );
    return rows.map((row) => Number(row.list_id));
  }

  /** Thread roots of the list that project could not write, as recorded by recordFailure. */
  async failedRoots(listId: number): Promise<number[]> {
    const rows = await this.db.all<{ root_id: number }>(
      'SELECT root_id FROM project_failures WHERE list_id = ? ORDER BY root_id',
      [listId],
    );
    return rows.map((row) => Number(row.root_id));
  }

  /** A thread that failed alone: kept with its error, replacing the one of an earlier run. */
  async recordFailure(listId: number, rootId: number, error: string, now: Date = new Date()): Promise<void> {
    await this.db.run(
      `INSERT INTO project_failures (list_id, root_id, error, failed_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (list_id, root_id) DO UPDATE SET error = excluded.error, failed_at = excluded.failed_at`,
      [listId, rootId, error, now.toISOString()],
    );
  }

  /** Threads projected at last: no longer failures. */
  async clearFailures(listId: number, rootIds: readonly number[]): Promise<void> {
    for (const chunk of chunkRows([...rootIds], 1, this.db.capabilities)) {
      await this.db.run(
        `DELETE FROM project_failures WHERE list_id = ? AND root_id IN (${inPlaceholders(chunk.length)})`,
        [listId, ...chunk],
      );
    }
  }

  /** Every recorded failure, with the Message-ID of the thread's root, for reports. */
  async failures(listIds?: readonly number[]): Promise<ProjectFailure[]> {
    const filter = listIds
      ? listIds.length === 0
        ? ' WHERE 1 = 0'
        : ` WHERE f.list_id IN (${inPlaceholders(listIds.length)})`
      : '';
    const rows = await this.db.all<{
      list_id: number;
      root_id: number;
      message_id: string | null;
      error: string;
      failed_at: string;
    }>(
      `SELECT f.list_id, f.root_id, m.message_id, f.error, f.failed_at FROM project_failures f
       LEFT JOIN email_messages m ON m.id = f.root_id${filter} ORDER BY f.list_id, f.root_id`,
      listIds ? [...listIds] : [],
    );
    return rows.map((r) => ({
      listId: Number(r.list_id),
      rootId: Number(r.root_id),
      messageId: r.message_id,
      error: r.error,
      failedAt: r.failed_at,
    }));
  }

  /** The next messages of a list without an outcome, after `afterId`, with the root of each one's thread. */
  async unprojected(listId: number, afterId: number, limit: number): Promise<Array<{ id: number; rootId: number }>> {
    const rows = await this.db.all<{ id: number; root_id: number }>(
      `SELECT id, COALESCE(thread_root_id, id) AS root_id FROM email_messages
       WHERE list_id = ? AND projected_kind IS NULL AND id > ? ORDER BY id LIMIT ?`,
      [listId, afterId, limit],
    );
    return rows.map((row) => ({ id: Number(row.id), rootId: Number(row.root_id) }));
  }

  /** Thread roots of the list's mail that found nothing to link to but an import may bring (WAITING_FOR_IMPORT), to try again. */
  async rootsAwaitingImport(listId: number): Promise<number[]> {
    const rows = await this.db.all<{ root_id: number }>(
      `SELECT DISTINCT COALESCE(thread_root_id, id) AS root_id FROM email_messages
       WHERE list_id = ? AND ${WAITING_FOR_IMPORT} ORDER BY root_id`,
      [listId],
    );
    return rows.map((row) => Number(row.root_id));
  }

  /** Every message of the list in these threads (a thread is named by its root's id). */
  async threadMessages(listId: number, rootIds: readonly number[]): Promise<ProjectMessage[]> {
    const byId = new Map<number, ProjectMessage>();
    for (const chunk of chunkRows([...new Set(rootIds)], 1, this.db.capabilities)) {
      const list = inPlaceholders(chunk.length);
      // Two lookups, not one with OR, and `+list_id` to keep the second on the primary key:
      // otherwise SQLite reads the list's whole thread index for every batch.
      for (const where of [`list_id = ? AND thread_root_id IN (${list})`, `id IN (${list}) AND +list_id = ?`]) {
        const params = where.startsWith('id') ? [...chunk, listId] : [listId, ...chunk];
        for (const row of await this.db.all(`SELECT ${MESSAGE_COLUMNS} FROM email_messages WHERE ${where}`, params)) {
          const message = toMessage(row);
          byId.set(message.id, message);
        }
      }
    }
    return [...byId.values()].sort((a, b) => a.id - b.id);
  }

  /** The issue holding this key in the repo, native or synthetic. */
  async issueByKey(repoId: number, key: string): Promise<IssueRef | undefined> {
    // `<> ''` is the unique index's own condition: SQLite uses a partial index only when the query says so.
    const row = await this.db.get<{ id: number; is_synthetic: unknown }>(
      "SELECT id, is_synthetic FROM issues WHERE repo_id = ? AND external_key = ? AND external_key <> ''",
      [repoId, key],
    );
    return row && { id: Number(row.id), isSynthetic: Boolean(row.is_synthetic) };
  }

  /** A native issue of the repo whose title starts with `[KEY]` (a Jira issue carried over to GitHub); the lowest number first. */
  async nativeIssueByTitleKey(repoId: number, key: string): Promise<IssueRef | undefined> {
    // In byte order the titles starting with "[KEY]" are those from "[KEY]" up to "[KEY^" ('^' follows ']'),
    // a range the index issues_native_title reads; its condition is the query's own, `is_synthetic = FALSE`.
    const title = this.db.capabilities.byteOrder('title');
    const row = await this.db.get<{ id: number }>(
      `SELECT id FROM issues WHERE repo_id = ? AND is_synthetic = FALSE AND ${title} >= ? AND ${title} < ? ORDER BY number, id LIMIT 1`,
      [repoId, `[${key}]`, `[${key}^`],
    );
    return row && { id: Number(row.id), isSynthetic: false };
  }

  /** Inserts a synthetic issue unless its id or key is taken; true when this call made it. */
  async insertSyntheticIssue(id: number, repoId: number, key: string): Promise<boolean> {
    const row = await this.db.get(
      'INSERT INTO issues (id, repo_id, external_key, state, is_synthetic, comment_count) VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING RETURNING id',
      [id, repoId, key, 'open', true],
    );
    return row !== undefined;
  }

  async pullRequestByNumber(repoId: number, number: number): Promise<number | undefined> {
    const row = await this.db.get<{ id: number }>('SELECT id FROM pull_requests WHERE repo_id = ? AND number = ?', [
      repoId,
      number,
    ]);
    return row && Number(row.id);
  }

  async issueByNumber(repoId: number, number: number): Promise<number | undefined> {
    const row = await this.db.get<{ id: number }>('SELECT id FROM issues WHERE repo_id = ? AND number = ?', [
      repoId,
      number,
    ]);
    return row && Number(row.id);
  }

  /** The issues these messages are linked to now. */
  async linkedIssueIds(messageIds: readonly number[]): Promise<number[]> {
    const ids = new Set<number>();
    for (const chunk of chunkRows(messageIds, 1, this.db.capabilities)) {
      const rows = await this.db.all<{ issue_id: number }>(
        `SELECT DISTINCT issue_id FROM issue_email_messages WHERE email_message_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      for (const row of rows) ids.add(Number(row.issue_id));
    }
    return [...ids];
  }

  /** The issues the list's mail is linked to. */
  async issuesLinkedToList(listId: number): Promise<number[]> {
    const rows = await this.db.all<{ issue_id: number }>(
      'SELECT DISTINCT l.issue_id FROM issue_email_messages l JOIN email_messages m ON m.id = l.email_message_id WHERE m.list_id = ? ORDER BY l.issue_id',
      [listId],
    );
    return rows.map((row) => Number(row.issue_id));
  }

  /** The planner statistics of the tables project fills (see TableStatistics). */
  statistics(): TableStatistics {
    // Their lookups by message and by issue read the whole table when planned for an empty one.
    return new TableStatistics(this.db, [
      { table: 'issues' },
      { table: 'issue_email_messages' },
      { table: 'pull_request_email_messages' },
      { table: 'patch_series' },
    ]);
  }

  /**
   * Holds the issues' rows until the transaction ends, so two processes
   * recomputing one issue from its mail take turns and the second sees the
   * first one's links.
   */
  async lockIssues(issueIds: readonly number[]): Promise<void> {
    for (const id of [...new Set(issueIds)].sort((a, b) => a - b))
      await this.db.run('UPDATE issues SET comment_count = comment_count WHERE id = ?', [id]);
  }

  /** Replaces the issue and pull request links of these messages with the given ones. */
  async replaceLinks(
    messageIds: readonly number[],
    issueLinks: readonly IssueLink[],
    pullRequestLinks: readonly PullRequestLink[],
  ): Promise<void> {
    for (const chunk of chunkRows(messageIds, 1, this.db.capabilities)) {
      await this.db.run(
        `DELETE FROM issue_email_messages WHERE email_message_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      await this.db.run(
        `DELETE FROM pull_request_email_messages WHERE email_message_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
    }
    const issueRows = issueLinks.map((l) => [l.issueId, l.emailMessageId, l.role, l.authorId]);
    for (const chunk of chunkRows(issueRows, 4, this.db.capabilities)) {
      await this.db.run(
        `INSERT INTO issue_email_messages (issue_id, email_message_id, role, author_id) VALUES ${valuesPlaceholders(chunk.length, 4)}`,
        chunk.flat(),
      );
    }
    const prRows = pullRequestLinks.map((l) => [l.pullRequestId, l.emailMessageId, l.role, l.authorId]);
    for (const chunk of chunkRows(prRows, 4, this.db.capabilities)) {
      await this.db.run(
        `INSERT INTO pull_request_email_messages (pull_request_id, email_message_id, role, author_id) VALUES ${valuesPlaceholders(chunk.length, 4)}`,
        chunk.flat(),
      );
    }
  }

  /** Of these issues, the synthetic ones, with their keys. */
  async syntheticAmong(issueIds: readonly number[]): Promise<Array<{ id: number; key: string }>> {
    const out: Array<{ id: number; key: string }> = [];
    for (const chunk of chunkRows([...new Set(issueIds)], 1, this.db.capabilities)) {
      const rows = await this.db.all<{ id: number; external_key: string }>(
        `SELECT id, external_key FROM issues WHERE is_synthetic = ? AND id IN (${inPlaceholders(chunk.length)}) ORDER BY id`,
        [true, ...chunk],
      );
      out.push(...rows.map((r) => ({ id: Number(r.id), key: r.external_key })));
    }
    return out;
  }

  /** All mail linked to these issues, from every list. */
  async issueMail(issueIds: readonly number[]): Promise<IssueMail[]> {
    const out: IssueMail[] = [];
    for (const chunk of chunkRows([...new Set(issueIds)], 1, this.db.capabilities)) {
      const rows = await this.db.all(
        `SELECT l.issue_id, l.role, l.author_id, m.sent_at, m.message_key, m.subject, m.captures
         FROM issue_email_messages l JOIN email_messages m ON m.id = l.email_message_id
         WHERE l.issue_id IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      out.push(
        ...rows.map((row) => {
          const mail = mapRow<IssueMail>(row, { json: ['captures'] });
          return { ...mail, issueId: Number(mail.issueId), authorId: nullableNumber(mail.authorId) };
        }),
      );
    }
    return out;
  }

  async updateSyntheticIssue(issue: SyntheticIssueUpdate): Promise<void> {
    await this.db.run(
      'UPDATE issues SET title = ?, state = ?, author_id = ?, comment_count = ?, created_at = ?, updated_at = ? WHERE id = ? AND is_synthetic = ?',
      [issue.title, issue.state, issue.authorId, issue.commentCount, issue.createdAt, issue.updatedAt, issue.id, true],
    );
  }

  /** Removes synthetic issues left without any mail (their mail now belongs elsewhere). */
  async deleteEmptySyntheticIssues(issueIds: readonly number[]): Promise<number> {
    let deleted = 0;
    for (const chunk of chunkRows([...new Set(issueIds)], 1, this.db.capabilities)) {
      const result = await this.db.run(
        `DELETE FROM issues WHERE is_synthetic = ? AND id IN (${inPlaceholders(chunk.length)})
         AND NOT EXISTS (SELECT 1 FROM issue_email_messages l WHERE l.issue_id = issues.id)`,
        [true, ...chunk],
      );
      deleted += result.changes;
    }
    return deleted;
  }

  /** Sets each message's outcome; a message already holding it is not written. */
  async setProjectedKinds(kinds: ReadonlyMap<number, ProjectedKind>): Promise<void> {
    const byKind = new Map<ProjectedKind, number[]>();
    for (const [id, kind] of kinds) addToGroup(byKind, kind, id);
    for (const [kind, ids] of byKind) {
      for (const chunk of chunkRows(ids, 1, this.db.capabilities)) {
        await this.db.run(
          `UPDATE email_messages SET projected_kind = ? WHERE id IN (${inPlaceholders(chunk.length)}) AND (projected_kind IS NULL OR projected_kind <> ?)`,
          [kind, ...chunk, kind],
        );
      }
    }
  }

  /** The series of this list with this key, made when new. */
  async ensurePatchSeries(
    listId: number,
    seriesKey: string,
    title: string,
    authorAddress: string | null,
  ): Promise<number> {
    await this.db.run(
      'INSERT INTO patch_series (list_id, series_key, title, author_address) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [listId, seriesKey, title, authorAddress],
    );
    const row = await this.db.get<{ id: number }>('SELECT id FROM patch_series WHERE list_id = ? AND series_key = ?', [
      listId,
      seriesKey,
    ]);
    return Number(row!.id);
  }

  async patchSeriesOfList(listId: number): Promise<PatchSeriesRow[]> {
    const rows = await this.db.all<{ id: number; title: string }>(
      'SELECT id, title FROM patch_series WHERE list_id = ? ORDER BY id',
      [listId],
    );
    return rows.map((r) => ({ id: Number(r.id), title: r.title }));
  }

  /** Sets the series of these messages (null: none); the caller passes only the ones that change. */
  async setPatchSeries(series: ReadonlyMap<number, number | null>): Promise<void> {
    const bySeries = new Map<number | null, number[]>();
    for (const [id, seriesId] of series) addToGroup(bySeries, seriesId, id);
    for (const [seriesId, ids] of bySeries) {
      for (const chunk of chunkRows(ids, 1, this.db.capabilities)) {
        await this.db.run(
          `UPDATE email_messages SET patch_series_id = ? WHERE id IN (${inPlaceholders(chunk.length)})`,
          [seriesId, ...chunk],
        );
      }
    }
  }

  /** The list's merge notices (commit mail) that belong to no series yet. */
  async mergeNoticesWithoutSeries(listId: number): Promise<ProjectMessage[]> {
    const rows = await this.db.all(
      `SELECT ${MESSAGE_COLUMNS} FROM email_messages WHERE list_id = ? AND msg_class = 'commit_notify' AND patch_series_id IS NULL ORDER BY id`,
      [listId],
    );
    return rows.map(toMessage);
  }

  /** Series of the list no message belongs to any more. */
  async deleteEmptyPatchSeries(listId: number): Promise<void> {
    await this.db.run(
      'DELETE FROM patch_series WHERE list_id = ? AND NOT EXISTS (SELECT 1 FROM email_messages m WHERE m.patch_series_id = patch_series.id)',
      [listId],
    );
  }

  /** Native issues (of these repos, or all) with an empty external_key and a title opening with a bracket. */
  async nativeIssuesWithoutKey(repoIds?: readonly number[]): Promise<TitledIssue[]> {
    if (repoIds && repoIds.length === 0) return [];
    const filter = repoIds ? ` AND repo_id IN (${inPlaceholders(repoIds.length)})` : '';
    const rows = await this.db.all<{ id: number; repo_id: number; title: string }>(
      `SELECT id, repo_id, title FROM issues
       WHERE is_synthetic = ? AND (external_key IS NULL OR external_key = '') AND substr(title, 1, 1) = '['${filter} ORDER BY id`,
      [false, ...(repoIds ?? [])],
    );
    return rows.map((r) => ({ id: Number(r.id), repoId: Number(r.repo_id), title: r.title }));
  }

  /** Gives the issue its key unless another issue of the repo holds it; true when set. */
  async setExternalKey(issueId: number, key: string): Promise<boolean> {
    const result = await this.db.run(
      `UPDATE issues SET external_key = ? WHERE id = ? AND (external_key IS NULL OR external_key = '')
       AND NOT EXISTS (SELECT 1 FROM issues other WHERE other.repo_id = issues.repo_id AND other.external_key = ? AND other.external_key <> '')`,
      [key, issueId, key],
    );
    return result.changes > 0;
  }

  async recordShadow(syntheticIssueId: number, nativeIssueId: number, repoId: number, key: string): Promise<void> {
    await this.db.run(
      `INSERT INTO issue_key_shadows (synthetic_issue_id, native_issue_id, repo_id, external_key, found_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (synthetic_issue_id, native_issue_id) DO NOTHING`,
      [syntheticIssueId, nativeIssueId, repoId, key, new Date().toISOString()],
    );
  }
}
