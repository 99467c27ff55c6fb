import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import {
  badCredentials,
  badGateway,
  githubIssue,
  githubIssueOfPull,
  githubPull,
  primaryLimit,
  secondaryLimit,
  startGitHubApiServer,
  type GitHubApiServer,
} from '../helpers/github-api-server.js';

const TOKEN = 'ghp_e2e_secret_token_0123456789';

// acme/widget: issues 1–5 (issue 2 titled with a Jira key), pull requests 6–8; the issues listing holds the pull requests too.
const ISSUES = [
  githubIssue(1),
  githubIssue(2, { title: '[KAFKA-7] Fix it' }),
  githubIssueOfPull(6),
  githubIssue(3, { state: 'closed' }),
  githubIssueOfPull(7, { pull_request: { merged_at: null } }),
  githubIssue(4),
  githubIssue(5, { user: null }),
  githubIssueOfPull(8),
];
const PULLS = [githubPull(6), githubPull(7), githubPull(8)];

interface ImportJson {
  repo: { id: number; url: string };
  repoAdded: boolean;
  issues: { added: number; updated: number };
  pullRequests: { added: number; updated: number };
  contributorsAdded: number;
  pagesRead: number;
  stoppedForRateLimit: boolean;
  runAgainAfter: string | null;
}

async function tables(url: string): Promise<Record<string, unknown[]>> {
  const store = await openStore(url);
  try {
    return {
      repos: await store.db.all('SELECT id, url, owner, name FROM repos ORDER BY id'),
      issues: await store.db.all(
        'SELECT id, repo_id, number, external_key, title, state, author_id, is_synthetic, comment_count, url, created_at, updated_at FROM issues ORDER BY id',
      ),
      pullRequests: await store.db.all(
        'SELECT id, repo_id, number, title, state, author_id, url, created_at, merged_at FROM pull_requests ORDER BY id',
      ),
      contributors: await store.db.all(
        'SELECT id, name, email, github_login, source, created_at FROM contributors ORDER BY id',
      ),
    };
  } finally {
    await store.close();
  }
}

/** The tracker tables with each author as its login, so two databases compare whatever ids their people got. */
async function byLogin(url: string): Promise<{
  issues: Array<Record<string, unknown>>;
  pullRequests: Array<Record<string, unknown>>;
  logins: unknown[];
}> {
  const store = await openStore(url);
  try {
    return {
      issues: await store.db.all(
        'SELECT i.id, i.number, i.external_key, i.title, i.state, c.github_login AS author, i.comment_count, i.url, i.created_at, i.updated_at FROM issues i LEFT JOIN contributors c ON c.id = i.author_id ORDER BY i.id',
      ),
      pullRequests: await store.db.all(
        'SELECT p.id, p.number, p.title, p.state, c.github_login AS author, p.url, p.created_at, p.merged_at FROM pull_requests p LEFT JOIN contributors c ON c.id = p.author_id ORDER BY p.id',
      ),
      logins: (
        await store.db.all<{ github_login: string }>('SELECT github_login FROM contributors ORDER BY github_login')
      ).map((c) => c.github_login),
    };
  } finally {
    await store.close();
  }
}

