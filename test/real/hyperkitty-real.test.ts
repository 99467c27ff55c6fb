import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { hyperKittySkipReason, startHyperKitty, type HyperKittySite } from '../helpers/hyperkitty-server.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

/**
 * listminer against a real HyperKitty (Debian's python3-django-hyperkitty),
 * served by runserver (replies end by closing the connection) and by
 * gunicorn (chunked replies). One site per file; each suite gets lists of
 * its own, so the suites do not see each other's mail.
 */

const DOMAIN = 'lists.example.org';
const REPO = 'https://github.com/example/widget';
/** 77 characters: HyperKitty writes an In-Reply-To this long as RFC 2047 encoded words. */
const LONG_ID = `${'a'.repeat(40)}.${'b'.repeat(8)}@very-long-host-name.example.org`;

/** Mail is dated a few months back, so a list's history (which HyperKitty counts up to today) stays short. */
const NOW = monthOf(new Date());
const back = (months: number, day: number) => `${addMonths(NOW, -months)}-${String(day).padStart(2, '0')}T10:00:00Z`;

interface Mail {
  id: string;
  date: string;
  subject: string;
  replyTo?: string;
  body?: string;
}

function mbox(mails: readonly Mail[]): string {
  return mails
    .map((mail) => {
      const date = new Date(mail.date);
      const fromLine = date
        .toUTCString()
        .replace(
          /^(\w+), (\d+) (\w+) (\d+) ([\d:]+) GMT$/,
          (_m, day, dd, mon, yyyy, time) => `${day} ${mon} ${String(dd).padStart(2, ' ')} ${time} ${yyyy}`,
        );
      const reply = mail.replyTo ? `In-Reply-To: <${mail.replyTo}>\nReferences: <${mail.replyTo}>\n` : '';
      return (
        `From jane@example.org ${fromLine}\nFrom: Jane Doe <jane@example.org>\nTo: list@${DOMAIN}\nSubject: ${mail.subject}\n` +
        `Date: ${date.toUTCString().replace('GMT', '+0000')}\nMessage-ID: <${mail.id}>\n${reply}\n${mail.body ?? `Body of ${mail.id}.\n`}\n`
      );
    })
    .join('');
}

/** Three and two months back: a thread across the two months, a reply to a long Message-ID, a body with a quoted From line. */
function mainMail(tag: string): Mail[] {
  return [
    { id: `root-${tag}@example.org`, date: back(3, 4), subject: 'spanning thread' },
    {
      id: `r1-${tag}@example.org`,
      date: back(3, 5),
      subject: 'Re: spanning thread',
      replyTo: `root-${tag}@example.org`,
      body: 'A quote:\n>From the start it was so.\n',
    },
    { id: `${tag}.${LONG_ID}`, date: back(3, 28), subject: 'long id' },
    { id: `r2-${tag}@example.org`, date: back(2, 1), subject: 'Re: long id', replyTo: `${tag}.${LONG_ID}` },
    { id: `r3-${tag}@example.org`, date: back(2, 2), subject: 'Re: spanning thread', replyTo: `r1-${tag}@example.org` },
    { id: `alone-${tag}@example.org`, date: back(2, 20), subject: 'a thread of its own' },
  ];
}

const skip = hyperKittySkipReason;
if (skip) console.warn(`skipping the real-HyperKitty suites: ${skip}`);

