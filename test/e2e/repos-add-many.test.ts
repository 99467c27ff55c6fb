import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AddReposResult } from '../../src/core/registry/register-repo.js';
import type { StatsResult } from '../../src/core/stats/collect-stats.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { githubOrgRepo, startGitHubApiServer, type GitHubApiServer } from '../helpers/github-api-server.js';

const HOME = 'https://github.com/acme/home';
const WIDGET = 'https://github.com/acme/widget';
const GADGET = 'https://github.com/acme/gadget';
const TOOL = 'https://github.com/other/tool';

/** Mail naming repositories in its text: widget three times, gadget twice, tool once. */
function mbox(): string {
  const named = [WIDGET, WIDGET, GADGET, TOOL, WIDGET, GADGET];
  return named
    .map((repo, i) => {
      const day = String(i + 1).padStart(2, '0');
      return [
        `From person${i}@example.org Mon Jan ${day} 09:00:00 2024`,
        `From: Person ${i} <person${i}@example.org>`,
        'To: dev@acme.example.org',
        `Subject: about the code, part ${i}`,
        `Date: Mon, ${day} Jan 2024 09:00:00 +0000`,
        `Message-ID: <named-${i}@example.org>`,
        '',
        `Have a look at ${repo}/blob/main/README.md before Friday.`,
        '',
      ].join('\n');
    })
    .join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'listminer-repos-add-'));
const MBOX = join(dir, 'dev.mbox');
let server: GitHubApiServer;

beforeAll(async () => {
  writeFileSync(MBOX, mbox());
  // Two pages of two and one: the third repository is only found by following the Link header.
  server = await startGitHubApiServer({
    owner: 'acme',
    name: 'home',
    issues: [],
    pulls: [],
    pageSize: 2,
    orgs: {
      acme: [githubOrgRepo('acme', 'Widget', 1), githubOrgRepo('acme', 'gadget', 2), githubOrgRepo('acme', 'lathe', 3)],
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describeOnDialectDatabases(
  'stats names the unresolved signaled repositories and repos add registers many on $dialect',
  (databases) => {
    let db: TestDatabase;
    const cli = (args: string[]) => runCli([...args, '--db', db.url]);
    const cliJson = <T>(args: string[]) => runCliJson<T>([...args, '--db', db.url]);

    beforeAll(async () => {
      db = await databases.create();
      for (const stage of [
        ['lists', 'add', '--system', 'mbox', MBOX, '--repo', HOME],
        ['fetch', '--full'],
        ['classify'],
        ['drain'],
      ]) {
        const run = await cli(stage);
        expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
      }
    });

    it('stats lists the repository URLs mail names that are not registered, most mentioned first, each with its command', async () => {
      const { code, json, stderr } = await cliJson<StatsResult>(['stats']);
      expect(code, stderr).toBe(0);
      expect(json.signaledRepos).toMatchObject({ captured: 6, resolved: 0 });
      expect(json.unresolvedSignaledRepos).toEqual([
        { url: WIDGET, messages: 3, fix: `listminer repos add ${WIDGET}` },
        { url: GADGET, messages: 2, fix: `listminer repos add ${GADGET}` },
        { url: TOOL, messages: 1, fix: `listminer repos add ${TOOL}` },
      ]);
      const text = await cli(['stats', '--unresolved', '2']);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('3 repository URL(s) named in 6 message(s) are not registered');
      expect(text.stdout).toMatch(new RegExp(`${WIDGET}\\s+│\\s+3 │ listminer repos add ${WIDGET}`));
      expect(text.stdout).toContain(GADGET);
      expect(text.stdout).not.toContain(TOOL);
      expect(text.stdout).toContain('the 2 most mentioned of 3');
    });

    it('refuses a file with a line that is no repository URL, registering nothing', async () => {
      const file = join(dir, `bad-${db.dialect}.txt`);
      writeFileSync(file, `${WIDGET}\nnot a url\n`);
      const refused = await cli(['repos', 'add', '--from', file]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${file}:2`);
      const stats = await cliJson<StatsResult>(['stats']);
      expect(stats.json.unresolvedSignaledRepos).toHaveLength(3);
    });

    it('repos add --from registers every URL of the file, the signaled mail resolves, and a second run registers nothing', async () => {
      const file = join(dir, `repos-${db.dialect}.txt`);
      const stats = await cliJson<StatsResult>(['stats']);
      writeFileSync(
        file,
        `# from listminer stats\n${stats.json.unresolvedSignaledRepos.map((r) => `${r.url}   # ${r.messages} messages`).join('\n')}\n\n`,
      );
      const first = await cliJson<AddReposResult>(['repos', 'add', '--from', file]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.json).toMatchObject({ added: 3, unchanged: 0, signaledMessagesResolved: 6 });

      const after = await cliJson<StatsResult>(['stats']);
      expect(after.json.signaledRepos).toMatchObject({ captured: 6, resolved: 6, resolvedShare: 1 });
      expect(after.json.unresolvedSignaledRepos).toEqual([]);
      expect((await cli(['stats'])).stdout).not.toContain('are not registered');

      const again = await cliJson<AddReposResult>(['repos', 'add', '--from', file]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json).toMatchObject({ added: 0, unchanged: 3, listsAttached: 0, signaledMessagesResolved: 0 });
      const text = await cli(['repos', 'add', '--from', file]);
      expect(text.stderr).toContain('added 0 repo(s), 3 already registered');
    });

    it('repos add --org registers every repository of a GitHub organization, page after page, once', async () => {
      const before = await cliJson<{ repos: Array<{ url: string }> }>(['repos', 'ls']);
      const first = await cliJson<AddReposResult>([
        'repos',
        'add',
        '--org',
        'github.com/acme',
        '--api-url',
        server.url,
      ]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.json.repos.map((r) => [r.repo.url, r.action])).toEqual([
        [WIDGET, 'unchanged'],
        [GADGET, 'unchanged'],
        ['https://github.com/acme/lathe', 'added'],
      ]);
      const again = await cliJson<AddReposResult>(['repos', 'add', '--org', 'acme', '--api-url', server.url]);
      expect(again.json).toMatchObject({ added: 0, unchanged: 3 });
      const after = await cliJson<{ repos: Array<{ url: string }> }>(['repos', 'ls']);
      expect(after.json.repos.map((r) => r.url).sort()).toEqual(
        [...before.json.repos.map((r) => r.url), 'https://github.com/acme/lathe'].sort(),
      );
    });

    it('repos add --org names an organization GitHub does not know (exit 2)', async () => {
      const missing = await cli(['repos', 'add', '--org', 'nobody', '--api-url', server.url]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('GitHub knows no organization nobody');
    });
  },
);
