import { mapRow, parseJson } from './row-mapping.js';
import { inPlaceholders, type SqlSession, type SqlValue } from './sql-driver.js';

/** How many stored messages one pair of rules and listminer version labelled (nulls: labelled before provenance was recorded). */
export interface LabelProvenanceCount {
  rulesHash: string | null;
  listminerVersion: string | null;
  messages: number;
}

/** Which lists a report covers: some by id, or every list (undefined). */
export type ReportScope = readonly number[] | undefined;

/** How many of a list's staged messages are at each step of the pipeline. */
export interface StatusCounts {
  staged: number;
  classified: number;
  drained: number;
  deferred: number;
  shunted: number;
  /** Rows whose status is none of the five (a row edited by hand, or a bug). */
  other: number;
}

/** One list's registration, fetch state and counts, as stats and verify read them. */
export interface ListFigures {
  id: number;
  system: string;
  name: string;
  repoId: number | null;
  repoUrl: string | null;
  firstMonth: string | null;
  lastMonth: string | null;
  scanComplete: boolean;
  failedAttempts: number;
  lastFailure: string | null;
  lastFailureAt: string | null;
  retryAfter: string | null;
  sidelinedAt: string | null;
  /** Rows of fetched_months. */
  monthsScanned: number;
  /** The latest month of fetched_months (lists.last_month should equal it). */
  lastFetchedMonth: string | null;
  /** The latest fetched month that held mail (the scan reaches the present; the mail may stop long before). */
  lastMailMonth: string | null;
  /** Rows of staged_messages, all statuses. */
  total: number;
  statuses: StatusCounts;
  /** Rows of email_messages. */
  stored: number;
}

/** Figures over the research table (email_messages) of the lists in scope. */
export interface MailFigures {
  total: number;
  /** Messages whose thread root is another message. */
  replies: number;
  signaledCaptured: number;
  signaledResolved: number;
  bots: number;
  humans: number;
  /** Human mail whose sender is a contributor. */
  humansResolved: number;
  issueEvents: number;
  /** issue_event mail whose captures hold an external_key. */
  issueEventsWithKey: number;
}

/** A count of offending rows and a few of them, named so a person can find them. */
export interface Offenders {
  count: number;
  examples: string[];
}

/** Derived rows that disagree with what they are derived from (docs/verify.md, "derived-current"). */
export interface StaleDerivations {
  /** issue_event mail with a tracker key (Jira's or a numbered tracker's) on a clean_fit list, projected without its issue. */
  trackerUnlinked: Offenders;
  /** Messages whose links (issues and pull requests, by role) disagree with their outcome or class. */
  links: Offenders;
  /** Messages whose body_stored disagrees with their class and the list's mirror handling. */
  bodies: Offenders;
  /** Synthetic issues with no mail, or a comment_count that is not their mail's. Labels name the issue. */
  issues: Offenders;
}

/** What the checkpoint rule needs to know about a list whose last fetch failed. */
export interface FailedListCheckpoints {
  listId: number;
  scanComplete: boolean;
  lastFailureAt: string;
  /** The latest month checkpointed at or before the failure: where the list stood when it failed. */
  cursorAtFailure: string | null;
  /** The earliest month checkpointed after the failure. */
  firstMonthAfter: string | null;
}

export interface MonthCount {
  /** YYYY-MM, or null for mail with no month at all. */
  month: string | null;
  count: number;
}

const EXAMPLES = 5;

const STATUS_SHAPE = { booleans: ['scan_complete'] } as const;

/**
 * The read-only queries of `verify` and `stats`: counts over every table the
 * pipeline fills, and the rows that break one of the store's invariants.
 * Nothing here writes.
 */
export class ReportRecords {
  constructor(private readonly db: SqlSession) {}

