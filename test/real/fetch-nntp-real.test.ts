import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { decodeRaw } from '../../src/core/store/raw-codec.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { nntpSkipReason, startNewsServer, type NewsArticle, type NewsServer } from '../helpers/nntp-server.js';
import { whileSilent } from '../helpers/real-software.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

/**
 * listminer against a real news server (Debian's INN) on 127.0.0.1: every
 * article once, nothing new on a re-read, new and back-dated articles
 * found, expired articles kept, and a group whose numbering started over
 * not stored twice. One server per file; each suite reads a group of its own.
 */

const NOW = monthOf(new Date());
const back = (months: number, day: number) => `${addMonths(NOW, -months)}-${String(day).padStart(2, '0')}T10:00:00Z`;

function firstArticles(tag: string): NewsArticle[] {
  return [
    { messageId: `root-${tag}@example.org`, date: back(3, 4), subject: 'a question' },
    {
      messageId: `r1-${tag}@example.org`,
      date: back(3, 5),
      subject: 'Re: a question',
      references: `root-${tag}@example.org`,
      body: '.A line that starts with a dot\n..and two\n.\nend\n',
    },
    { messageId: `patch-${tag}@example.org`, date: back(2, 1), subject: '[PATCH 1/2] widget: fix the frobnicator' },
    {
      messageId: `r2-${tag}@example.org`,
      date: back(2, 2),
      subject: 'Re: [PATCH 1/2] widget: fix the frobnicator',
      references: `patch-${tag}@example.org`,
    },
    { messageId: `alone-${tag}@example.org`, date: back(1, 20), subject: 'a thread of its own' },
  ];
}

const skip = nntpSkipReason;
if (skip) console.warn(`skipping the real-news-server suites: ${skip}`);

let server: NewsServer;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'listminer-nntp-e2e-'));
  env = { LISTMINER_CACHE: join(dir, 'cache') };
  server = await startNewsServer();
}, 120_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describeOnDialectDatabases(
  'fetch a newsgroup from a real news server on $dialect',
  (databases) => {
    let db: TestDatabase;
    let group: string;
    let tag: string;
    const all: NewsArticle[] = [];
    const cli = (args: string[]) => runCliJson<FetchJson>([...args, '--db', db.url], { env });
    const stored = async () =>
      (await queryAt<{ message_id: string }>(db.url, 'SELECT message_id FROM staged_messages ORDER BY message_id')).map(
        (row) => row.message_id,
      );
    const ids = (articles: readonly NewsArticle[]) => articles.map((article) => article.messageId).sort();

    beforeAll(async () => {
      db = await databases.create();
      tag = databases.dialect === 'postgres' ? 'pg' : 'lite';
      group = `local.listminer.${tag}`;
      await server.newGroup(group);
      all.push(...firstArticles(tag));
      await server.post(group, all);
      const add = await runCli(['lists', 'add', '--system', 'nntp', group, '--base-url', server.url, '--db', db.url], {
        env,
      });
      expect(add.code, add.stderr).toBe(0);
    }, 60_000);

    it('stores every article once, its dot-stuffed lines as written', async () => {
      const run = await cli(['fetch', '--full', '--now']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 5 });
      expect(await stored()).toEqual(ids(all));
      const [row] = await queryAt<{ raw: Uint8Array; raw_codec: string | null; archive_month: string }>(
        db.url,
        `SELECT raw, raw_codec, archive_month FROM staged_messages JOIN staged_message_raws ON staged_message_id = id WHERE message_id = 'r1-${tag}@example.org'`,
      );
      expect(decodeRaw(row!.raw, row!.raw_codec).toString('latin1')).toContain(
        '\n\n.A line that starts with a dot\n..and two\n.\nend\n',
      );
      expect(row!.archive_month).toBe(addMonths(NOW, -3));
    });

    it('stores nothing new when the group is read again', async () => {
      const run = await cli(['fetch', '--now']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 0 });
      expect(await stored()).toHaveLength(5);
    });

    it('finds new articles, one of them dated in a month read before', async () => {
      const fresh: NewsArticle[] = [
        { messageId: `new-${tag}@example.org`, date: new Date().toISOString(), subject: 'news of today' },
        {
          messageId: `late-${tag}@example.org`,
          date: back(3, 20),
          subject: 'Re: a question',
          references: `root-${tag}@example.org`,
        },
      ];
      await server.post(group, fresh);
      all.push(...fresh);
      const run = await cli(['fetch', '--now']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 2 });
      expect(await stored()).toEqual(ids(all));
    });

    it('keeps articles the server expired, and reads the rest without storing them twice', async () => {
      await server.expire(group, [`root-${tag}@example.org`, `r1-${tag}@example.org`]);
      const run = await cli(['fetch', '--full', '--now']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 0 });
      expect(await stored()).toEqual(ids(all));
    });

    it('stores nothing twice when the group is recreated and numbered from 1 again', async () => {
      await server.recreateGroup(group);
      const renumbered = all.filter((article) => !article.messageId.startsWith('root-'));
      const after = {
        messageId: `after-${tag}@example.org`,
        date: new Date().toISOString(),
        subject: 'after the move',
      };
      // The same articles under new numbers, the newest one now at a number the old group had used.
      await server.post(group, [...renumbered, after]);
      all.push(after);
      const run = await cli(['fetch', '--now']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 1 });
      expect(await stored()).toEqual(ids(all));
      const full = await cli(['fetch', '--full', '--now']);
      expect(full.json.lists[0]).toMatchObject({ status: 'done', staged: 0 });
      expect(await stored()).toEqual(ids(all));
    });

    it('classifies the mail with the rules of the generic system', async () => {
      const run = await runCli(['classify', '--db', db.url], { env });
      expect(run.code, run.stderr).toBe(0);
      const rows = await queryAt<{ message_id: string; msg_class: string }>(
        db.url,
        'SELECT message_id, msg_class FROM staged_messages',
      );
      const classOf = new Map(rows.map((row) => [row.message_id, row.msg_class]));
      expect(classOf.get(`patch-${tag}@example.org`)).toBe('patch_submission');
      expect(classOf.get(`r2-${tag}@example.org`)).toBe('review');
    });

    it('fails a group the server does not carry, as a permanent error', async () => {
      const other = await databases.create();
      const add = await runCli(
        ['lists', 'add', '--system', 'nntp', 'local.nosuch', '--base-url', server.url, '--db', other.url],
        { env },
      );
      expect(add.code, add.stderr).toBe(0);
      const run = await runCliJson<FetchJson>(['fetch', '--full', '--db', other.url], { env });
      expect(run.code).not.toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'failed', error: { kind: 'permanent' } });
      expect(run.json.lists[0]!.error!.message).toContain('no group local.nosuch');
    });

    it('gives up on a server that stops answering after mail_timeout_seconds, as transient, and reads the group once it answers', async () => {
      const other = await databases.create();
      const add = await runCli(
        ['lists', 'add', '--system', 'nntp', group, '--base-url', server.url, '--db', other.url],
        {
          env,
        },
      );
      expect(add.code, add.stderr).toBe(0);
      const config = join(dir, 'silence.yaml');
      writeFileSync(config, 'mail_timeout_seconds: 2\n');
      const fetch = () => runCliJson<FetchJson>(['fetch', '--full', '--db', other.url, '--config', config], { env });
      const { outcome: silent, ms } = await whileSilent(server, fetch);
      expect(ms).toBeLessThan(30_000);
      expect(silent.json.lists[0]).toMatchObject({ status: 'failed', staged: 0, error: { kind: 'transient' } });
      expect(silent.json.lists[0]!.error!.message).toContain('stopped answering: no answer for 2 s');
      const answered = await runCliJson<FetchJson>(
        ['fetch', '--full', '--now', '--db', other.url, '--config', config],
        {
          env,
        },
      );
      expect(answered.code, `${answered.stderr}${answered.stdout}`).toBe(0);
      // What the group carries since it was recreated: every article but the root, which was not fed again.
      const carried = all.filter((article) => !article.messageId.startsWith('root-'));
      expect(answered.json.lists[0]).toMatchObject({ status: 'done', staged: carried.length });
    });

    it('refuses a name that is no newsgroup and a server URL with a user name in it', async () => {
      const bad = await runCli(
        ['lists', 'add', '--system', 'nntp', 'not a group', '--base-url', server.url, '--db', db.url],
        { env },
      );
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toContain('is not a newsgroup name');
      const secret = await runCli(
        [
          'lists',
          'add',
          '--system',
          'nntp',
          'local.other',
          '--base-url',
          'nntp://jane:secret@127.0.0.1:119',
          '--db',
          db.url,
        ],
        { env },
      );
      expect(secret.code).not.toBe(0);
      expect(secret.stderr).toContain('LISTMINER_NNTP_USER');
    });
  },
  { skip },
);

