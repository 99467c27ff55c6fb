import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { dovecotSkipReason, startDovecot, type DovecotServer } from '../helpers/dovecot-server.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

/**
 * listminer reading a mailbox subscribed to lists from a real Dovecot
 * (Debian's dovecot-imapd and dovecot-pop3d), over IMAP and POP3: every
 * message of the list once, nothing twice on a re-run or after the mailbox
 * was recreated, new mail found, and the mailbox left as it was.
 */

const DEV = 'dev@lists.example.org';
const USERS = 'users@lists.example.org';
const TODAY = new Date(Math.floor(Date.now() / 1000) * 1000);
const NOW = monthOf(TODAY);
const back = (months: number, day: number) =>
  new Date(`${addMonths(NOW, -months)}-${String(day).padStart(2, '0')}T10:00:00Z`);

interface Mail {
  id: string;
  date: Date;
  list?: string;
}

function message(mail: Mail): string {
  const listId = mail.list ? `List-Id: The ${mail.list.split('@')[0]} list <${mail.list.replace('@', '.')}>\r\n` : '';
  return (
    `From: Jane Doe <jane@example.org>\r\nTo: ${mail.list ?? 'me@example.org'}\r\nSubject: about ${mail.id}\r\n` +
    `Date: ${mail.date.toUTCString().replace('GMT', '+0000')}\r\nMessage-ID: <${mail.id}>\r\n${listId}\r\n` +
    `Body of ${mail.id}.\r\n.a line that starts with a dot\r\n`
  );
}

/** Two lists and some personal mail in one INBOX, over three months. */
function firstMail(tag: string): Mail[] {
  return [
    { id: `d1-${tag}@example.org`, date: back(3, 4), list: DEV },
    { id: `d2-${tag}@example.org`, date: back(3, 20), list: DEV },
    { id: `u1-${tag}@example.org`, date: back(3, 21), list: USERS },
    { id: `p1-${tag}@example.org`, date: back(2, 2) },
    { id: `d3-${tag}@example.org`, date: back(2, 9), list: DEV },
    { id: `d4-${tag}@example.org`, date: back(1, 9), list: DEV },
  ];
}

const skip = dovecotSkipReason;
if (skip) console.warn(`skipping the real-Dovecot suites: ${skip}`);

let server: DovecotServer;
let dir: string;

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'listminer-mailbox-e2e-'));
  server = await startDovecot();
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every message's flags (but \Recent, which only says which session saw it first) by Message-ID, read with EXAMINE. */
async function mailboxState(user: string): Promise<Record<string, string[]>> {
  const client = new ImapFlow({
    host: server.host,
    port: server.imapPort,
    secure: false,
    doSTARTTLS: false,
    auth: { user, pass: server.password },
    logger: false,
  });
  await client.connect();
  try {
    await client.mailboxOpen('INBOX', { readOnly: true });
    const state: Record<string, string[]> = {};
    for await (const mail of client.fetch('1:*', { flags: true, envelope: true })) {
      state[mail.envelope?.messageId ?? `#${mail.seq}`] = [...(mail.flags ?? [])]
        .filter((flag) => flag !== '\\Recent')
        .sort();
    }
    return state;
  } finally {
    await client.logout();
  }
}