  async lists(scope: ReportScope): Promise<ListFigures[]> {
    const where = scopeClause('lists.id', scope);
    const rows = await this.db.all(
      `SELECT lists.id, lists.system, lists.name, lists.repo_id, lists.repo_url, lists.first_month, lists.last_month, lists.scan_complete,
         lists.failed_attempts, lists.last_failure, lists.last_failure_at, lists.retry_after, lists.sidelined_at,
         (SELECT COUNT(*) FROM fetched_months f WHERE f.list_id = lists.id) AS months_scanned,
         (SELECT MAX(f.month) FROM fetched_months f WHERE f.list_id = lists.id) AS last_fetched_month,
         (SELECT MAX(f.month) FROM fetched_months f WHERE f.list_id = lists.id AND f.messages_seen > 0) AS last_mail_month,
         (SELECT COUNT(*) FROM email_messages e WHERE e.list_id = lists.id) AS stored
       FROM lists ${where.sql ? `WHERE ${where.sql}` : ''} ORDER BY lists.system, lists.name`,
      where.params,
    );
    const statuses = await this.statusCounts(scope);
    return rows.map((row) => {
      const list = mapRow<ListFigures>(row, STATUS_SHAPE);
      const id = Number(list.id);
      const counts = statuses.get(id) ?? emptyStatusCounts();
      return {
        ...list,
        id,
        repoId: list.repoId === null ? null : Number(list.repoId),
        failedAttempts: Number(list.failedAttempts),
        monthsScanned: Number(list.monthsScanned),
        stored: Number(list.stored),
        statuses: counts,
        total: (Object.values(counts) as number[]).reduce((a, b) => a + b, 0),
      };
    });
  }

  /** Stored mail per class (email_messages.msg_class). */
  async classCounts(scope: ReportScope): Promise<Map<string, number>> {
    return this.countBy('msg_class', scope);
  }

  /** Stored mail per outcome of project (email_messages.projected_kind); null: not projected. */
  async routingCounts(scope: ReportScope): Promise<Map<string | null, number>> {
    return this.countBy('projected_kind', scope);
  }

  /** Stored mail per rules (sha256 of the systems file) and listminer version its labels were made with, most messages first; nulls: not recorded. */
  async labelProvenance(scope: ReportScope): Promise<LabelProvenanceCount[]> {
    const where = scopeClause('list_id', scope);
    const rows = await this.db.all<{ rules_hash: string | null; listminer_version: string | null; n: number }>(
      `SELECT rules_hash, listminer_version, COUNT(*) AS n FROM email_messages ${where.sql ? `WHERE ${where.sql}` : ''}
       GROUP BY rules_hash, listminer_version ORDER BY n DESC, rules_hash, listminer_version`,
      where.params,
    );
    return rows.map((row) => ({
      rulesHash: row.rules_hash,
      listminerVersion: row.listminer_version,
      messages: Number(row.n),
    }));
  }

  async mail(scope: ReportScope): Promise<MailFigures> {
    const where = scopeClause('list_id', scope);
    const key = "captures->>'external_key'";
    const row = await this.db.get<Record<string, unknown>>(
      `SELECT COUNT(*) AS total,
         SUM(CASE WHEN thread_root_id IS NOT NULL AND thread_root_id <> id THEN 1 ELSE 0 END) AS replies,
         SUM(CASE WHEN signaled_repo_url IS NOT NULL THEN 1 ELSE 0 END) AS signaled_captured,
         SUM(CASE WHEN signaled_repo_id IS NOT NULL THEN 1 ELSE 0 END) AS signaled_resolved,
         SUM(CASE WHEN is_bot = TRUE THEN 1 ELSE 0 END) AS bots,
         SUM(CASE WHEN is_bot = FALSE THEN 1 ELSE 0 END) AS humans,
         SUM(CASE WHEN is_bot = FALSE AND sender_id IS NOT NULL THEN 1 ELSE 0 END) AS humans_resolved,
         SUM(CASE WHEN msg_class = 'issue_event' THEN 1 ELSE 0 END) AS issue_events,
         SUM(CASE WHEN msg_class = 'issue_event' AND ${key} IS NOT NULL AND ${key} <> '' THEN 1 ELSE 0 END) AS issue_events_with_key
       FROM email_messages ${where.sql ? `WHERE ${where.sql}` : ''}`,
      where.params,
    );
    const figures = mapRow<Record<keyof MailFigures, unknown>>(row ?? {});
    return Object.fromEntries(
      Object.entries(figures).map(([name, value]) => [name, Number(value ?? 0)]),
    ) as unknown as MailFigures;
  }

