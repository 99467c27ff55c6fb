import { createHash } from 'node:crypto';
import { openStore } from '../../src/core/store/open-store.js';

/**
 * What drain and project derived from a store's mail, named by list, message
 * key, repo URL and tracker key rather than by row ids (which depend on the
 * order things were written), so two stores that reached the same inputs by
 * different paths compare row for row.
 */
export interface DerivedTables {
  /** Issues: repo, key or number, title, state, synthetic, comment count, dates, author. */
  issues: string[];
  /** Issue links: issue, message, role, author. */
  issueLinks: string[];
  /** Pull request links: pull request, message, role, author. */
  pullRequestLinks: string[];
  /** Per message: class, captures, signaled repo, outcome, body, series, thread root. */
  messages: string[];
  /** Patch series: list, key, title, author address. */
  patchSeries: string[];
}

const PERSON = (alias: string) => `COALESCE(${alias}.email, ${alias}.github_login, '')`;
const ISSUE = "r.url || ' ' || COALESCE(i.external_key, '') || ' #' || COALESCE(CAST(i.number AS TEXT), '')";

export async function dumpDerivedTables(url: string): Promise<DerivedTables> {
  const store = await openStore(url);
  try {
    const rows = async (sql: string) =>
      (await store.db.all<Record<string, unknown>>(sql)).map((row) => Object.values(row).map(cell).join(' | ')).sort();
    return {
      issues: await rows(
        `SELECT ${ISSUE}, i.title, i.state, i.is_synthetic, i.comment_count, i.created_at, i.updated_at, ${PERSON('c')}
         FROM issues i JOIN repos r ON r.id = i.repo_id LEFT JOIN contributors c ON c.id = i.author_id`,
      ),
      issueLinks: await rows(
        `SELECT ${ISSUE}, l2.name, m.message_key, l.role, ${PERSON('c')}
         FROM issue_email_messages l JOIN issues i ON i.id = l.issue_id JOIN repos r ON r.id = i.repo_id
         JOIN email_messages m ON m.id = l.email_message_id JOIN lists l2 ON l2.id = m.list_id LEFT JOIN contributors c ON c.id = l.author_id`,
      ),
      pullRequestLinks: await rows(
        `SELECT r.url, p.number, l2.name, m.message_key, l.role, ${PERSON('c')}
         FROM pull_request_email_messages l JOIN pull_requests p ON p.id = l.pull_request_id JOIN repos r ON r.id = p.repo_id
         JOIN email_messages m ON m.id = l.email_message_id JOIN lists l2 ON l2.id = m.list_id LEFT JOIN contributors c ON c.id = l.author_id`,
      ),
      messages: await rows(
        `SELECT l.name, m.message_key, m.msg_class, m.captures, m.signaled_repo_url, m.signaled_repo_id IS NOT NULL AS signaled_known, m.projected_kind,
           m.body_stored, b.content_hash, s.series_key, m.thread_root_key
         FROM email_messages m JOIN lists l ON l.id = m.list_id
         LEFT JOIN email_message_bodies eb ON eb.email_message_id = m.id LEFT JOIN message_bodies b ON b.id = eb.body_id
         LEFT JOIN patch_series s ON s.id = m.patch_series_id`,
      ),
      patchSeries: await rows(
        'SELECT l.name, s.series_key, s.title, s.author_address FROM patch_series s JOIN lists l ON l.id = s.list_id',
      ),
    };
  } finally {
    await store.close();
  }
}

/**
 * A digest of every row of the tables drain and project write (and
 * label_history, which only classify writes), ids and
 * timestamps included: equal before and after a run only when the run
 * wrote nothing.
 */
export async function digestWrittenTables(url: string): Promise<string> {
  const store = await openStore(url);
  try {
    const hash = createHash('sha256');
    const tables = [
      'staged_messages',
      'email_messages',
      'email_message_bodies',
      'message_bodies',
      'thread_links',
      'issues',
      'issue_email_messages',
      'pull_request_email_messages',
      'patch_series',
      'contributors',
      'label_history',
    ];
    for (const table of tables) {
      hash.update(`${table}\n`);
      const all = await store.db.all<Record<string, unknown>>(`SELECT * FROM ${table}`);
      for (const line of all
        .map((row) =>
          Object.entries(row)
            .map(([k, v]) => `${k}=${cell(v)}`)
            .join(','),
        )
        .sort())
        hash.update(`${line}\n`);
    }
    return hash.digest('hex');
  } finally {
    await store.close();
  }
}

/** One cell as text alike on both engines: booleans as 0/1, JSON with sorted keys, timestamps as ISO text. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return createHash('sha256').update(value).digest('hex');
  if (typeof value === 'object') return canonical(value);
  if (typeof value === 'string' && /^[{[]/.test(value)) {
    try {
      return canonical(JSON.parse(value));
    } catch {
      return value;
    }
  }
  return `${value as string | number | bigint}`;
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(',')}}`;
}