for (const protocol of ['imap', 'pop3'] as const) {
  describeOnDialectDatabases(
    `fetch from a real Dovecot over ${protocol} on $dialect`,
    (databases) => {
      let db: TestDatabase;
      let user: string;
      let tag: string;
      let env: NodeJS.ProcessEnv;
      const fetch = () => runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', db.url], { env });
      const staged = (list: string) =>
        queryAt<{ message_id: string }>(
          db.url,
          'SELECT s.message_id FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ? ORDER BY s.message_id',
          [list],
        ).then((rows) => rows.map((row) => row.message_id));
      const ids = (mails: Mail[], list: string) =>
        mails
          .filter((mail) => mail.list === list)
          .map((mail) => mail.id)
          .sort();

      beforeAll(async () => {
        db = await databases.create();
        tag = `${protocol}-${databases.dialect}`;
        user = `reader-${tag}`;
        env = { LISTMINER_CACHE: join(dir, `cache-${tag}`), LISTMINER_MAIL_PASSWORD: server.password };
        await server.addUser(user);
        for (const mail of firstMail(tag)) server.deliver(user, message(mail));
        const port = protocol === 'imap' ? server.imapPort : server.pop3Port;
        for (const list of [DEV, USERS]) {
          const add = await runCli(
            [
              'lists',
              'add',
              list,
              '--system',
              protocol,
              '--base-url',
              `${protocol}://${user}@127.0.0.1:${port}/`,
              '--db',
              db.url,
            ],
            { env },
          );
          expect(add.code, add.stderr).toBe(0);
        }
      }, 60_000);

      it('stores every message of each list once, and leaves the mailbox as it was', async () => {
        const before = await mailboxState(user);
        expect(Object.keys(before)).toHaveLength(6);
        const run = await fetch();
        expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
        expect(run.json.totals).toMatchObject({ staged: 5, failed: 0 });
        expect(await staged(DEV)).toEqual(ids(firstMail(tag), DEV));
        expect(await staged(USERS)).toEqual(ids(firstMail(tag), USERS));
        expect(await mailboxState(user)).toEqual(before);
      });

      it('stores the bytes the server holds, a line that starts with a dot included', async () => {
        const rows = await queryAt<{ message_id: string; size: number | string }>(
          db.url,
          'SELECT message_id, size FROM staged_messages ORDER BY message_id',
        );
        const sizes = Object.fromEntries(rows.map((row) => [row.message_id, Number(row.size)]));
        for (const mail of firstMail(tag).filter((one) => one.list))
          expect(sizes[mail.id], mail.id).toBe(Buffer.byteLength(message(mail)));
      });

      it('stores nothing on a re-run', async () => {
        const run = await fetch();
        expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
        expect(run.json.totals).toMatchObject({ staged: 0, failed: 0 });
      });

      it('finds new mail, in an old month and in the current one', async () => {
        const late: Mail[] = [
          { id: `late-${tag}@example.org`, date: back(3, 25), list: DEV },
          { id: `new-${tag}@example.org`, date: TODAY, list: DEV },
        ];
        for (const mail of late) server.deliver(user, message(mail));
        const run = await fetch();
        expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
        expect(run.json.totals).toMatchObject({ staged: 2, failed: 0 });
        expect(await staged(DEV)).toEqual([...ids(firstMail(tag), DEV), ...late.map((mail) => mail.id)].sort());
      });

      it('stores nothing twice when the mailbox is recreated (a new UIDVALIDITY), and finds what is new in it', async () => {
        const again: Mail[] = [
          ...firstMail(tag),
          { id: `late-${tag}@example.org`, date: back(3, 25), list: DEV },
          { id: `new-${tag}@example.org`, date: TODAY, list: DEV },
          { id: `after-${tag}@example.org`, date: back(2, 15), list: DEV },
        ];
        server.recreateInbox(user, again.map(message));
        const before = await mailboxState(user);
        const run = await fetch();
        expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
        expect(run.json.totals).toMatchObject({ staged: 1, failed: 0 });
        expect(await staged(DEV)).toEqual(ids(again, DEV));
        expect(await staged(USERS)).toEqual(ids(again, USERS));
        expect(await mailboxState(user)).toEqual(before);
        const rerun = await fetch();
        expect(rerun.json.totals).toMatchObject({ staged: 0, failed: 0 });
      });
    },
    skip ? { skip } : {},
  );
}

describeOnDialectDatabases(
  'a POP3 server that numbers UIDLs again when a maildrop is recreated, on $dialect',
  (databases) => {
    let reusing: DovecotServer;
    beforeAll(async () => {
      reusing = await startDovecot({ pop3UidlFormat: '%u' });
    }, 60_000);
    afterAll(async () => {
      await reusing?.close();
    });

    it('reads the new mail under the old UIDLs, whether they held list mail or other mail before', async () => {
      const db = await databases.create();
      const env = {
        LISTMINER_CACHE: join(dir, `cache-reused-${databases.dialect}`),
        LISTMINER_MAIL_PASSWORD: reusing.password,
      };
      const batch = (tag: string, list?: string): Mail[] =>
        [0, 1, 2].map((i) => ({ id: `${tag}${i}-${databases.dialect}@example.org`, date: back(2, 3 + i), list }));
      const dev = `dev-${databases.dialect}`;
      const users = `users-${databases.dialect}`;
      const fetch = (now: string[]) => runCliJson<FetchJson>(['fetch', '--now', ...now, '--db', db.url], { env });
      const staged = async () =>
        (
          await queryAt<{ message_id: string }>(db.url, 'SELECT message_id FROM staged_messages ORDER BY message_id')
        ).map((row) => row.message_id);
      for (const user of [dev, users]) {
        await reusing.addUser(user);
        const add = await runCli(
          [
            'lists',
            'add',
            user === dev ? DEV : USERS,
            '--system',
            'pop3',
            '--base-url',
            `pop3://${user}@127.0.0.1:${reusing.pop3Port}/`,
            '--db',
            db.url,
          ],
          { env },
        );
        expect(add.code, add.stderr).toBe(0);
      }
      // The dev maildrop holds the list's mail, the users maildrop only personal mail; both are read.
      const firstDev = batch('first', DEV);
      reusing.recreateInbox(dev, firstDev.map(message));
      reusing.recreateInbox(users, batch('personal').map(message));
      expect((await fetch(['--full'])).json.totals).toMatchObject({ staged: 3, failed: 0 });
      // Both maildrops recreated: UIDLs 1, 2 and 3 again, each on another message (longer, so another size).
      const laterDev = batch('later-and-longer', DEV);
      const laterUsers = batch('later-and-longer', USERS);
      reusing.recreateInbox(dev, laterDev.map(message));
      reusing.recreateInbox(users, laterUsers.map(message));
      const run = await fetch([]);
      expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
      expect(run.json.totals).toMatchObject({ staged: 6, failed: 0 });
      expect(await staged()).toEqual([...firstDev, ...laterDev, ...laterUsers].map((mail) => mail.id).sort());
    });
  },
  skip ? { skip } : {},
);