  /** Repository URLs stored mail names (signaled_repo_url) that no registered repo resolves, by messages, most first. */
  async unresolvedSignaledRepos(scope: ReportScope): Promise<Array<{ url: string; messages: number }>> {
    const where = scopeClause('list_id', scope);
    const rows = await this.db.all<{ url: string; n: number }>(
      `SELECT signaled_repo_url AS url, COUNT(*) AS n FROM email_messages
       WHERE signaled_repo_url IS NOT NULL AND signaled_repo_id IS NULL ${where.sql ? `AND ${where.sql}` : ''}
       GROUP BY signaled_repo_url ORDER BY n DESC, url`,
      where.params,
    );
    return rows.map((row) => ({ url: row.url, messages: Number(row.n) }));
  }

  /** Drained staged rows with no email_messages row under the same list and key. */
  async drainedWithoutRow(scope: ReportScope): Promise<Offenders> {
    const where = scopeClause('s.list_id', scope);
    return this.offenders(
      `FROM staged_messages s WHERE s.status = 'drained' ${where.sql ? `AND ${where.sql}` : ''}
         AND NOT EXISTS (SELECT 1 FROM email_messages e WHERE e.list_id = s.list_id AND e.message_key = s.message_key)`,
      "s.list_id || ' ' || s.message_key",
      where.params,
    );
  }

  /** email_messages rows with no staged row under the same list and key. */
  async storedWithoutStaged(scope: ReportScope): Promise<Offenders> {
    const where = scopeClause('e.list_id', scope);
    return this.offenders(
      `FROM email_messages e WHERE ${where.sql ? `${where.sql} AND ` : ''}
         NOT EXISTS (SELECT 1 FROM staged_messages s WHERE s.list_id = e.list_id AND s.message_key = e.message_key)`,
      "e.list_id || ' ' || e.message_key",
      where.params,
    );
  }

  /**
   * Stored messages of one list that are the same mail: the same content hash
   * (which covers the Message-ID) under two keys. The staged row is found by
   * the id the email row was drained from, else by its key, so a row copied
   * under another key still meets its original's content.
   */
  async duplicateContent(scope: ReportScope): Promise<Offenders> {
    const where = scopeClause('e.list_id', scope);
    return this.offenders(
      `FROM (SELECT e.list_id, COALESCE(by_id.content_hash, by_key.content_hash) AS content_hash, COUNT(*) AS copies, MIN(e.message_key) AS first_key
             FROM email_messages e
             LEFT JOIN staged_messages by_id ON by_id.id = e.staged_message_id
             LEFT JOIN staged_messages by_key ON by_key.list_id = e.list_id AND by_key.message_key = e.message_key
             ${where.sql ? `WHERE ${where.sql}` : ''}
             GROUP BY e.list_id, COALESCE(by_id.content_hash, by_key.content_hash)) d
       WHERE d.content_hash IS NOT NULL AND d.copies > 1`,
      "d.list_id || ' ' || d.first_key",
      where.params,
    );
  }

  /**
   * Stored messages of one list that are one mail in two forms: the same
   * Message-ID, sender, date, subject, In-Reply-To, References and decoded
   * body (or no body, both) under different keys, the fields fetch compares
   * (isSameMail). An archive that rebuilds mail on export (HyperKitty) made
   * such pairs before fetch compared re-exports by their text; every copy after
   * the first, in key order, is named. Mails that differ in any of them
   * (a test mail sent again in reply to another message) are two mails, as
   * fetch judged them. One sort of the rows, not a lookup of
   * each message's twins: SQLite, which plans without statistics, looked
   * those up through the list's keys above the message's own, a range read
   * again for every message.
   */
  async nearDuplicates(scope: ReportScope): Promise<Offenders> {
    const where = scopeClause('e.list_id', scope);
    return this.offenders(
      `FROM (SELECT e.list_id, e.message_key,
               ROW_NUMBER() OVER (
                 PARTITION BY e.list_id, e.message_id, e.from_name, e.from_address, e.sent_at, e.subject, e.in_reply_to,
                   e.references_ids, b.body_id
                 ORDER BY e.message_key) AS nth
             FROM email_messages e LEFT JOIN email_message_bodies b ON b.email_message_id = e.id
             WHERE e.message_id IS NOT NULL ${where.sql ? `AND ${where.sql}` : ''}) d
       WHERE d.nth > 1`,
      "d.list_id || ' ' || d.message_key",
      where.params,
    );
  }

