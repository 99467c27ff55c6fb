import { chunkRows, inPlaceholders, type SqlSession } from './sql-driver.js';
import { addToGroup } from '../add-to-group.js';

/** Someone a tracker names, by login; the e-mail address only where the tracker gives one. */
export interface TrackerPerson {
  login: string;
  /** Lower-cased. */
  email: string | null;
}

/** An issue as GitHub's API describes it. */
export interface TrackerIssue {
  /** GitHub's id: positive (issues synthesized from mail have negative ones). */
  id: number;
  number: number;
  title: string;
  state: string | null;
  author: TrackerPerson | null;
  url: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** The `[KEY-123]` the title starts with. */
  externalKey: string | null;
  commentCount: number;
}

/** A pull request as GitHub's API describes it. */
export interface TrackerPullRequest {
  id: number;
  /** Which of GitHub's ids `id` is: the pull request's own (`/pulls`), or its issue's (`/issues` lists pull requests as issues). */
  idOf: 'pull_request' | 'issue';
  number: number;
  title: string;
  state: string | null;
  author: TrackerPerson | null;
  url: string | null;
  createdAt: string | null;
  /** Null when not merged, or when the listing does not say. */
  mergedAt: string | null;
}

export interface RowWrites {
  added: number;
  updated: number;
}

/** What saving one page wrote; rows that already held what the page says count nowhere. */
export interface PageWrites {
  issues: RowWrites;
  pullRequests: RowWrites;
  contributorsAdded: number;
}

const ISSUE_COLUMNS = [
  'repo_id',
  'number',
  'external_key',
  'title',
  'state',
  'author_id',
  'is_synthetic',
  'comment_count',
  'url',
  'created_at',
  'updated_at',
];
const PULL_COLUMNS = ['title', 'state', 'author_id', 'url', 'created_at', 'merged_at'];

/** `SET a = excluded.a, …`, keeping a known author when the tracker no longer names one (a deleted account). */
function setFromExcluded(table: string, columns: readonly string[]): string {
  return columns
    .map((c) => (c === 'author_id' ? `${c} = COALESCE(excluded.${c}, ${table}.${c})` : `${c} = excluded.${c}`))
    .join(', ');
}

/** True when the upsert would change something: a row that already says it all is not written, so it is not counted. */
function changedFromExcluded(table: string, columns: readonly string[]): string {
  return columns
    .map(
      (c) =>
        `${table}.${c} IS DISTINCT FROM ${c === 'author_id' ? `COALESCE(excluded.${c}, ${table}.${c})` : `excluded.${c}`}`,
    )
    .join(' OR ');
}

/**
 * Issues, pull requests and the people who opened them, as an issue
 * tracker (GitHub's API) describes them. Every write is an upsert keyed on
 * what the tracker keeps stable (an issue's id; a pull request's repo and
 * number; a person's login), so saving a page twice, or from two processes at
 * once, ends in the same rows. docs/import.md says why each key is the one it is.
 */
export class TrackerRecords {
  constructor(private readonly db: SqlSession) {}

  /** Saves one page in one transaction: its people, then its issues and pull requests. */
  async savePage(
    repoId: number,
    page: { issues: readonly TrackerIssue[]; pullRequests: readonly TrackerPullRequest[] },
  ): Promise<PageWrites> {
    return this.db.transaction(async (session) => {
      const records = new TrackerRecords(session);
      const people = [...page.issues, ...page.pullRequests].flatMap((item) => (item.author ? [item.author] : []));
      const { ids, added } = await records.ensureByLogin(people);
      const authorOf = (person: TrackerPerson | null) => (person ? (ids.get(person.login) ?? null) : null);
      const issues = await records.upsertIssues(repoId, page.issues, authorOf);
      const pullRequests = await records.upsertPullRequests(repoId, page.pullRequests, authorOf);
      return { issues, pullRequests, contributorsAdded: added };
    });
  }

  /**
   * The contributor id of each login, creating GitHub contributors for new
   * ones. A contributor already known by the e-mail address the tracker gives
   * for a login (drained mail made it) gets that login instead of a twin.
   */
  async ensureByLogin(people: readonly TrackerPerson[]): Promise<{ ids: Map<string, number>; added: number }> {
    const byLogin = new Map<string, TrackerPerson>();
    for (const person of people) if (!byLogin.has(person.login) || person.email) byLogin.set(person.login, person);
    const ids = await this.idsByLogin([...byLogin.keys()]);
    let added = 0;
    const now = new Date().toISOString();
    for (const person of byLogin.values()) {
      if (ids.has(person.login)) continue;
      if (person.email) {
        const attached = await this.db.get<{ id: number }>(
          'UPDATE contributors SET github_login = ? WHERE email = ? AND github_login IS NULL RETURNING id',
          [person.login, person.email],
        );
        if (attached) {
          ids.set(person.login, Number(attached.id));
          continue;
        }
      }
      // The address goes along unless someone else (another login) has it.
      for (const email of person.email ? [person.email, null] : [null]) {
        const inserted = await this.db.get<{ id: number }>(
          "INSERT INTO contributors (name, email, github_login, source, created_at) VALUES (NULL, ?, ?, 'github', ?) ON CONFLICT DO NOTHING RETURNING id",
          [email, person.login, now],
        );
        if (inserted) {
          ids.set(person.login, Number(inserted.id));
          added++;
          break;
        }
        const found = (await this.idsByLogin([person.login])).get(person.login);
        if (found !== undefined) {
          ids.set(person.login, found);
          break;
        }
      }
    }
    return { ids, added };
  }

