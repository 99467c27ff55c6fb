import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { monthOf } from '../../src/core/archive/month.js';
import { addListAt } from '../helpers/add-list-at.js';
import { send, startArchiveServer, type ArchiveServer } from '../helpers/archive-server.js';
import { runCli, runCliJson, type CliResult } from '../helpers/cli.js';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import type { FetchResult } from '../../src/core/fetch/fetch-lists.js';

const SAMPLE = new URL('../../examples/quarry-dev.mbox', import.meta.url).pathname;
/** Messages in the sample, one per From_ line (each with its own Message-ID). */
const SAMPLE_MESSAGES = readFileSync(SAMPLE, 'latin1')
  .split('\n')
  .filter((line) => line.startsWith('From ')).length;
const MANIFEST = JSON.parse(readFileSync(new URL('../../oclif.manifest.json', import.meta.url), 'utf8')) as {
  commands: Record<string, unknown>;
};
const THIS_MONTH = monthOf(new Date());
const [YEAR, MONTH] = THIS_MONTH.split('-').map(Number);

/** A Pony Mail whose catalogue and stats answer, and whose every month download is refused (403: no retries, and never a gap month). */
function startFailingPonyMail(): Promise<ArchiveServer> {
  return startArchiveServer((url, response) => {
    if (url.pathname === '/api/preferences.lua') {
      return send(response, 200, JSON.stringify({ lists: { 'quarry.apache.org': { dev: 294 } } }), {
        'content-type': 'application/json',
      });
    }
    if (url.pathname === '/api/stats.lua') {
      return send(
        response,
        200,
        JSON.stringify({ firstYear: YEAR, firstMonth: MONTH, lastYear: YEAR, lastMonth: MONTH, hits: 0, emails: [] }),
      );
    }
    return send(response, 403, 'forbidden');
  });
}

const expectSilent = (run: CliResult, what: string) => {
  expect({ what, code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
    what,
    code: 0,
    stdout: '',
    stderr: '',
  });
};