  /**
   * Stored bodies with a line that starts "From " and a Subject: line: the
   * only ones that can hold a whole message merged into them (verify's
   * no-merged-messages looks at each).
   */
  async bodiesWithFromLines(scope: ReportScope): Promise<Array<{ listId: number; messageKey: string; body: string }>> {
    const where = scopeClause('e.list_id', scope);
    const rows = await this.db.all<{ list_id: number; message_key: string; body_text: string }>(
      `SELECT e.list_id, e.message_key, b.body_text FROM email_messages e
         JOIN email_message_bodies eb ON eb.email_message_id = e.id
         JOIN message_bodies b ON b.id = eb.body_id
       WHERE b.body_text LIKE ? AND LOWER(b.body_text) LIKE ? ${where.sql ? `AND ${where.sql}` : ''}
       ORDER BY e.list_id, e.message_key`,
      ['%\nFrom %', '%\nsubject:%', ...where.params],
    );
    return rows.map((row) => ({ listId: Number(row.list_id), messageKey: row.message_key, body: row.body_text }));
  }

  /** Stored messages that should carry a body (body_stored) and have none. */
  async missingBodies(scope: ReportScope): Promise<Offenders> {
    const where = scopeClause('e.list_id', scope);
    return this.offenders(
      `FROM email_messages e WHERE e.body_stored = TRUE ${where.sql ? `AND ${where.sql}` : ''}
         AND NOT EXISTS (SELECT 1 FROM email_message_bodies b WHERE b.email_message_id = e.id)`,
      "e.list_id || ' ' || e.message_key",
      where.params,
    );
  }

  /** Stored messages with no projected_kind in lists where project has given some messages one. */
  async unprojectedInProjectedLists(scope: ReportScope): Promise<Offenders> {
    const where = scopeClause('e.list_id', scope);
    return this.offenders(
      `FROM email_messages e WHERE e.projected_kind IS NULL ${where.sql ? `AND ${where.sql}` : ''}
         AND EXISTS (SELECT 1 FROM email_messages p WHERE p.list_id = e.list_id AND p.projected_kind IS NOT NULL)`,
      "e.list_id || ' ' || e.message_key",
      where.params,
    );
  }