  /** The contributor of each login, matched as GitHub matches logins: whatever the case. */
  async idsByLogin(logins: readonly string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const asked = new Map<string, string[]>();
    for (const login of new Set(logins)) addToGroup(asked, login.toLowerCase(), login);
    for (const chunk of chunkRows([...asked.keys()], 1, this.db.capabilities)) {
      const rows = await this.db.all<{ id: number; login: string }>(
        `SELECT id, lower(github_login) AS login FROM contributors WHERE lower(github_login) IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      for (const row of rows) for (const login of asked.get(row.login) ?? []) ids.set(login, Number(row.id));
    }
    return ids;
  }

  /**
   * Upserts issues by GitHub id. A `[KEY-123]` another issue of the repo
   * already holds (often a synthetic issue made from mail) is left NULL
   * rather than refused; a number another issue of the repo still holds
   * (one that has moved away) passes to the issue GitHub now gives it.
   */
  async upsertIssues(
    repoId: number,
    issues: readonly TrackerIssue[],
    authorOf: (person: TrackerPerson | null) => number | null,
  ): Promise<RowWrites> {
    const writes: RowWrites = { added: 0, updated: 0 };
    for (const issue of issues) {
      let externalKey = issue.externalKey;
      if (externalKey !== null) {
        // `<> ''` lets SQLite read the partial unique index on the key (an empty key is no key).
        const holder = await this.db.get(
          "SELECT id FROM issues WHERE repo_id = ? AND external_key = ? AND external_key <> '' AND id <> ?",
          [repoId, externalKey, issue.id],
        );
        if (holder) externalKey = null;
      }
      await this.db.run('UPDATE issues SET number = NULL WHERE repo_id = ? AND number = ? AND id <> ?', [
        repoId,
        issue.number,
        issue.id,
      ]);
      const existed = await this.db.get('SELECT id FROM issues WHERE id = ?', [issue.id]);
      const written = await this.db.get(
        `INSERT INTO issues (id, ${ISSUE_COLUMNS.join(', ')}) VALUES (?, ${inPlaceholders(ISSUE_COLUMNS.length)})
         ON CONFLICT (id) DO UPDATE SET ${setFromExcluded('issues', ISSUE_COLUMNS)}
         WHERE ${changedFromExcluded('issues', ISSUE_COLUMNS)}
         RETURNING id`,
        [
          issue.id,
          repoId,
          issue.number,
          externalKey,
          issue.title,
          issue.state,
          authorOf(issue.author),
          false,
          issue.commentCount,
          issue.url,
          issue.createdAt,
          issue.updatedAt,
        ],
      );
      if (written) writes[existed ? 'updated' : 'added']++;
    }
    return writes;
  }

  /**
   * Upserts pull requests by (repo, number): the issues listing names a pull
   * request by its issue id, /pulls by its own. A row first written under
   * the issue id takes the pull request's id once /pulls names it (unless
   * mail already links to it); merged_at, once known, stays.
   */
  async upsertPullRequests(
    repoId: number,
    pulls: readonly TrackerPullRequest[],
    authorOf: (person: TrackerPerson | null) => number | null,
  ): Promise<RowWrites> {
    const writes: RowWrites = { added: 0, updated: 0 };
    for (const pull of pulls) {
      const existing = await this.db.get<{ id: number }>(
        'SELECT id FROM pull_requests WHERE repo_id = ? AND number = ?',
        [repoId, pull.number],
      );
      const written = await this.db.get(
        `INSERT INTO pull_requests (id, repo_id, number, ${PULL_COLUMNS.join(', ')}) VALUES (?, ?, ?, ${inPlaceholders(PULL_COLUMNS.length)})
         ON CONFLICT (repo_id, number) DO UPDATE SET ${setFromExcluded('pull_requests', PULL_COLUMNS).replace(
           'merged_at = excluded.merged_at',
           'merged_at = COALESCE(excluded.merged_at, pull_requests.merged_at)',
         )}
         WHERE ${changedFromExcluded('pull_requests', PULL_COLUMNS).replace(
           'IS DISTINCT FROM excluded.merged_at',
           'IS DISTINCT FROM COALESCE(excluded.merged_at, pull_requests.merged_at)',
         )}
         RETURNING id`,
        [
          pull.id,
          repoId,
          pull.number,
          pull.title,
          pull.state,
          authorOf(pull.author),
          pull.url,
          pull.createdAt,
          pull.mergedAt,
        ],
      );
      let changed = Boolean(written);
      if (pull.idOf === 'pull_request' && existing && Number(existing.id) !== pull.id) {
        const renumbered = await this.db.run(
          `UPDATE pull_requests SET id = ? WHERE repo_id = ? AND number = ? AND id <> ?
           AND NOT EXISTS (SELECT 1 FROM pull_request_email_messages l WHERE l.pull_request_id = pull_requests.id)`,
          [pull.id, repoId, pull.number, pull.id],
        );
        changed ||= renumbered.changes > 0;
      }
      if (changed) writes[existing ? 'updated' : 'added']++;
    }
    return writes;
  }

  /** Records the repository's GitHub id, which an import learns from the API. */
  async setRepoGithubId(repoId: number, githubId: number): Promise<void> {
    await this.db.run('UPDATE repos SET github_id = ? WHERE id = ? AND (github_id IS NULL OR github_id <> ?)', [
      githubId,
      repoId,
      githubId,
    ]);
  }
}