describeOnDialectDatabases(
  'mailboxes over TLS on $dialect',
  (databases) => {
    for (const protocol of ['imap', 'pop3'] as const) {
      describe(protocol, () => {
        let db: TestDatabase;
        let user: string;
        let cache: string;
        const config = (lines: string) => {
          const file = join(dir, `config-${protocol}-${databases.dialect}-${Math.random().toString(36).slice(2)}.yaml`);
          writeFileSync(file, lines);
          return file;
        };

        beforeAll(async () => {
          db = await databases.create();
          user = `tls-${protocol}-${databases.dialect}`;
          cache = join(dir, `cache-${user}`);
          await server.addUser(user);
          server.deliver(user, message({ id: `tls-${user}@example.org`, date: back(1, 3), list: DEV }));
          const port = protocol === 'imap' ? server.imapsPort : server.pop3sPort;
          const add = await runCli(
            [
              'lists',
              'add',
              DEV,
              '--system',
              protocol,
              '--base-url',
              `${protocol}s://localhost:${port}`,
              '--db',
              db.url,
            ],
            { env: { LISTMINER_CACHE: cache } },
          );
          expect(add.code, add.stderr).toBe(0);
        }, 60_000);

        it('refuses a certificate it was not told to trust, and never prints the password', async () => {
          const file = config(
            `mail_accounts:\n  - host: localhost\n    user: ${user}\n    password: ${server.password}\n`,
          );
          const run = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', db.url, '--config', file], {
            env: { LISTMINER_CACHE: cache },
          });
          expect(run.json.lists[0]).toMatchObject({ status: 'failed' });
          expect(run.json.lists[0]!.error!.message).toMatch(/certificate/i);
          expect(`${run.stdout}${run.stderr}`).not.toContain(server.password);
        });

        it('reads the mailbox with the login and CA file of the config', async () => {
          const file = config(
            `mail_accounts:\n  - host: localhost\n    user: ${user}\n    password: ${server.password}\n    ca_file: ${server.caFile}\n`,
          );
          const run = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', db.url, '--config', file], {
            env: { LISTMINER_CACHE: cache },
          });
          expect(run.code, `${run.stderr}${run.stdout}`).toBe(0);
          expect(run.json.lists[0]).toMatchObject({ status: 'done', staged: 1 });
          expect(`${run.stdout}${run.stderr}`).not.toContain(server.password);
        });
      });
    }
  },
  skip ? { skip } : {},
);

describeOnDialectDatabases(
  'lists add for a mailbox on $dialect',
  (databases) => {
    it('refuses a mailbox URL that holds a password, without printing it', async () => {
      const db = await databases.create();
      const add = await runCli([
        'lists',
        'add',
        DEV,
        '--system',
        'imap',
        '--base-url',
        'imaps://me:hunter2@imap.example.org/Lists',
        '--db',
        db.url,
      ]);
      expect(add.code).toBe(2);
      expect(add.stderr).toMatch(/must not hold a password/);
      expect(`${add.stdout}${add.stderr}`).not.toContain('hunter2');
      const ok = await runCli([
        'lists',
        'add',
        DEV,
        '--system',
        'pop3',
        '--base-url',
        'pop3s://me@pop.example.org',
        '--db',
        db.url,
      ]);
      expect(ok.code, ok.stderr).toBe(0);
    });
  },
  { only: ['sqlite'], onlyWhy: 'lists add checks the URL before the database is touched' },
);