let site: HyperKittySite;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'listminer-hyperkitty-e2e-'));
  env = { LISTMINER_CACHE: join(dir, 'cache') };
  site = await startHyperKitty();
  console.info(`HyperKitty: migrate ${site.timings.migrateMs} ms, two servers up in ${site.timings.startMs} ms`);
}, 120_000);
afterAll(async () => {
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const servers = [
  { kind: 'runserver, replies ended by closing', url: () => site.closingUrl },
  { kind: 'gunicorn, chunked replies', url: () => site.chunkedUrl },
] as const;

describeOnDialectDatabases(
  'fetch from a real HyperKitty on $dialect',
  (databases) => {
    // PostgreSQL once, over the closing server; SQLite over both.
    for (const [serverIndex, server] of servers.entries()) {
      if (databases.dialect === 'postgres' && serverIndex > 0) continue;
      describe(server.kind, () => {
        let db: TestDatabase;
        let list: string;
        let tag: string;
        const cli = (args: string[]) => runCliJson<FetchJson>([...args, '--db', db.url], { env });
        const staged = () =>
          queryAt<{ message_id: string | null; message_key: string }>(
            db.url,
            'SELECT message_id, message_key FROM staged_messages ORDER BY message_key',
          );

        beforeAll(async () => {
          db = await databases.create();
          tag = `${databases.dialect === 'postgres' ? 'pg' : 'lite'}${serverIndex}`;
          list = `main-${tag}@${DOMAIN}`;
          await site.importMbox(list, mbox(mainMail(tag)));
          const add = await runCli(
            [
              'lists',
              'add',
              '--system',
              'hyperkitty',
              list,
              '--base-url',
              `${server.url()}/hyperkitty`,
              '--repo',
              REPO,
              '--db',
              db.url,
            ],
            { env },
          );
          expect(add.code, add.stderr).toBe(0);
          const repo = await runCli(['repos', 'add', REPO, '--db', db.url], { env });
          expect(repo.code, repo.stderr).toBe(0);
        }, 60_000);

        it('stores every imported message once on the first read', async () => {
          const run = await cli(['fetch', '--full', '--now']);
          expect(run.code, run.stderr).toBe(0);
          expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 6 });
          const rows = await staged();
          expect(rows.map((row) => row.message_id).sort()).toEqual(
            mainMail(tag)
              .map((mail) => mail.id)
              .sort(),
          );
        });

        it('stores nothing new when the list is read again', async () => {
          const run = await cli(['fetch', '--now']);
          expect(run.code, run.stderr).toBe(0);
          expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 0 });
          expect(await staged()).toHaveLength(6);
        });

        // HyperKitty rebuilds each message on export with a fresh random MIME boundary.
        it('stores nothing new when the whole history is read again with --full', async () => {
          const run = await cli(['fetch', '--full', '--now']);
          expect(run.code, run.stderr).toBe(0);
          expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 0, duplicates: 6 });
          expect((await staged()).map((row) => row.message_key)).toHaveLength(6);
        });

        const rootOf = async () => {
          const rows = await queryAt<{ message_id: string; root: string | null }>(
            db.url,
            'SELECT m.message_id, r.message_id AS root FROM email_messages m LEFT JOIN email_messages r ON r.message_key = m.thread_root_key AND r.list_id = m.list_id',
          );
          return new Map(rows.map((row) => [row.message_id, row.root]));
        };

        it('threads a thread that spans two months after drain', async () => {
          for (const stage of ['classify', 'drain']) {
            const run = await runCli([stage, '--db', db.url], { env });
            expect(run.code, `${stage}: ${run.stderr}`).toBe(0);
          }
          const roots = await rootOf();
          expect(roots.get(`r1-${tag}@example.org`)).toBe(`root-${tag}@example.org`);
          expect(roots.get(`r3-${tag}@example.org`)).toBe(`root-${tag}@example.org`);
        });

        // HyperKitty exports an In-Reply-To this long as RFC 2047 encoded words (=?utf-8?q?=3C...?=).
        it('threads a reply to a Message-ID of 76 characters or more under its parent', async () => {
          expect((await rootOf()).get(`r2-${tag}@example.org`)).toBe(`${tag}.${LONG_ID}`);
        });

        it('finds a past month imported after the list was read, without --full', async () => {
          const late = `late-${tag}@${DOMAIN}`;
          await site.importMbox(
            late,
            mbox([
              { id: `jan-${tag}@example.org`, date: back(4, 10), subject: 'january' },
              { id: `apr-${tag}@example.org`, date: back(2, 10), subject: 'april' },
            ]),
          );
          const add = await runCli(
            [
              'lists',
              'add',
              '--system',
              'hyperkitty',
              late,
              '--base-url',
              `${server.url()}/hyperkitty`,
              '--db',
              db.url,
            ],
            { env },
          );
          expect(add.code, add.stderr).toBe(0);
          const first = await cli(['fetch', '--full', '--now', '--list', late]);
          expect(first.json.lists[0], first.stderr).toMatchObject({ status: 'done', staged: 2 });

          // An old archive comes in later: a month inside the history read, and one before it.
          const older = [
            { id: `feb-${tag}@example.org`, date: back(3, 14), subject: 'february' },
            { id: `dec-${tag}@example.org`, date: back(5, 3), subject: 'december' },
          ];
          await site.importMbox(late, mbox(older), { since: '2000-01-01' });
          const next = await cli(['fetch', '--now', '--list', late]);
          expect(next.code, next.stderr).toBe(0);
          expect(next.json.lists[0]).toMatchObject({ status: 'done', staged: 2 });
          const again = await cli(['fetch', '--now', '--list', late]);
          // Only the current month, which is read until it is over.
          expect(again.json.lists[0]).toMatchObject({ status: 'done', staged: 0, monthsFetched: 1 });
        });

        it('fails a list HyperKitty does not know, naming the URL tried', async () => {
          const wrong = `nosuch-${tag}@${DOMAIN}`;
          const noPrefix = `main-${tag}@${DOMAIN}`;
          for (const [name, base] of [
            [wrong, `${server.url()}/hyperkitty`],
            [noPrefix, server.url()],
          ] as const) {
            const other = await databases.create();
            const add = await runCli(
              ['lists', 'add', '--system', 'hyperkitty', name, '--base-url', base, '--db', other.url],
              { env },
            );
            expect(add.code, add.stderr).toBe(0);
            const run = await runCliJson<FetchJson>(['fetch', '--full', '--db', other.url], { env });
            expect(run.code).not.toBe(0);
            expect(run.json.lists[0]).toMatchObject({ status: 'failed', error: { kind: 'permanent' } });
            expect(run.json.lists[0]!.error!.message).toContain(`${base}/list/${name}/`);
            const [state] = await queryAt<{ scan_complete: unknown }>(other.url, 'SELECT scan_complete FROM lists');
            expect(Boolean(Number(state!.scan_complete))).toBe(false);
          }
        });
      });
    }
  },
  { skip },
);
