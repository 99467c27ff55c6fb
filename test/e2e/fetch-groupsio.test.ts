import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { addListAt } from '../helpers/add-list-at.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { groupsioMessage, startGroupsioServer, type GroupsioServer } from '../helpers/groupsio-server.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

/**
 * listminer reading groups from a local look-alike of the groups.io API
 * (test/helpers/groupsio-server.ts): every message once, nothing on a
 * re-run, new mail found, a deleted message kept, rate limits waited out,
 * and a wrong API key failing the list in one sentence that never holds it.
 */

const TOKEN = 'gio-key-5f2c9e';
const NOW = monthOf(new Date());
const at = (monthsBack: number, day: number) =>
  new Date(`${addMonths(NOW, -monthsBack)}-${String(day).padStart(2, '0')}T10:00:00Z`);

describeOnDialectDatabases('fetch of groups.io groups through its API on $dialect', (databases) => {
  let dir: string;
  let db: TestDatabase;
  let server: GroupsioServer;
  let env: NodeJS.ProcessEnv;
  let tag: string;
  const fetch = (extra: NodeJS.ProcessEnv = {}, args: string[] = []) =>
    runCliJson<FetchJson>(['fetch', '--full', '--now', ...args, '--db', db.url], { env: { ...env, ...extra } });
  const staged = (group: string) =>
    queryAt<{ message_id: string }>(
      db.url,
      'SELECT s.message_id FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ? ORDER BY s.message_id',
      [group],
    ).then((rows) => rows.map((row) => row.message_id));
  const ids = (group: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${group}-${i}-${tag}@groups.example`).sort();

  beforeAll(async () => {
    db = await databases.create();
    tag = databases.dialect;
    dir = mkdtempSync(join(tmpdir(), 'listminer-groupsio-e2e-'));
    const messages = (group: string) =>
      Array.from({ length: 9 }, (_, i) =>
        groupsioMessage(`${group}-${i}-${tag}@groups.example`, at(3 - (i % 4), 2 + i), group),
      );
    server = await startGroupsioServer({
      token: TOKEN,
      groups: {
        beagle: { id: 11, messages: messages('beagle') },
        'beagle+dev': { id: 12, messages: messages('beagle+dev') },
      },
    });
    env = { LISTMINER_CACHE: join(dir, 'cache'), LISTMINER_GROUPSIO_TOKEN: TOKEN };
    for (const group of ['beagle', 'beagle+dev'])
      await addListAt(db.url, { system: 'groupsio', name: group, baseUrl: server.url });
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stores every message of each group once, under the month of its date, with the API key sent', async () => {
    const run = await fetch();
    expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
    expect(run.json.totals).toMatchObject({ staged: 18, failed: 0 });
    expect(await staged('beagle')).toEqual(ids('beagle', 9));
    expect(await staged('beagle+dev')).toEqual(ids('beagle+dev', 9));
    const months = await queryAt<{ archive_month: string }>(
      db.url,
      "SELECT DISTINCT s.archive_month FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = 'beagle' ORDER BY 1",
    );
    expect(months.map((row) => row.archive_month)).toEqual([3, 2, 1, 0].map((back) => addMonths(NOW, -back)));
    expect(new Set(server.authorizations)).toEqual(new Set([`Bearer ${TOKEN}`]));
    expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it('stores nothing on a re-run', async () => {
    const run = await fetch();
    expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
    expect(run.json.totals).toMatchObject({ staged: 0, failed: 0 });
  });

  it('hands classify real mail: every message is classified, none shunted', async () => {
    const run = await runCli(['classify', '--db', db.url], { env });
    expect(run.code, run.stderr).toBe(0);
    const statuses = await queryAt<{ status: string; n: number | string }>(
      db.url,
      'SELECT status, COUNT(*) AS n FROM staged_messages GROUP BY status',
    );
    expect(Object.fromEntries(statuses.map((row) => [row.status, Number(row.n)]))).toEqual({ classified: 18 });
  });

  it('finds new messages, one dated in a month read before, and keeps a message the group deleted', async () => {
    server.post('beagle', groupsioMessage(`late-${tag}@groups.example`, at(3, 27), 'beagle'));
    server.post('beagle', groupsioMessage(`new-${tag}@groups.example`, new Date(), 'beagle'));
    server.remove('beagle', `<beagle-0-${tag}@groups.example>`);
    const run = await fetch();
    expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
    expect(run.json.totals).toMatchObject({ staged: 2, failed: 0 });
    expect(await staged('beagle')).toEqual(
      [...ids('beagle', 9), `late-${tag}@groups.example`, `new-${tag}@groups.example`].sort(),
    );
  });

  it('waits out 429s with Retry-After and still stores each message once', async () => {
    server.post('beagle+dev', groupsioMessage(`paced-${tag}@groups.example`, at(1, 20), 'beagle+dev'));
    // Every second request of the one list fetched is refused: each is answered on its retry, after the Retry-After.
    server.rateLimitEvery(2);
    try {
      const run = await fetch({}, ['--list', 'beagle+dev']);
      expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
      expect(run.json.totals).toMatchObject({ staged: 1, failed: 0 });
    } finally {
      server.rateLimitEvery(0);
    }
    expect(server.rateLimited).toBeGreaterThan(0);
    expect(await staged('beagle+dev')).toEqual([...ids('beagle+dev', 9), `paced-${tag}@groups.example`].sort());
  });

  it('fails the list in one sentence on a wrong API key, and never prints the key', async () => {
    const wrong = 'gio-wrong-key-77aa';
    const run = await fetch({ LISTMINER_GROUPSIO_TOKEN: wrong });
    expect(run.code).toBe(4);
    expect(run.json.lists.map((list) => list.error?.kind)).toEqual(['permanent', 'permanent']);
    expect(run.json.lists[0]!.error!.message).toBe(
      "127.0.0.1 refused the API key (unauthorized): set a valid one in LISTMINER_GROUPSIO_TOKEN or the config file's mail_accounts.",
    );
    expect(run.stdout + run.stderr).not.toContain(wrong);
  });

  it('takes the API key from the config file, and discovers the groups the account is subscribed to', async () => {
    const config = join(dir, `listminer-${tag}.yaml`);
    writeFileSync(config, `mail_accounts:\n  - host: 127.0.0.1\n    password: ${TOKEN}\n`);
    const other = await databases.create();
    const configured = { ...env, LISTMINER_GROUPSIO_TOKEN: '' };
    const found = await runCliJson<{ found: number; added: number; lists: Array<{ name: string }> }>(
      ['lists', 'discover', '--system', 'groupsio', '--base-url', server.url, '--config', config, '--db', other.url],
      { env: configured },
    );
    expect(found.code, found.stderr).toBe(0);
    expect(found.json).toMatchObject({ found: 2, added: 2 });
    expect(found.json.lists.map((list) => list.name).sort()).toEqual(['beagle', 'beagle+dev']);
    const run = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--config', config, '--db', other.url], {
      env: configured,
    });
    expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
    expect(run.json.totals).toMatchObject({ staged: 20, failed: 0 });
  });

  it('fails a group the account is not in, one whose archive members may not download, and a fetch without a key, each in one sentence', async () => {
    server.groups.set('closed', {
      id: 13,
      messages: [groupsioMessage(`c1-${tag}@groups.example`, at(1, 3), 'closed')],
      downloadArchives: false,
    });
    try {
      const other = await databases.create();
      for (const group of ['closed', 'elsewhere']) {
        const add = await runCli(
          ['lists', 'add', group, '--system', 'groupsio', '--base-url', server.url, '--db', other.url],
          { env },
        );
        expect(add.code, add.stderr).toBe(0);
      }
      const run = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', other.url], { env });
      expect(run.code).toBe(4);
      const errors = Object.fromEntries(run.json.lists.map((list) => [list.list, list.error]));
      expect(errors.closed).toEqual(
        expect.objectContaining({
          kind: 'permanent',
          message:
            '127.0.0.1 does not let members download the archive of closed; its owner can allow it (download_archives).',
        }),
      );
      expect(errors.elsewhere).toEqual(
        expect.objectContaining({
          kind: 'permanent',
          message:
            "The account of the API key is not subscribed to elsewhere on 127.0.0.1, and groups.io gives a group's archive to its members only.",
        }),
      );
      const keyless = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--list', 'closed', '--db', other.url], {
        env: { ...env, LISTMINER_GROUPSIO_TOKEN: '' },
      });
      expect(keyless.json.lists[0]!.error!.message).toBe(
        'No groups.io API key for 127.0.0.1: set LISTMINER_GROUPSIO_TOKEN, or give the config file a mail_accounts entry for 127.0.0.1 with the key as its password.',
      );
    } finally {
      server.groups.delete('closed');
    }
  });

  it('refuses a name that is no groups.io group', async () => {
    const add = await runCli(['lists', 'add', 'no group', '--system', 'groupsio', '--db', db.url], { env });
    expect(add.code).toBe(2);
    expect(add.stderr).toContain('is not a groups.io group name');
  });
});