  /**
   * Derived rows that disagree with their inputs, each kind one set-based
   * query: a projection left from an older class (tracker mail projected
   * without its issue, a link the outcome or class no longer warrants), a
   * body kept or missing against the class and the list's recorded mirror
   * handling, a synthetic issue with no mail or a miscounted one. Messages
   * without an outcome yet are pending (projection-complete), not stale.
   */
  async staleDerivations(
    scope: ReportScope,
    cleanFitLists: readonly number[],
    mirrorClasses: readonly string[],
    hasTrackerKey: (captures: Record<string, string> | null) => boolean,
  ): Promise<StaleDerivations> {
    const where = scopeClause('e.list_id', scope);
    const inScope = where.sql ? `AND ${where.sql}` : '';
    const label = "e.list_id || ' ' || e.message_key";
    const issueLink = (roles: string) =>
      `EXISTS (SELECT 1 FROM issue_email_messages l WHERE l.email_message_id = e.id AND l.role ${roles})`;
    const prLink = (roles: string) =>
      `EXISTS (SELECT 1 FROM pull_request_email_messages p WHERE p.email_message_id = e.id AND p.role ${roles})`;
    const tied = "e.projected_kind IN ('linked', 'created', 'inherited')";
    const trackerUnlinked = await this.untiedTrackerMail(
      cleanFitLists,
      where,
      `NOT ${tied} OR NOT ${issueLink("<> 'mirror'")}`,
      hasTrackerKey,
    );
    // A tie (tracker key, thread, GitHub reference) is an issue or pull request link of another role than mirror.
    const links = await this.offenders(
      `FROM email_messages e WHERE e.projected_kind IS NOT NULL ${inScope} AND (
         (${tied}) <> (${issueLink("<> 'mirror'")} OR ${prLink("<> 'mirror'")})
         OR (e.projected_kind = 'mirror') <> (${issueLink("= 'mirror'")} OR ${prLink("= 'mirror'")})
         OR (e.msg_class <> 'issue_event' AND ${issueLink("= 'event'")})
         OR (e.msg_class <> 'github_mirror' AND (${issueLink("= 'mirror'")} OR ${prLink("= 'mirror'")})))`,
      label,
      where.params,
    );
    const mirror = `e.msg_class IN (${inPlaceholders(mirrorClasses.length)})`;
    const bodies = await this.offenders(
      `FROM email_messages e WHERE (
         (NOT ${mirror} AND e.body_stored = FALSE)
         OR (${mirror} AND EXISTS (SELECT 1 FROM lists h WHERE h.id = e.list_id
               AND ((h.mirror_handling = 'full' AND e.body_stored = FALSE) OR (h.mirror_handling IN ('metadata_only', 'skip') AND e.body_stored = TRUE))))) ${inScope}`,
      label,
      [...mirrorClasses, ...mirrorClasses, ...where.params],
    );
    const repos =
      scope === undefined
        ? { sql: '', params: [] }
        : {
            sql: `AND i.repo_id IN (SELECT repo_id FROM lists WHERE ${scopeClause('id', scope).sql})`,
            params: [...scope],
          };
    const issues = await this.offenders(
      `FROM issues i WHERE i.is_synthetic = TRUE ${repos.sql}
         AND (NOT EXISTS (SELECT 1 FROM issue_email_messages l WHERE l.issue_id = i.id)
              OR i.comment_count <> (SELECT COUNT(*) FROM issue_email_messages l WHERE l.issue_id = i.id))`,
      `'synthetic issue ' || COALESCE(i.external_key, '') || ' (id ' || i.id || '): ' ||
         CASE WHEN NOT EXISTS (SELECT 1 FROM issue_email_messages l WHERE l.issue_id = i.id) THEN 'no mail'
              ELSE 'comment_count ' || i.comment_count || ', mail ' || (SELECT COUNT(*) FROM issue_email_messages l WHERE l.issue_id = i.id) END`,
      repos.params,
    );
    return { trackerUnlinked, links, bodies, issues };
  }

  /**
   * Of the lists given, those holding stored mail of which no message has a
   * projected_kind: drained, and project never ran over them.
   */
  async neverProjectedLists(listIds: readonly number[]): Promise<number[]> {
    if (listIds.length === 0) return [];
    const rows = await this.db.all<{ list_id: number }>(
      `SELECT l.id AS list_id FROM lists l WHERE l.id IN (${inPlaceholders(listIds.length)})
         AND EXISTS (SELECT 1 FROM email_messages e WHERE e.list_id = l.id)
         AND NOT EXISTS (SELECT 1 FROM email_messages p WHERE p.list_id = l.id AND p.projected_kind IS NOT NULL)
       ORDER BY l.id`,
      [...listIds],
    );
    return rows.map((row) => Number(row.list_id));
  }

  /**
   * Mail a stage passed over and left behind. classify and drain take a
   * list's rows in id order and write them in that order, one batch at a
   * time, and a list's ids grow with its fetches (one fetch per list at a
   * time). So a row still `staged` below a row classify moved on since the
   * first one was last touched was skipped by a classify that ran over it;
   * and likewise a row still `classified` below a row drain has drained or
   * deferred since. Mail above every such row (fetched after the stage last
   * ran) is pending, not stuck. Shunted rows are not evidence for drain:
   * classify shunts in the same batch it classifies.
   */
  async stuckMail(scope: ReportScope): Promise<{ leftStaged: Offenders; leftClassified: Offenders }> {
    const where = scopeClause('s.list_id', scope);
    const stuck = (status: string, movedOn: string) =>
      this.offenders(
        `FROM staged_messages s WHERE s.status = '${status}' ${where.sql ? `AND ${where.sql}` : ''}
           AND EXISTS (SELECT 1 FROM staged_messages o WHERE o.list_id = s.list_id AND o.status IN (${movedOn})
                         AND o.id > s.id AND o.updated_at >= s.updated_at)`,
        "s.list_id || ' ' || s.message_key",
        where.params,
      );
    return {
      leftStaged: await stuck('staged', "'classified', 'drained', 'deferred', 'shunted'"),
      leftClassified: await stuck('classified', "'drained', 'deferred'"),
    };
  }