describeOnDialectDatabases('repos import on $dialect', (databases) => {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-import-'));
  const issuesFile = join(dir, 'issues.json');
  const pullsFile = join(dir, 'pulls.jsonl');
  let server: GitHubApiServer;
  const database = () => databases.create();

  beforeAll(async () => {
    // As `gh api --paginate` writes the issues listing (arrays one after another), and the pulls as JSON lines.
    writeFileSync(
      issuesFile,
      `${JSON.stringify(ISSUES.slice(0, 3))}${JSON.stringify(ISSUES.slice(3, 6))}\n${JSON.stringify(ISSUES.slice(6), null, 2)}\n`,
    );
    writeFileSync(pullsFile, `${PULLS.map((p) => JSON.stringify(p)).join('\n')}\n`);
    server = await startGitHubApiServer({ owner: 'acme', name: 'widget', issues: ISSUES, pulls: PULLS, pageSize: 3 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports issues and pull requests from page files, and importing them again changes nothing', async () => {
    const db = await database();
    const first = await runCliJson<ImportJson>([
      'repos',
      'import',
      'https://github.com/acme/widget',
      '--issues',
      issuesFile,
      '--pulls',
      pullsFile,
      '--db',
      db.url,
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({
      repo: { url: 'https://github.com/acme/widget' },
      repoAdded: true,
      issues: { added: 5, updated: 0 },
      pullRequests: { added: 3, updated: 0 },
      contributorsAdded: 3,
      pagesRead: 4,
      stoppedForRateLimit: false,
      runAgainAfter: null,
    });
    const rows = await tables(db.url);
    const issues = rows.issues as Array<Record<string, unknown>>;
    expect(issues.map((i) => [Number(i.id), i.number, i.external_key, i.state])).toEqual([
      [3_000_001, 1, null, 'open'],
      [3_000_002, 2, 'KAFKA-7', 'open'],
      [3_000_003, 3, null, 'closed'],
      [3_000_004, 4, null, 'open'],
      [3_000_005, 5, null, 'open'],
    ]);
    expect(issues.find((i) => i.number === 5)!.author_id).toBeNull();
    expect(issues.find((i) => i.number === 2)).toMatchObject({
      title: '[KAFKA-7] Fix it',
      comment_count: 2,
      url: 'https://github.com/acme/widget/issues/2',
      created_at: '2024-01-03T10:00:00.000Z',
    });
    // Pull requests under their own ids (the pulls file is read first), merged_at from /pulls.
    expect(
      (rows.pullRequests as Array<Record<string, unknown>>).map((p) => [Number(p.id), p.number, p.state, p.merged_at]),
    ).toEqual([
      [7_000_006, 6, 'closed', '2024-03-01T00:00:00.000Z'],
      [7_000_007, 7, 'closed', null],
      [7_000_008, 8, 'closed', '2024-03-01T00:00:00.000Z'],
    ]);
    expect((rows.contributors as Array<Record<string, unknown>>).map((c) => [c.github_login, c.source])).toEqual([
      ['user0', 'github'],
      ['user1', 'github'],
      ['user2', 'github'],
    ]);

    const again = await runCliJson<ImportJson>([
      'repos',
      'import',
      'acme/widget',
      '--issues',
      issuesFile,
      '--pulls',
      pullsFile,
      '--db',
      db.url,
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toMatchObject({
      repoAdded: false,
      issues: { added: 0, updated: 0 },
      pullRequests: { added: 0, updated: 0 },
      contributorsAdded: 0,
      pagesRead: 4,
    });
    expect(await tables(db.url)).toEqual(rows);

    const human = await runCli(['repos', 'import', 'acme/widget', '--issues', issuesFile, '--db', db.url]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(
      'https://github.com/acme/widget: issues 0 added, 0 updated; pull requests 0 added, 0 updated; 0 contributor(s) added; 3 page(s) read.',
    );
  });

  it('imports the same rows from the API with GITHUB_TOKEN, through rate limits and a 502, and never prints the token', async () => {
    const fromFiles = await database();
    expect(
      (
        await runCli([
          'repos',
          'import',
          'acme/widget',
          '--issues',
          issuesFile,
          '--pulls',
          pullsFile,
          '--db',
          fromFiles.url,
        ])
      ).code,
    ).toBe(0);
    const db = await database();
    server.authorizations.length = 0;
    server.failFirst('/repos/acme/widget/issues?page=2', primaryLimit(1));
    server.failFirst('/repos/acme/widget/issues?page=3', secondaryLimit(1));
    server.failFirst('/repos/acme/widget/pulls?page=1', badGateway);
    const result = await runCliJson<ImportJson>(
      ['repos', 'import', 'acme/widget', '--github', '--api-url', server.url, '--db', db.url],
      { env: { GITHUB_TOKEN: TOKEN } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({
      issues: { added: 5, updated: 0 },
      pullRequests: { added: 3, updated: 0 },
      contributorsAdded: 3,
      pagesRead: 4,
      stoppedForRateLimit: false,
    });
    expect(server.authorizations.length).toBeGreaterThan(5);
    expect(server.authorizations.every((value) => value === `Bearer ${TOKEN}`)).toBe(true);
    expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
    const { contributors: apiPeople, ...apiRows } = await tables(db.url);
    const { contributors: filePeople, ...fileRows } = await tables(fromFiles.url);
    expect(apiRows).toEqual(fileRows);
    const people = (rows: unknown[]) =>
      (rows as Array<Record<string, unknown>>).map(({ created_at: _, ...person }) => person);
    expect(people(apiPeople!)).toEqual(people(filePeople!));
    const store = await openStore(db.url);
    try {
      expect(await store.db.get('SELECT github_id FROM repos')).toEqual({ github_id: 4242 });
    } finally {
      await store.close();
    }
  });

  it('two imports of one repository at once converge to the rows of one', async () => {
    const one = await database();
    expect(
      (await runCli(['repos', 'import', 'acme/widget', '--github', '--api-url', server.url, '--db', one.url])).code,
    ).toBe(0);
    const both = await database();
    const runs = await Promise.all(
      [0, 1].map(() =>
        runCliJson<ImportJson>([
          'repos',
          'import',
          'acme/widget',
          '--github',
          '--api-url',
          server.url,
          '--db',
          both.url,
        ]),
      ),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(runs[0]!.json.issues.added + runs[1]!.json.issues.added).toBe(5);
    // Which process wrote a person first decides the person's id: compare authors by login.
    expect(await byLogin(both.url)).toEqual(await byLogin(one.url));
    expect((await byLogin(both.url)).issues.map((i) => i.author)).toEqual(['user1', 'user2', 'user0', 'user1', null]);
  });

  it('stops for a rate limit spent for an hour, saying when to run again, and keeps what it read', async () => {
    const db = await database();
    server.failFirst('/repos/acme/widget/issues?page=2', primaryLimit(3600));
    const result = await runCliJson<ImportJson>([
      'repos',
      'import',
      'acme/widget',
      '--github',
      '--api-url',
      server.url,
      '--db',
      db.url,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({
      stoppedForRateLimit: true,
      pullRequests: { added: 3 },
      issues: { added: 2 },
      pagesRead: 2,
    });
    expect(Date.parse(result.json.runAgainAfter!)).toBeGreaterThan(Date.now() + 3000_000);

    server.failFirst('/repos/acme/widget/issues?page=2', primaryLimit(3600));
    const human = await runCli(['repos', 'import', 'acme/widget', '--github', '--api-url', server.url, '--db', db.url]);
    expect(human.code).toBe(0);
    expect(human.stderr).toMatch(/rate limit is spent; run again after \d{4}-\d\d-\d\dT/);
  });

  it('fails a 401 with exit code 1 and a sentence that names the repository and the token, not its value', async () => {
    const db = await database();
    server.failFirst('/repos/acme/widget?page=1', badCredentials);
    const result = await runCli(
      ['repos', 'import', 'acme/widget', '--github', '--api-url', server.url, '--db', db.url],
      { env: { GITHUB_TOKEN: TOKEN } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /Error: GitHub refused the credentials for acme\/widget \(401: Bad credentials\); the token in GITHUB_TOKEN was sent\./,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
    expect((await tables(db.url)).repos).toEqual([]);
  });

  it('refuses a broken page file and a REPO that is no GitHub repository with exit code 2', async () => {
    const db = await database();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '[{"id": 1, "number": 1}]\n[{"id": 2 "number": 2}]\n');
    const bad = await runCli(['repos', 'import', 'acme/widget', '--issues', broken, '--db', db.url]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`Error: ${broken} is not GitHub API JSON`);
    expect(bad.stderr).toMatch(/line 2, column 1\d/);

    const gitlab = await runCli([
      'repos',
      'import',
      'https://gitlab.com/acme/widget',
      '--issues',
      issuesFile,
      '--db',
      db.url,
    ]);
    expect(gitlab.code).toBe(2);
    expect(gitlab.stderr).toContain('is not a GitHub repository');

    const other = await runCli(['repos', 'import', 'acme/gadget', '--issues', issuesFile, '--db', db.url]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/is of acme\/widget, not of acme\/gadget/);
  });
});
