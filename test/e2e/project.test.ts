import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { syntheticIssueId } from '../../src/core/project/issue-key.js';
import { openStore } from '../../src/core/store/open-store.js';
import type { Store } from '../../src/core/store/store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { createTestDatabase, postgresSkipReason, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { addListAt } from '../helpers/add-list-at.js';

const KAFKA = 'https://github.com/apache/kafka';
const FIXTURES = fileURLToPath(new URL('../fixtures/project/', import.meta.url));
const MAIL = readFileSync(join(FIXTURES, 'kafka-dev.mbox'));
const LATE = readFileSync(join(FIXTURES, 'kafka-dev-late.mbox'));
const KAFKA_9 = syntheticIssueId(KAFKA, 'KAFKA-9');

interface ProjectJson {
  lists: Array<{
    name: string;
    status: string;
    policy: string;
    examined: number;
    linked: number;
    created: number;
    inherited: number;
    mirror: number;
    none: number;
    issuesCreated: number;
  }>;
  examined: number;
  issuesCreated: number;
  backfill?: { filled: number; conflicts: Array<{ issueId: number; key: string; heldBy: number; kind: string }> };
}

async function withStore<T>(url: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(url);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** An mbox file of these messages, in this order. */
function writeMbox(path: string, messages: Buffer[]): void {
  writeFileSync(
    path,
    Buffer.concat(
      messages.map((m) =>
        Buffer.concat([Buffer.from('From project-test Mon Jan  1 00:00:00 2024\n'), m, Buffer.from('\n')]),
      ),
    ),
  );
}

/** The natives an import would have brought: issue 7 titled with its Jira key, issue 13, pull requests 12 and (optionally) 14. */
async function insertNatives(url: string, options: { pr14: boolean }): Promise<void> {
  await withStore(url, async (store) => {
    const repoId = (await store.repos.byUrl(KAFKA))!.id;
    const issue =
      'INSERT INTO issues (id, repo_id, number, title, state, is_synthetic, comment_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
    await store.db.run(issue, [
      7001,
      repoId,
      7,
      '[KAFKA-7] Consumer hangs on rebalance',
      'open',
      false,
      2,
      '2023-12-31T00:00:00.000Z',
    ]);
    await store.db.run(issue, [
      13001,
      repoId,
      13,
      'Broker crash on startup',
      'open',
      false,
      0,
      '2024-01-04T15:00:00.000Z',
    ]);
    await insertPullRequest(store, repoId, 12);
    if (options.pr14) await insertPullRequest(store, repoId, 14);
  });
}

async function insertPullRequest(store: Store, repoId: number, number: number): Promise<void> {
  await store.db.run('INSERT INTO pull_requests (id, repo_id, number, title, state) VALUES (?, ?, ?, ?, ?)', [
    number * 1000 + 1,
    repoId,
    number,
    `PR ${number}`,
    'open',
  ]);
}

/** What project wrote, named by message keys and people rather than row ids (which depend on the order mail was stored in). */
async function projection(
  url: string,
): Promise<Record<'issues' | 'issueLinks' | 'pullRequestLinks' | 'kinds', unknown[]>> {
  return withStore(url, async (store) => {
    const issues = await store.db.all<Record<string, unknown>>(
      'SELECT id, number, external_key, title, state, author_id, is_synthetic, comment_count, created_at, updated_at FROM issues ORDER BY id',
    );
    const person = 'COALESCE(c.email, c.github_login)';
    return {
      issues: issues.map((i) => ({
        ...i,
        id: Number(i.id),
        is_synthetic: Boolean(i.is_synthetic),
        comment_count: Number(i.comment_count),
      })),
      issueLinks: (
        await store.db.all<Record<string, unknown>>(
          `SELECT l.issue_id, m.message_key, l.role, ${person} AS author FROM issue_email_messages l
           JOIN email_messages m ON m.id = l.email_message_id LEFT JOIN contributors c ON c.id = l.author_id ORDER BY m.message_key`,
        )
      ).map((r) => ({ ...r, issue_id: Number(r.issue_id) })),
      pullRequestLinks: (
        await store.db.all<Record<string, unknown>>(
          `SELECT l.pull_request_id, m.message_key, l.role, ${person} AS author FROM pull_request_email_messages l
           JOIN email_messages m ON m.id = l.email_message_id LEFT JOIN contributors c ON c.id = l.author_id ORDER BY m.message_key`,
        )
      ).map((r) => ({ ...r, pull_request_id: Number(r.pull_request_id) })),
      kinds: await store.db.all('SELECT message_key, projected_kind FROM email_messages ORDER BY message_key'),
    };
  });
}

/** Every row of every table project writes, for "a second run changes nothing". */
async function allRows(url: string): Promise<Record<string, unknown[]>> {
  return withStore(url, async (store) => {
    const out: Record<string, unknown[]> = {};
    for (const [table, order] of Object.entries({
      issues: 'id',
      issue_email_messages: 'issue_id, email_message_id',
      pull_request_email_messages: 'pull_request_id, email_message_id',
      email_messages: 'id',
      contributors: 'id',
      patch_series: 'id',
      issue_key_shadows: 'synthetic_issue_id',
    })) {
      out[table] = await store.db.all(`SELECT * FROM ${table} ORDER BY ${order}`);
    }
    return out;
  });
}

/** Registers a local mbox list over this folder, tied to apache/kafka and classified with the Apache rules (`lists add` has suites of its own). */
async function addList(db: TestDatabase, folder: string): Promise<void> {
  await addListAt(db.url, { system: 'mbox', rules: 'apache_ponymail', name: folder, repoUrl: KAFKA });
}

describeOnDialectDatabases('project command on $dialect', (databases) => {
  let dir: string;
  const cli = (db: TestDatabase, args: string[]) => runCliJson<ProjectJson>([...args, '--db', db.url]);
  /** fetch, classify, drain through the CLI, each expected to succeed. */
  const pipeline = async (db: TestDatabase) => {
    for (const stage of [['fetch', '--full', '--now'], ['classify'], ['drain']]) {
      const run = await cli(db, stage);
      expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
    }
  };
  /** Makes the next fetch read the list's old months again, as if the archive had gained mail in them. */
  const forgetFetchedMonths = (db: TestDatabase) =>
    withStore(db.url, async (store) => {
      await store.db.run('DELETE FROM fetched_months');
      await store.db.run('UPDATE lists SET last_month = NULL, first_month = NULL, scan_complete = ?', [false]);
    });
  const fresh = () => databases.create();

  let forward: TestDatabase;
  let forwardFolder: string;
  let firstRun: ProjectJson;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-project-'));
    forward = await fresh();
    forwardFolder = join(dir, 'forward');
    mkdirSync(forwardFolder);
    copyFileSync(join(FIXTURES, 'kafka-dev.mbox'), join(forwardFolder, 'kafka-dev.mbox'));
    await addList(forward, forwardFolder);
    await pipeline(forward);
    await insertNatives(forward.url, { pr14: false });
    const run = await cli(forward, ['project']);
    expect(run.code, run.stderr).toBe(0);
    firstRun = run.json;
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('links tracker mail to the native issue titled with its key, synthesizes the other, and ties the rest of each thread to it', async () => {
    expect(firstRun.lists).toMatchObject([
      {
        policy: 'clean_fit',
        status: 'projected',
        examined: 16,
        linked: 1,
        created: 5,
        inherited: 4,
        mirror: 3,
        none: 3,
        issuesCreated: 1,
      },
    ]);
    const { issues, issueLinks, pullRequestLinks, kinds } = await projection(forward.url);
    expect(issues).toEqual([
      expect.objectContaining({
        id: KAFKA_9,
        number: null,
        external_key: 'KAFKA-9',
        title: 'Producer drops records',
        state: 'closed',
        author_id: null,
        is_synthetic: true,
        comment_count: 8,
      }),
      // Native issues keep what their import says: mail links to them, it does not rewrite them.
      expect.objectContaining({ id: 7001, external_key: null, state: 'open', comment_count: 2, is_synthetic: false }),
      expect.objectContaining({ id: 13001, state: 'open', comment_count: 0 }),
    ]);
    const k9 = issues.find((i) => (i as { id: number }).id === KAFKA_9) as Record<string, string>;
    expect([new Date(k9.created_at!).toISOString(), new Date(k9.updated_at!).toISOString()]).toEqual([
      '2024-01-02T09:00:00.000Z',
      '2024-01-08T09:00:00.000Z',
    ]);
    expect(kinds).toEqual([
      { message_key: 'JIRA.7.created@Atlassian.JIRA', projected_kind: 'linked' },
      { message_key: 'JIRA.9.closed@Atlassian.JIRA', projected_kind: 'created' },
      { message_key: 'JIRA.9.commented-1@Atlassian.JIRA', projected_kind: 'created' },
      { message_key: 'JIRA.9.created@Atlassian.JIRA', projected_kind: 'created' },
      { message_key: 'JIRA.9.reopened@Atlassian.JIRA', projected_kind: 'created' },
      { message_key: 'JIRA.9.resolved@Atlassian.JIRA', projected_kind: 'created' },
      { message_key: 'bob-1@example.org', projected_kind: 'inherited' },
      { message_key: 'bob-2@example.org', projected_kind: 'inherited' },
      { message_key: 'bob-3@example.org', projected_kind: 'none' },
      { message_key: 'carol-1@example.org', projected_kind: 'inherited' },
      { message_key: 'carol-2@example.org', projected_kind: 'inherited' },
      { message_key: 'erin-1@example.org', projected_kind: 'none' },
      { message_key: 'gh-comment-12-1@gitbox.apache.org', projected_kind: 'mirror' },
      { message_key: 'issue-13-opened@gitbox.apache.org', projected_kind: 'mirror' },
      { message_key: 'pr-12-opened@gitbox.apache.org', projected_kind: 'mirror' },
      { message_key: 'pr-14-opened@gitbox.apache.org', projected_kind: 'none' },
    ]);
    // Jira's own mail has no author; a person's reply is theirs; the GitHub actor named in GitBox mail is a contributor by login.
    expect(issueLinks).toEqual([
      { issue_id: 7001, message_key: 'JIRA.7.created@Atlassian.JIRA', role: 'event', author: null },
      { issue_id: KAFKA_9, message_key: 'JIRA.9.closed@Atlassian.JIRA', role: 'event', author: null },
      { issue_id: KAFKA_9, message_key: 'JIRA.9.commented-1@Atlassian.JIRA', role: 'event', author: null },
      { issue_id: KAFKA_9, message_key: 'JIRA.9.created@Atlassian.JIRA', role: 'event', author: null },
      { issue_id: KAFKA_9, message_key: 'JIRA.9.reopened@Atlassian.JIRA', role: 'event', author: null },
      { issue_id: KAFKA_9, message_key: 'JIRA.9.resolved@Atlassian.JIRA', role: 'event', author: null },
      { issue_id: 7001, message_key: 'bob-1@example.org', role: 'comment', author: 'bob@example.org' },
      { issue_id: KAFKA_9, message_key: 'bob-2@example.org', role: 'comment', author: 'bob@example.org' },
      { issue_id: KAFKA_9, message_key: 'carol-1@example.org', role: 'comment', author: 'carol@example.org' },
      { issue_id: KAFKA_9, message_key: 'carol-2@example.org', role: 'comment', author: 'carol@example.org' },
      { issue_id: 13001, message_key: 'issue-13-opened@gitbox.apache.org', role: 'mirror', author: 'bob' },
    ]);
    expect(pullRequestLinks).toEqual([
      { pull_request_id: 12001, message_key: 'gh-comment-12-1@gitbox.apache.org', role: 'mirror', author: 'carol' },
      { pull_request_id: 12001, message_key: 'pr-12-opened@gitbox.apache.org', role: 'mirror', author: 'jane' },
    ]);
  });

  it("ties a reply that arrives in a later run to its thread's issue, and links mirror mail once its pull request is imported", async () => {
    copyFileSync(join(FIXTURES, 'kafka-dev-late.mbox'), join(forwardFolder, 'kafka-dev-late.mbox'));
    await forgetFetchedMonths(forward);
    await pipeline(forward);
    await withStore(forward.url, async (store) => insertPullRequest(store, (await store.repos.byUrl(KAFKA))!.id, 14));
    const run = await cli(forward, ['project']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.lists).toMatchObject([{ inherited: 1, mirror: 1, none: 0, created: 0, issuesCreated: 0 }]);
    const { issues, kinds } = await projection(forward.url);
    expect(issues[0]).toMatchObject({ id: KAFKA_9, state: 'closed', comment_count: 9 });
    expect(new Date((issues[0] as { updated_at: string }).updated_at).toISOString()).toBe('2024-01-09T10:00:00.000Z');
    expect(kinds).toContainEqual({ message_key: 'dave-1@example.org', projected_kind: 'inherited' });
    expect(kinds).toContainEqual({ message_key: 'pr-14-opened@gitbox.apache.org', projected_kind: 'mirror' });
    expect(kinds.filter((k) => (k as { projected_kind: string | null }).projected_kind === null)).toEqual([]);
  });

  it('changes nothing when run again', async () => {
    const before = await allRows(forward.url);
    const again = await cli(forward, ['project']);
    expect(again.code, again.stderr).toBe(0);
    expect(await allRows(forward.url)).toEqual(before);
  });

  it('gives the same rows when the same mail is stored and projected newest first, in two runs', async () => {
    const reverse = await fresh();
    const folder = join(dir, 'reverse');
    mkdirSync(folder);
    const newestFirst = [...splitMboxBuffer(MAIL), ...splitMboxBuffer(LATE)].reverse();
    writeMbox(join(folder, 'a-newest.mbox'), newestFirst.slice(0, 8));
    await addList(reverse, folder);
    await pipeline(reverse);
    await insertNatives(reverse.url, { pr14: true });
    expect((await cli(reverse, ['project'])).code).toBe(0);
    writeMbox(join(folder, 'b-oldest.mbox'), newestFirst.slice(8));
    await forgetFetchedMonths(reverse);
    await pipeline(reverse);
    const second = await cli(reverse, ['project']);
    expect(second.code, second.stderr).toBe(0);
    expect(await projection(reverse.url)).toEqual(await projection(forward.url));
  }, 180_000);

  it("reports a synthetic issue whose key a native issue's title carries as a missed-LINK shadow", async () => {
    await withStore(forward.url, async (store) => {
      const repoId = (await store.repos.byUrl(KAFKA))!.id;
      await store.db.run(
        'INSERT INTO issues (id, repo_id, number, title, state, is_synthetic) VALUES (?, ?, ?, ?, ?, ?)',
        [9001, repoId, 99, '[KAFKA-9] Producer drops records', 'closed', false],
      );
    });
    const run = await cli(forward, ['project', '--backfill-keys']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.backfill).toEqual({
      filled: 1,
      conflicts: [{ issueId: 9001, repoId: expect.any(Number), key: 'KAFKA-9', heldBy: KAFKA_9, kind: 'shadow' }],
    });
    const rows = await withStore(forward.url, async (store) => ({
      keys: await store.db.all('SELECT id, external_key FROM issues WHERE id IN (7001, 9001) ORDER BY id'),
      shadows: await store.db.all('SELECT synthetic_issue_id, native_issue_id, external_key FROM issue_key_shadows'),
    }));
    expect(rows.keys.map((r) => ({ ...r, id: Number((r as { id: number }).id) }))).toEqual([
      { id: 7001, external_key: 'KAFKA-7' },
      { id: 9001, external_key: null },
    ]);
    expect(
      rows.shadows.map((r) => ({
        ...r,
        synthetic_issue_id: Number((r as { synthetic_issue_id: number }).synthetic_issue_id),
        native_issue_id: Number((r as { native_issue_id: number }).native_issue_id),
      })),
    ).toEqual([{ synthetic_issue_id: KAFKA_9, native_issue_id: 9001, external_key: 'KAFKA-9' }]);
    // Reported again, never failing; nothing new is filled.
    const again = await cli(forward, ['project', '--backfill-keys']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.backfill).toMatchObject({ filled: 0, conflicts: [{ issueId: 9001, kind: 'shadow' }] });
  });
});

describe.skipIf(Boolean(postgresSkipReason))('two project processes on one postgres database', () => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    dir = mkdtempSync(join(tmpdir(), 'listminer-project-two-'));
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('project every list once and make one synthetic issue of a key all six lists carry', async () => {
    // The same Jira notifications reach six lists (issues@, dev@, … of one project): one issue, six copies of its mail.
    const jira = splitMboxBuffer(MAIL).filter((m) => m.toString('latin1').includes('[jira]'));
    for (let i = 0; i < 6; i++) {
      const folder = join(dir, `list-${i}`);
      mkdirSync(folder);
      writeMbox(join(folder, 'jira.mbox'), jira);
      await addList(db, folder);
    }
    for (const stage of [['fetch', '--full', '--now'], ['classify'], ['drain']])
      expect((await runCli([...stage, '--db', db.url])).code).toBe(0);

    const [one, two] = await Promise.all([
      runCliJson<ProjectJson>(['project', '--db', db.url, '--workers', '2']),
      runCliJson<ProjectJson>(['project', '--db', db.url, '--workers', '2']),
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    const projected = [...one.json.lists, ...two.json.lists].filter((l) => l.examined > 0).map((l) => l.name);
    expect(projected.sort()).toEqual(Array.from({ length: 6 }, (_, i) => join(dir, `list-${i}`)).sort());
    expect(one.json.issuesCreated + two.json.issuesCreated).toBe(2); // KAFKA-7 and KAFKA-9: no native issue here
    const rows = await withStore(db.url, async (store) => ({
      issues: await store.db.all<{ external_key: string; comment_count: number; state: string }>(
        'SELECT external_key, comment_count, state FROM issues ORDER BY external_key',
      ),
      unprojected: await store.db.all('SELECT id FROM email_messages WHERE projected_kind IS NULL'),
    }));
    expect(rows.issues.map((r) => ({ ...r, comment_count: Number(r.comment_count) }))).toEqual([
      { external_key: 'KAFKA-7', comment_count: 6 * 2, state: 'open' },
      { external_key: 'KAFKA-9', comment_count: 6 * 7, state: 'closed' },
    ]);
    expect(rows.unprojected).toEqual([]);
  }, 180_000);
});