  /** Every list with a failure on record, with the checkpoints around it. */
  async failedListCheckpoints(scope: ReportScope): Promise<FailedListCheckpoints[]> {
    const where = scopeClause('lists.id', scope);
    const rows = await this.db.all(
      `SELECT lists.id AS list_id, lists.scan_complete, lists.last_failure_at,
         (SELECT MAX(f.month) FROM fetched_months f WHERE f.list_id = lists.id AND f.fetched_at <= lists.last_failure_at) AS cursor_at_failure,
         (SELECT MIN(f.month) FROM fetched_months f WHERE f.list_id = lists.id AND f.fetched_at > lists.last_failure_at) AS first_month_after
       FROM lists WHERE lists.last_failure_at IS NOT NULL ${where.sql ? `AND ${where.sql}` : ''} ORDER BY lists.id`,
      where.params,
    );
    return rows.map((row) => {
      const list = mapRow<FailedListCheckpoints>(row, STATUS_SHAPE);
      return { ...list, listId: Number(list.listId) };
    });
  }

  /**
   * Synthetic issues (made by project from mail) whose key a native issue of
   * the same repo carries as a `[KEY]` prefix of its title: the mail should
   * have linked to the native issue. Counted per synthetic issue. Each
   * native title is cut once per length a synthetic key has (a handful) and
   * the pieces are matched to the keys by equality: comparing every
   * synthetic issue with every native title of its repo grew with their
   * product.
   */
  async missedLinkShadows(repoIds: readonly number[] | undefined): Promise<number> {
    const synthetic = "(s.is_synthetic = TRUE OR s.id < 0) AND s.external_key IS NOT NULL AND s.external_key <> ''";
    const inScope = (column: string) => {
      const where = scopeClause(column, repoIds);
      return { sql: where.sql ? `AND ${where.sql}` : '', params: where.params };
    };
    const [keys, titles] = [inScope('s.repo_id'), inScope('n.repo_id')];
    const row = await this.db.get<{ n: number }>(
      `WITH key_lengths AS (SELECT DISTINCT length(s.external_key) AS len FROM issues s WHERE ${synthetic} ${keys.sql}),
         title_prefixes AS (
           SELECT DISTINCT n.repo_id, lower(substr(ltrim(n.title), 1, key_lengths.len + 2)) AS prefix
           FROM issues n CROSS JOIN key_lengths
           WHERE n.is_synthetic = FALSE AND n.id > 0 AND n.title IS NOT NULL ${titles.sql})
       SELECT COUNT(DISTINCT s.id) AS n FROM issues s
         JOIN title_prefixes p ON p.repo_id = s.repo_id AND p.prefix = lower('[' || s.external_key || ']')
       WHERE ${synthetic} ${keys.sql}`,
      [...keys.params, ...titles.params, ...keys.params],
    );
    return Number(row?.n ?? 0);
  }

