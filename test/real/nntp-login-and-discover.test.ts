import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../helpers/cli.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { nntpSkipReason, startNewsServer, type NewsServer } from '../helpers/nntp-server.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

/**
 * A news server that wants a password, signed in to with the login of the
 * config file's mail_accounts, and its groups registered by `lists discover`.
 */

describeOnDialectDatabases(
  "a news server that wants a login, read and discovered with the config file's login on $dialect",
  (databases) => {
    let server: NewsServer;
    let dir: string;
    const env = () => ({ LISTMINER_CACHE: join(dir, 'cache'), LISTMINER_NNTP_USER: '', LISTMINER_NNTP_PASSWORD: '' });
    const configWith = (account: string) => {
      const config = join(dir, 'listminer.yaml');
      writeFileSync(config, `mail_accounts:\n  - host: 127.0.0.1\n${account}`);
      return config;
    };
    const fetchWith = async (account: string) => {
      const config = configWith(account);
      const db = await databases.create();
      const add = await runCli(
        ['lists', 'add', '--system', 'nntp', 'local.members', '--base-url', server.url, '--db', db.url],
        { env: env() },
      );
      expect(add.code, add.stderr).toBe(0);
      return runCliJson<FetchJson>(['fetch', '--full', '--now', '--config', config, '--db', db.url], { env: env() });
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'listminer-nntp-login-'));
      server = await startNewsServer({ users: { jane: 'correct-horse' } });
      await server.newGroup('local.members');
      await server.post('local.members', [
        { messageId: 'm1-login@example.org', date: '2024-03-04T10:00:00Z', subject: 'for members' },
        {
          messageId: 'm2-login@example.org',
          date: '2024-04-04T10:00:00Z',
          subject: 'Re: for members',
          references: 'm1-login@example.org',
        },
      ]);
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("reads the group with the user and password of the host's mail_accounts entry", async () => {
      const run = await fetchWith('    user: jane\n    password: correct-horse\n');
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 2 });
    });

    it('fails as permanent on a wrong password there, and never prints it', async () => {
      const run = await fetchWith('    user: jane\n    password: wrong-battery\n');
      expect(run.code).not.toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'failed', error: { kind: 'permanent' } });
      expect(`${run.stdout}${run.stderr}`).not.toContain('wrong-battery');
    });

    it("registers the server's groups of a hierarchy with lists discover, which fetch then reads", async () => {
      const config = configWith('    user: jane\n    password: correct-horse\n');
      const db = await databases.create();
      const found = await runCliJson<{ found: number; added: number; lists: Array<{ name: string }> }>(
        [
          'lists',
          'discover',
          '--system',
          'nntp',
          '--base-url',
          server.url,
          '--domain',
          'local',
          '--config',
          config,
          '--db',
          db.url,
        ],
        { env: env() },
      );
      expect(found.code, found.stderr).toBe(0);
      expect(found.json.lists.map((list) => list.name)).toEqual(['local.members']);
      const again = await runCliJson<{ added: number; unchanged: number }>(
        [
          'lists',
          'discover',
          '--system',
          'nntp',
          '--base-url',
          server.url,
          '--domain',
          'local',
          '--config',
          config,
          '--db',
          db.url,
        ],
        { env: env() },
      );
      expect(again.json).toMatchObject({ added: 0, unchanged: 1 });
      const run = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--config', config, '--db', db.url], {
        env: env(),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 2 });
    });
  },
  { skip: nntpSkipReason, only: ['sqlite'], onlyWhy: 'signing in is the server connection, the same on both engines' },
);