describeOnDialectDatabases('quiet runs and named failures on $dialect', (databases) => {
  let dir: string;
  let mbox: string;
  let db: TestDatabase;
  let server: ArchiveServer;
  let env: NodeJS.ProcessEnv;
  const cli = (args: string[]) => runCli([...args, '--db', db.url], { env });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-quiet-'));
    mbox = join(dir, 'quarry-dev.mbox');
    copyFileSync(SAMPLE, mbox);
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    db = await databases.create();
    server = await startFailingPonyMail();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stages every message of a local archive on the README's cron path, printing nothing", async () => {
    expectSilent(
      await cli([
        'lists',
        'add',
        '--system',
        'mbox',
        '--rules',
        'apache_ponymail',
        mbox,
        '--repo',
        'https://github.com/apache/quarry',
        '--quiet',
      ]),
      'lists add',
    );
    // The cron entry: the remote lists' 12-month window does not apply to a local archive, and nothing says it is due: it always is.
    for (const stage of ['fetch', 'classify', 'drain', 'project']) expectSilent(await cli([stage, '--quiet']), stage);
    const staged = await queryAt<{ n: number }>(
      db.url,
      'SELECT COUNT(*) AS n FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ?',
      [mbox],
    );
    expect(Number(staged[0]!.n)).toBe(SAMPLE_MESSAGES);
    const stored = await queryAt<{ n: number }>(db.url, 'SELECT COUNT(*) AS n FROM email_messages');
    expect(Number(stored[0]!.n)).toBe(SAMPLE_MESSAGES);
    // stats' last month is the last month with mail, not where the scan stands (the present).
    const stats = await runCliJson<{ lists: Array<{ lastMonth: string; lastMailMonth: string }> }>(
      ['stats', '--db', db.url],
      { env },
    );
    expect(stats.json.lists).toEqual([expect.objectContaining({ lastMonth: THIS_MONTH, lastMailMonth: '2024-06' })]);
    expect((await cli(['stats'])).stdout).toMatch(/last mail/);
  }, 300_000);

  it('reads nothing of a local archive that has not changed, and its new mail when it has', async () => {
    const again = await runCliJson<{
      lists: Array<{ list: string; status: string; monthsFetched: number; seen: number }>;
    }>(['fetch', '--db', db.url], { env });
    expect(again.json.lists).toEqual([
      expect.objectContaining({ list: mbox, status: 'done', monthsFetched: 0, seen: 0 }),
    ]);
    writeFileSync(
      mbox,
      `${readFileSync(mbox, 'latin1')}From late@example.org Sat Jun 01 10:00:00 2024\nFrom: late@example.org\nDate: Sat, 01 Jun 2024 10:00:00 +0000\nMessage-ID: <late@example.org>\nSubject: late\n\nlate mail\n`,
      'latin1',
    );
    const grown = await runCliJson<{ lists: Array<{ staged: number }> }>(['fetch', '--db', db.url], { env });
    expect(grown.json.lists.map((l) => l.staged)).toEqual([1]);
  }, 300_000);

  it('prints nothing under --quiet for every command when all goes well', async (context) => {
    // Whether a command prints is decided by the command base (src/cli/base-command.ts), which never sees the
    // engine; each command's own suite runs it on both engines (people show and ls: people.test.ts).
    context.skip(databases.dialect !== 'sqlite', 'what a command prints under --quiet is the same on either engine');
    const issues = join(dir, 'issues.json');
    writeFileSync(issues, '[]\n');
    for (const sub of ['cur', 'new', 'tmp']) mkdirSync(join(dir, 'Maildir', sub), { recursive: true });
    const mailmap = join(dir, '.mailmap');
    writeFileSync(mailmap, 'Ana Lima <ana@example.org> <dana@example.org>\n');
    // The merge the mailmap made, for unmerge: asked for when its turn comes.
    const lastMerge = async () => {
      const shown = await runCliJson<{ merges: Array<{ id: number; undoneAt: string | null }> }>(
        ['people', 'show', 'ana@example.org', '--db', db.url],
        { env },
      );
      return String(shown.json.merges.filter((m) => m.undoneAt === null).at(-1)!.id);
    };
    const runs: Record<string, string[] | (() => Promise<string[]>)> = {
      'lists:add': ['lists', 'add', '--system', 'maildir', join(dir, 'Maildir')],
      'lists:ls': ['lists', 'ls'],
      'lists:rm': ['lists', 'rm', join(dir, 'Maildir')],
      'lists:discover': ['lists', 'discover', '--system', 'apache_ponymail', '--base-url', server.url],
      'repos:add': ['repos', 'add', 'https://github.com/apache/quarry'],
      'repos:ls': ['repos', 'ls'],
      'repos:import': ['repos', 'import', 'apache/quarry', '--issues', issues],
      fetch: ['fetch', '--list', mbox, '--now'],
      classify: ['classify'],
      drain: ['drain'],
      project: ['project'],
      sync: ['sync', '--list', mbox, '--now'],
      verify: ['verify', '--list', mbox],
      stats: ['stats', '--list', mbox],
      export: ['export', '--format', 'csv', '--out', join(dir, 'export')],
      render: ['render', '--out', join(dir, 'site')],
      'people:resolve': ['people', 'resolve'],
      'people:ls': ['people', 'ls'],
      'people:show': ['people', 'show', 'ana@example.org'],
      'people:merge': ['people', 'merge', 'ana@example.org', 'ben.okafor@example.com'],
      'people:split': ['people', 'split', 'ana@example.org', 'ben.okafor@example.com'],
      'people:import-mailmap': ['people', 'import-mailmap', mailmap],
      'people:unmerge': async () => ['people', 'unmerge', await lastMerge()],
    };
    expect(Object.keys(runs).sort()).toEqual(Object.keys(MANIFEST.commands).sort());
    for (const [command, args] of Object.entries(runs))
      expectSilent(await cli([...(typeof args === 'function' ? await args() : args), '--quiet']), command);
  }, 300_000);

  it('prints one line per failure under --quiet: the list, the month, the URL and the reason; then names the list that waits', async () => {
    const remote = await databases.create();
    const at = (args: string[]) => runCli([...args, '--db', remote.url], { env });
    await addListAt(remote.url, { system: 'apache_ponymail', name: 'dev@quarry.apache.org', baseUrl: server.url });

    const failed = await at(['fetch', '--quiet']);
    expect(failed.code).toBe(4);
    expect(failed.stdout).toBe('');
    const lines = failed.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^apache_ponymail dev@quarry\\.apache\\.org ${THIS_MONTH}: .*403 for http://127\\.0\\.0\\.1:\\d+/api/mbox\\.lua\\?\\S+ \\(next try after \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );

    // At once again: the list waits, and the run says so (it is no failure of this run: exit 0, and --quiet stays quiet).
    const skipped = await at(['fetch']);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toMatch(
      /apache_ponymail dev@quarry\.apache\.org: waiting until \S+ after 1 failed run \(\d{4}-\d\d: .*403.*\); --now fetches it anyway/,
    );
    expect(skipped.stderr).not.toContain('No list was due');
    expectSilent(await at(['sync', '--quiet']), 'sync while the list waits');

    const stats = await at(['stats']);
    expect(stats.stdout).toMatch(
      /apache_ponymail dev@quarry\.apache\.org: waiting until \S+ after 1 failed run \(.*403.*\)/,
    );

    const synced = await at(['sync', '--now', '--quiet']);
    expect(synced.code).toBe(4);
    expect(synced.stdout).toBe('');
    expect(synced.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^apache_ponymail dev@quarry\.apache\.org \d{4}-\d\d: .*403 for http:.*next try after/),
    ]);

    const summary = await at(['sync', '--now']);
    expect(summary.code).toBe(4);
    expect(summary.stderr).toMatch(/^apache_ponymail dev@quarry\.apache\.org \d{4}-\d\d: .*403/m);
    expect(summary.stderr).not.toContain('See the table');
    // The fetch stage's own row (plain lines off a terminal) ends failed, not done.
    expect(summary.stderr).toMatch(/ sync: fetch {2}1 of 1 lists failed \(failed\)$/m);
  }, 300_000);

  it('names the host and says to check it when its name does not resolve, the hint under the failure in fetch, sync and --json', async (context) => {
    // How a failed list is recorded and named is checked on both engines above.
    context.skip(databases.dialect !== 'sqlite', 'the sentence and its hint come from the network, not the engine');
    const remote = await databases.create();
    const at = (args: string[]) => runCli([...args, '--db', remote.url], { env });
    await addListAt(remote.url, {
      system: 'apache_ponymail',
      name: 'dev@quarry.apache.org',
      baseUrl: 'http://no-such-host.invalid',
    });
    const hint =
      "Hint: Check the host name no-such-host.invalid (the list's or system's base URL) and this machine's network and DNS.";
    const failed = await at(['fetch', '--quiet']);
    expect(failed.code).toBe(4);
    expect(failed.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^apache_ponymail dev@quarry\.apache\.org: .*no-such-host\.invalid could not be resolved \((ENOTFOUND|EAI_AGAIN)\)/,
      ),
      hint,
    ]);
    const json = await runCliJson<FetchResult>(['fetch', '--now', '--db', remote.url], { env });
    expect(json.code).toBe(4);
    expect(json.json.lists).toEqual([
      expect.objectContaining({
        status: 'failed',
        error: expect.objectContaining({ hint: hint.replace('Hint: ', '') }),
      }),
    ]);
    const synced = await at(['sync', '--now']);
    expect(synced.code).toBe(4);
    // The failure line, then its hint, after the progress lines.
    const lines = synced.stderr.trimEnd().split('\n');
    const failure = lines.findIndex((line) => line.startsWith('apache_ponymail dev@quarry.apache.org: '));
    expect(lines[failure]).toMatch(/could not be resolved/);
    expect(lines[failure + 1]).toBe(hint);
    const discover = await at([
      'lists',
      'discover',
      '--system',
      'apache_ponymail',
      '--base-url',
      'http://no-such-host.invalid',
    ]);
    expect(discover.code).toBe(1);
    expect(discover.stderr).toContain('Hint: Check the host name no-such-host.invalid');
    expect(discover.stderr).not.toContain('Try again later');
  }, 300_000);
});