  /** Rows of the pr_equivalents view of these lists; undefined while the view does not exist. */
  async prEquivalents(listIds: readonly number[]): Promise<number> {
    if (listIds.length === 0) return 0;
    const row = await this.db.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM pr_equivalents WHERE list_id IN (${inPlaceholders(listIds.length)})`,
      listIds,
    );
    return Number(row?.n ?? 0);
  }

  /**
   * A list's messages per month. A message counts in the UTC month of its
   * Date header (email_messages.sent_at) when that month lies within the
   * months the archive filed the list's mail under; otherwise — not drained
   * yet, no date, or a clock years off — in the month the archive filed it
   * under (staged_messages.archive_month). Every staged row counts once.
   */
  async monthlyCounts(listId: number): Promise<MonthCount[]> {
    const sent = this.db.capabilities.utcMonth('e.sent_at');
    const rows = await this.db.all<{ month: string | null; n: number }>(
      `SELECT m.month, COUNT(*) AS n FROM (
         SELECT CASE WHEN e.sent_at IS NOT NULL AND (b.lo IS NULL OR ${sent} BETWEEN b.lo AND b.hi) THEN ${sent} ELSE s.archive_month END AS month
         FROM staged_messages s
         LEFT JOIN email_messages e ON e.list_id = s.list_id AND e.message_key = s.message_key
         CROSS JOIN (SELECT MIN(archive_month) AS lo, MAX(archive_month) AS hi FROM staged_messages WHERE list_id = ?) b
         WHERE s.list_id = ?) m
       GROUP BY m.month ORDER BY m.month`,
      [listId, listId],
    );
    return rows.map((row) => ({ month: row.month, count: Number(row.n) }));
  }

  private async statusCounts(scope: ReportScope): Promise<Map<number, StatusCounts>> {
    const where = scopeClause('list_id', scope);
    const rows = await this.db.all<{ list_id: number; status: string; n: number }>(
      `SELECT list_id, status, COUNT(*) AS n FROM staged_messages ${where.sql ? `WHERE ${where.sql}` : ''} GROUP BY list_id, status`,
      where.params,
    );
    const counts = new Map<number, StatusCounts>();
    for (const row of rows) {
      const id = Number(row.list_id);
      const entry = counts.get(id) ?? emptyStatusCounts();
      const status =
        Object.hasOwn(entry, row.status) && row.status !== 'other' ? (row.status as keyof StatusCounts) : 'other';
      entry[status] += Number(row.n);
      counts.set(id, entry);
    }
    return counts;
  }

  private async countBy<K extends string | null>(
    column: 'msg_class' | 'projected_kind',
    scope: ReportScope,
  ): Promise<Map<K, number>> {
    const where = scopeClause('list_id', scope);
    const rows = await this.db.all<{ value: K; n: number }>(
      `SELECT ${column} AS value, COUNT(*) AS n FROM email_messages ${where.sql ? `WHERE ${where.sql}` : ''} GROUP BY ${column}`,
      where.params,
    );
    return new Map(rows.map((row) => [row.value, Number(row.n)]));
  }

  /** Counts the rows of `from` and names a few, by `label`, in a stable order. */
  /**
   * Projected issue_event mail of clean_fit lists that has no issue link or
   * an outcome other than a tie, and whose captures give a tracker key (the
   * key is worked out in code, tracker-key.ts, so the candidates are read).
   */
  private async untiedTrackerMail(
    cleanFitLists: readonly number[],
    where: { sql: string; params: SqlValue[] },
    untied: string,
    hasTrackerKey: (captures: Record<string, string> | null) => boolean,
  ): Promise<Offenders> {
    if (cleanFitLists.length === 0) return { count: 0, examples: [] };
    const rows = await this.db.all<{ label: string; captures: unknown }>(
      `SELECT e.list_id || ' ' || e.message_key AS label, e.captures FROM email_messages e
       WHERE e.list_id IN (${inPlaceholders(cleanFitLists.length)}) ${where.sql ? `AND ${where.sql}` : ''}
         AND e.msg_class = 'issue_event' AND e.captures IS NOT NULL AND e.repo_id IS NOT NULL
         AND e.projected_kind IS NOT NULL AND (${untied})
       ORDER BY 1`,
      [...cleanFitLists, ...where.params],
    );
    const offending = rows
      .filter((row) => hasTrackerKey(parseJson(row.captures) as Record<string, string> | null))
      .map((row) => String(row.label));
    return { count: offending.length, examples: offending.slice(0, EXAMPLES) };
  }

  private async offenders(from: string, label: string, params: readonly SqlValue[]): Promise<Offenders> {
    const count = await this.db.get<{ n: number }>(`SELECT COUNT(*) AS n ${from}`, params);
    const n = Number(count?.n ?? 0);
    if (n === 0) return { count: 0, examples: [] };
    const rows = await this.db.all<{ label: string }>(
      `SELECT ${label} AS label ${from} ORDER BY 1 LIMIT ${EXAMPLES}`,
      params,
    );
    return { count: n, examples: rows.map((row) => String(row.label)) };
  }
}

function emptyStatusCounts(): StatusCounts {
  return { staged: 0, classified: 0, drained: 0, deferred: 0, shunted: 0, other: 0 };
}

/** `column IN (…)` for the lists in scope, or nothing for every list. */
function scopeClause(column: string, scope: readonly number[] | undefined): { sql: string; params: SqlValue[] } {
  if (scope === undefined) return { sql: '', params: [] };
  if (scope.length === 0) return { sql: '1 = 0', params: [] };
  return { sql: `${column} IN (${inPlaceholders(scope.length)})`, params: [...scope] };
}
