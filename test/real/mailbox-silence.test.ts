import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceContext } from '../../src/core/archive/archive-source.js';
import { createSource as createImapSource } from '../../src/core/archive/sources/imap.js';
import { createSource as createPop3Source } from '../../src/core/archive/sources/pop3.js';
import { ArchiveError } from '../../src/core/errors.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { dovecotSkipReason, startDovecot, type DovecotServer } from '../helpers/dovecot-server.js';
import { whileSilent } from '../helpers/real-software.js';

/**
 * A real Dovecot that stops answering (every process stopped with SIGSTOP)
 * and a folder it does not have: listminer gives up on a silent server after
 * the config's mail_timeout_seconds, opens a new connection once it answers
 * again, and names a missing folder as the list's error, not the server's.
 */

const LIST = 'dev@lists.example.org';
const LIST_ID = 'dev.lists.example.org';

function message(id: string, day: number): string {
  return (
    `From: Jane Doe <jane@example.org>\r\nTo: ${LIST}\r\nSubject: about ${id}\r\n` +
    `Date: Mon, ${day} Jun 2025 10:00:00 +0000\r\nMessage-ID: <${id}>\r\n` +
    `List-Id: The dev list <${LIST_ID}>\r\n\r\nBody of ${id}.\r\n`
  );
}

const skip = dovecotSkipReason;
if (skip) console.warn(`skipping the silent-Dovecot suites: ${skip}`);

let server: DovecotServer;
let dir: string;

beforeAll(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'listminer-mailbox-silence-'));
  server = await startDovecot();
}, 60_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describeOnDialectDatabases(
  'a mail server that stops answering, on $dialect',
  (databases) => {
    const user = 'silent-reader';
    let config: string;
    const env = () => ({ LISTMINER_CACHE: join(dir, 'cache-cli') });

    beforeAll(async () => {
      await server.addUser(user);
      for (const day of [2, 3, 4]) server.deliver(user, message(`m${day}@example.org`, day));
      config = join(dir, 'silence.yaml');
      writeFileSync(
        config,
        `mail_timeout_seconds: 2\nmail_accounts:\n  - host: 127.0.0.1\n    user: ${user}\n    password: ${server.password}\n`,
      );
    }, 60_000);

    for (const protocol of ['imap', 'pop3'] as const) {
      it(`${protocol}: fails the list as transient after mail_timeout_seconds of silence, and reads it all once the server answers`, async () => {
        const db = await databases.create();
        const port = protocol === 'imap' ? server.imapPort : server.pop3Port;
        const add = await runCli(
          [
            'lists',
            'add',
            LIST,
            '--system',
            protocol,
            '--base-url',
            `${protocol}://127.0.0.1:${port}/`,
            '--db',
            db.url,
          ],
          { env: env() },
        );
        expect(add.code, add.stderr).toBe(0);
        const fetch = () =>
          runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', db.url, '--config', config], {
            env: env(),
            timeoutMs: 60_000,
          });

        const { outcome: silent, ms } = await whileSilent(server, fetch);
        expect(ms).toBeLessThan(30_000);
        expect(silent.json.lists[0]).toMatchObject({ status: 'failed', staged: 0 });
        expect(silent.json.lists[0]!.error).toMatchObject({ kind: 'transient' });
        expect(silent.json.lists[0]!.error!.message).toMatch(/no answer for 2 s/);

        const answered = await fetch();
        expect(answered.code, `${answered.stderr}${answered.stdout}`).toBe(0);
        expect(answered.json.lists[0]).toMatchObject({ status: 'done', staged: 3 });
      });
    }

    for (const [folder, reason] of [
      ['Nowhere', "the server has no folder Nowhere: Mailbox doesn't exist: Nowhere"],
      // Dovecot's Maildir folders are separated by dots, and no folder is found under a name it does not take.
      ['Lists/Kafka', "the server has no folder Lists/Kafka: Invalid mailbox name: Name must not have '/' characters"],
    ]) {
      it(`imap: fails the list as permanent when the server will not open the folder ${folder}`, async () => {
        const db = await databases.create();
        const url = `imap://127.0.0.1:${server.imapPort}/${folder}`;
        const add = await runCli(['lists', 'add', LIST, '--system', 'imap', '--base-url', url, '--db', db.url], {
          env: env(),
        });
        expect(add.code, add.stderr).toBe(0);
        const run = await runCliJson<FetchJson>(['fetch', '--full', '--now', '--db', db.url, '--config', config], {
          env: env(),
        });
        expect(run.json.lists[0]).toMatchObject({ status: 'failed' });
        expect(run.json.lists[0]!.error).toMatchObject({ kind: 'permanent' });
        expect(run.json.lists[0]!.error!.message).toMatch(
          `imap://${user}@127.0.0.1:${server.imapPort}/${folder}: ${reason}`,
        );
      });
    }
  },
  { only: ['sqlite'], onlyWhy: 'what a silent server does to a fetch is the same on both engines' },
);

for (const protocol of ['imap', 'pop3'] as const) {
  describe.skipIf(Boolean(skip))(`${protocol}: a connection that goes silent while the mailbox is read`, () => {
    const user = `silent-midway-${protocol}`;

    it('fails the month as transient after the timeout, and reads it on a new connection once the server answers', async () => {
      await server.addUser(user);
      for (const day of [5, 6]) server.deliver(user, message(`midway${day}@example.org`, day));
      const port = protocol === 'imap' ? server.imapPort : server.pop3Port;
      const context: SourceContext = {
        list: { id: 1, name: LIST, listAddress: LIST, listId: LIST_ID, baseUrl: null },
        system: { name: protocol },
        baseUrl: `${protocol}://${user}@127.0.0.1:${port}/`,
        cacheDir: join(dir, `cache-midway-${protocol}`),
        mailAccounts: [{ host: '127.0.0.1', user, password: server.password }],
        mailTimeoutMs: 2_000,
      };
      const source = (protocol === 'imap' ? createImapSource : createPop3Source)();
      try {
        const months = [...(await source.monthFingerprints!(context)).keys()];
        expect(months).toEqual(['2025-06']);
        const read = async () => {
          const ids: string[] = [];
          for await (const item of source.fetchMonth(context, '2025-06'))
            ids.push(/^Message-ID: <(.+)>/m.exec(item.raw.toString())![1]!);
          return ids;
        };

        const { outcome: failure, ms } = await whileSilent(server, () =>
          read().then(
            (): unknown => undefined,
            (error: unknown) => error,
          ),
        );
        expect(ms).toBeLessThan(20_000);
        expect(failure).toBeInstanceOf(ArchiveError);
        expect(failure).toMatchObject({ kind: 'transient', message: expect.stringMatching(/no answer for 2 s/) });

        expect(await read()).toEqual(['midway5@example.org', 'midway6@example.org']);
      } finally {
        await source.close?.();
      }
    }, 60_000);
  });
}
