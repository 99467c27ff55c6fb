import { beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import type { TrackerIssue, TrackerPullRequest } from '../../src/core/store/tracker-records.js';
import type { TestStore } from '../helpers/databases.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

const KAFKA = { url: 'https://github.com/apache/kafka', host: 'github.com', owner: 'apache', name: 'kafka' };

const issue = (id: number, number: number, extra: Partial<TrackerIssue> = {}): TrackerIssue => ({
  id,
  number,
  title: `issue ${number}`,
  state: 'open',
  author: { login: 'jane', email: null },
  url: `https://github.com/apache/kafka/issues/${number}`,
  createdAt: '2024-01-01T00:00:00.000Z',
  updatedAt: '2024-01-02T00:00:00.000Z',
  externalKey: null,
  commentCount: 0,
  ...extra,
});

const pull = (id: number, number: number, extra: Partial<TrackerPullRequest> = {}): TrackerPullRequest => ({
  id,
  idOf: 'pull_request',
  number,
  title: `pull ${number}`,
  state: 'open',
  author: { login: 'joe', email: null },
  url: `https://github.com/apache/kafka/pull/${number}`,
  createdAt: '2024-01-01T00:00:00.000Z',
  mergedAt: null,
  ...extra,
});

describeOnDialects('tracker records contract on $dialect', (getStore, dialect) => {
  let store: TestStore;
  let repoId: number;
  beforeEach(async () => {
    store = getStore();
    repoId = (await store.repos.ensure(KAFKA)).repo.id;
  });

  const snapshot = async () => ({
    issues: await store.db.all(
      'SELECT id, repo_id, number, external_key, title, state, author_id, is_synthetic, comment_count, url, created_at, updated_at FROM issues ORDER BY id',
    ),
    pulls: await store.db.all(
      'SELECT id, repo_id, number, title, state, author_id, url, created_at, merged_at FROM pull_requests ORDER BY id',
    ),
    people: await store.db.all('SELECT id, name, email, github_login, source FROM contributors ORDER BY id'),
  });

  it('saves a page of issues and pull requests, and saving it again changes nothing', async () => {
    const page = {
      issues: [issue(101, 1, { externalKey: 'KAFKA-7', commentCount: 4 }), issue(102, 2)],
      pullRequests: [pull(9001, 3, { mergedAt: '2024-01-03T00:00:00.000Z' })],
    };
    expect(await store.tracker.savePage(repoId, page)).toEqual({
      issues: { added: 2, updated: 0 },
      pullRequests: { added: 1, updated: 0 },
      contributorsAdded: 2,
    });
    const first = await snapshot();
    expect(first.issues).toHaveLength(2);
    expect(first.issues[0]).toMatchObject({
      id: 101,
      number: 1,
      external_key: 'KAFKA-7',
      comment_count: 4,
      url: 'https://github.com/apache/kafka/issues/1',
    });
    expect(Boolean(first.issues[0]!.is_synthetic)).toBe(false);
    expect(first.pulls[0]).toMatchObject({ id: 9001, number: 3, merged_at: '2024-01-03T00:00:00.000Z' });
    expect(first.people.map((p) => [p.github_login, p.source, p.email])).toEqual([
      ['jane', 'github', null],
      ['joe', 'github', null],
    ]);

    expect(await store.tracker.savePage(repoId, page)).toEqual({
      issues: { added: 0, updated: 0 },
      pullRequests: { added: 0, updated: 0 },
      contributorsAdded: 0,
    });
    expect(await snapshot()).toEqual(first);
  });

  it('counts an issue whose state or comments changed as updated, and only that one', async () => {
    await store.tracker.savePage(repoId, { issues: [issue(101, 1), issue(102, 2)], pullRequests: [] });
    const result = await store.tracker.savePage(repoId, {
      issues: [issue(101, 1, { state: 'closed', commentCount: 2 }), issue(102, 2)],
      pullRequests: [],
    });
    expect(result.issues).toEqual({ added: 0, updated: 1 });
    expect(await store.db.get('SELECT state, comment_count FROM issues WHERE id = 101')).toEqual({
      state: 'closed',
      comment_count: 2,
    });
  });

  it('leaves the key NULL when another issue of the repo holds it, and never fails on it', async () => {
    await store.db.run(
      "INSERT INTO issues (id, repo_id, external_key, title, is_synthetic) VALUES (-5, ?, 'KAFKA-7', 'from mail', ?)",
      [repoId, true],
    );
    const result = await store.tracker.savePage(repoId, {
      issues: [
        issue(101, 1, { externalKey: 'KAFKA-7' }),
        issue(102, 2, { externalKey: 'KAFKA-8' }),
        issue(103, 3, { externalKey: 'KAFKA-8' }),
      ],
      pullRequests: [],
    });
    expect(result.issues.added).toBe(3);
    const keys = await store.db.all<{ id: number; external_key: string | null }>(
      'SELECT id, external_key FROM issues ORDER BY id',
    );
    expect(keys.map((k) => [Number(k.id), k.external_key])).toEqual([
      [-5, 'KAFKA-7'],
      [101, null],
      [102, 'KAFKA-8'],
      [103, null],
    ]);
    await store.tracker.savePage(repoId, {
      issues: [issue(103, 3, { externalKey: 'KAFKA-8' }), issue(102, 2, { externalKey: 'KAFKA-8' })],
      pullRequests: [],
    });
    expect(await store.db.get('SELECT external_key FROM issues WHERE id = 102')).toEqual({ external_key: 'KAFKA-8' });
  });

  it('keeps one row per pull request whichever listing names it first, under the pull request id once /pulls has named it', async () => {
    const fromIssues = pull(101, 3, { idOf: 'issue', title: 'old title', mergedAt: null });
    expect((await store.tracker.savePage(repoId, { issues: [], pullRequests: [fromIssues] })).pullRequests).toEqual({
      added: 1,
      updated: 0,
    });
    const fromPulls = pull(9001, 3, { state: 'closed', mergedAt: '2024-02-01T00:00:00.000Z' });
    expect((await store.tracker.savePage(repoId, { issues: [], pullRequests: [fromPulls] })).pullRequests).toEqual({
      added: 0,
      updated: 1,
    });
    // The issues listing again, without merged_at: what /pulls said stays.
    expect(
      (
        await store.tracker.savePage(repoId, {
          issues: [],
          pullRequests: [{ ...fromIssues, title: 'pull 3', state: 'closed' }],
        })
      ).pullRequests,
    ).toEqual({ added: 0, updated: 0 });
    const rows = await store.db.all('SELECT id, number, title, state, merged_at FROM pull_requests');
    expect(rows).toEqual([
      { id: 9001, number: 3, title: 'pull 3', state: 'closed', merged_at: '2024-02-01T00:00:00.000Z' },
    ]);
  });

  it('gives a contributor known by e-mail the login the API ties to it, and finds a login seen again', async () => {
    const known = (await store.contributors.ensureByEmail([{ email: 'jane@example.org', name: 'Jane' }])).get(
      'jane@example.org',
    )!;
    const first = await store.tracker.savePage(repoId, {
      issues: [issue(101, 1, { author: { login: 'Jane', email: 'jane@example.org' } })],
      pullRequests: [],
    });
    expect(first.contributorsAdded).toBe(0);
    const second = await store.tracker.savePage(repoId, {
      issues: [issue(102, 2, { author: { login: 'Jane', email: null } }), issue(103, 3, { author: null })],
      pullRequests: [],
    });
    expect(second.contributorsAdded).toBe(0);
    const authors = await store.db.all<{ author_id: number | null }>('SELECT author_id FROM issues ORDER BY id');
    expect(authors.map((a) => a.author_id)).toEqual([known, known, null]);
    expect(await store.db.all('SELECT name, email, github_login FROM contributors')).toEqual([
      { name: 'Jane', email: 'jane@example.org', github_login: 'Jane' },
    ]);
  });

  it('makes a login contributor without the address when that address belongs to someone with another login', async () => {
    await store.tracker.savePage(repoId, {
      issues: [issue(101, 1, { author: { login: 'old', email: 'x@example.org' } })],
      pullRequests: [],
    });
    const result = await store.tracker.savePage(repoId, {
      issues: [issue(102, 2, { author: { login: 'new', email: 'x@example.org' } })],
      pullRequests: [],
    });
    expect(result.contributorsAdded).toBe(1);
    expect(await store.db.all('SELECT email, github_login FROM contributors ORDER BY id')).toEqual([
      { email: 'x@example.org', github_login: 'old' },
      { email: null, github_login: 'new' },
    ]);
  });

  it('records the GitHub id of the repo', async () => {
    await store.tracker.setRepoGithubId(repoId, 2_211_243);
    expect(await store.db.get('SELECT github_id FROM repos WHERE id = ?', [repoId])).toEqual({ github_id: 2_211_243 });
  });

  // Two connections of one process cannot share SQLite (better-sqlite3 waits for a lock synchronously,
  // so the holder never gets to commit); test/e2e/repos-import.test.ts runs two processes on both engines.
  it.skipIf(dialect === 'sqlite')(
    'two stores saving the same pages at once converge to the rows one would write',
    async () => {
      const pages = Array.from({ length: 4 }, (_, p) => ({
        issues: Array.from({ length: 25 }, (_, i) =>
          issue(1000 + p * 25 + i, p * 25 + i + 1, {
            author: { login: `user${i % 7}`, email: null },
            externalKey: i % 5 === 0 ? `KAFKA-${i}` : null,
          }),
        ),
        pullRequests: Array.from({ length: 5 }, (_, i) =>
          pull(5000 + p * 5 + i, 200 + p * 5 + i, { author: { login: `user${i}`, email: null } }),
        ),
      }));
      const other = await openStore(store.url);
      try {
        await Promise.all([
          (async () => {
            for (const page of pages) await store.tracker.savePage(repoId, page);
          })(),
          (async () => {
            for (const page of pages) await other.tracker.savePage(repoId, page);
          })(),
        ]);
      } finally {
        await other.close();
      }
      const rows = await snapshot();
      expect(rows.issues).toHaveLength(100);
      expect(rows.pulls).toHaveLength(20);
      expect(rows.people).toHaveLength(7);
      expect(rows.issues.filter((i) => i.external_key !== null)).toHaveLength(5);
    },
  );
});