describeOnDialectDatabases(
  'fetch a newsgroup from a news server that wants a password on $dialect',
  (databases) => {
    let guarded: NewsServer;
    beforeAll(async () => {
      guarded = await startNewsServer({ users: { jane: 'correct-horse' } });
      await guarded.newGroup('local.private');
      await guarded.post('local.private', firstArticles(`auth-${databases.dialect}`));
    }, 120_000);
    afterAll(async () => {
      await guarded?.close();
    });

    const fetchWith = async (credentials: NodeJS.ProcessEnv) => {
      const db = await databases.create();
      const add = await runCli(
        ['lists', 'add', '--system', 'nntp', 'local.private', '--base-url', guarded.url, '--db', db.url],
        { env },
      );
      expect(add.code, add.stderr).toBe(0);
      return runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', db.url], { env: { ...env, ...credentials } });
    };

    it('reads the group with AUTHINFO USER/PASS from the environment', async () => {
      const run = await fetchWith({ LISTMINER_NNTP_USER: 'jane', LISTMINER_NNTP_PASSWORD: 'correct-horse' });
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 5 });
    });

    it('fails as permanent on a wrong password, and never prints the password', async () => {
      const run = await fetchWith({ LISTMINER_NNTP_USER: 'jane', LISTMINER_NNTP_PASSWORD: 'wrong-battery' });
      expect(run.code).not.toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'failed', error: { kind: 'permanent' } });
      expect(`${run.stdout}${run.stderr}`).not.toContain('wrong-battery');
    });

    it('fails without a user name, saying one is wanted', async () => {
      const run = await fetchWith({});
      expect(run.code).not.toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'failed', error: { kind: 'permanent' } });
      expect(run.json.lists[0]!.error!.message).toContain('user name and password');
    });
  },
  { skip, only: ['sqlite'], onlyWhy: 'signing in is the server connection, the same on both engines' },
);
