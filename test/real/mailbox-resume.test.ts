import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { Dialect, TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { dovecotSkipReason, startDovecot, type DovecotServer } from '../helpers/dovecot-server.js';
import {
  cleanFetch,
  fetchKilledAndResumed,
  type CleanFetch,
  type KillPointsOptions,
} from '../helpers/fetch-kill-points.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { nntpSkipReason, startNewsServer, type NewsArticle, type NewsServer } from '../helpers/nntp-server.js';
import { suiteSeed } from '../helpers/seeded-random.js';

/**
 * A fetch from a real news server (INN) or a real mailbox (Dovecot, over
 * IMAP and POP3) killed with SIGKILL at seeded points and run again ends
 * with the rows a clean run leaves: every message once, none twice.
 */

const random = suiteSeed('mailbox-resume', 20_251_127);
const SCENARIOS: Record<Dialect, number> = { sqlite: shortOrLong(3, 12), postgres: shortOrLong(2, 6) };
const MESSAGES = shortOrLong(400, 1500);
const TIMEOUT_MS = LONG_MODE ? 3_600_000 : 600_000;
const DEV = 'dev@lists.example.org';
const START = Date.UTC(2023, 0, 2, 9);
/** Message i's date: 19 hours after the one before, so the mail spreads over months. */
const dateOf = (i: number) => new Date(START + i * 19 * 3_600_000);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'listminer-mailbox-resume-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The suite body: a clean fetch, then the seeded kill scenarios, on the lists `register` adds. */
function killPointSuite(
  name: string,
  databases: { dialect: Dialect; create(): Promise<TestDatabase> },
  register: (db: TestDatabase, env: NodeJS.ProcessEnv) => Promise<NodeJS.ProcessEnv>,
) {
  let clean: CleanFetch;
  let options: KillPointsOptions;
  beforeAll(async () => {
    options = {
      random: random.fork(`${name}-${databases.dialect}`),
      scenarios: SCENARIOS[databases.dialect],
      createDb: () => databases.create(),
      prepare: (db, scenario) =>
        register(db, { LISTMINER_CACHE: join(dir, `${name}-${databases.dialect}-${scenario}`) }),
    };
    clean = await cleanFetch(options);
    expect(Object.keys(clean.staged)).toHaveLength(MESSAGES);
  }, TIMEOUT_MS);

  it(
    `ends with the clean run's rows and no lock, wherever fetch was killed (${SCENARIOS[databases.dialect]} scenarios of two kills)`,
    async () => {
      const landed = await fetchKilledAndResumed(clean, options);
      console.log(
        `${name} resume on ${databases.dialect}: killed with ${landed.map((n) => n ?? 'ended').join(', ')} of ${Object.keys(clean.staged).length} messages staged (clean run ${clean.ms} ms)`,
      );
    },
    TIMEOUT_MS,
  );
}

let news: NewsServer;
describeOnDialectDatabases(
  'an nntp fetch from a real INN killed with SIGKILL and run again on $dialect',
  (databases) => {
    const group = `local.resume.${databases.dialect}`;
    beforeAll(async () => {
      news ??= await startNewsServer();
      await news.newGroup(group);
      const articles: NewsArticle[] = Array.from({ length: MESSAGES }, (_, i) => ({
        messageId: `n${i}-${databases.dialect}@example.org`,
        date: dateOf(i).toUTCString(),
        subject: i % 5 === 0 ? `a question ${i}` : `Re: a question ${i - (i % 5)}`,
        body: `Article ${i}.\n.A line that starts with a dot\n`,
      }));
      await news.post(group, articles);
    }, TIMEOUT_MS);
    killPointSuite('nntp', databases, async (db, env) => {
      const add = await runCli(['lists', 'add', '--system', 'nntp', group, '--base-url', news.url, '--db', db.url], {
        env,
      });
      expect(add.code, add.stderr).toBe(0);
      return env;
    });
  },
  { skip: nntpSkipReason },
);

let dovecot: DovecotServer;
for (const protocol of ['imap', 'pop3'] as const) {
  describeOnDialectDatabases(
    `a fetch over ${protocol} from a real Dovecot killed with SIGKILL and run again on $dialect`,
    (databases) => {
      const user = `resume-${protocol}-${databases.dialect}`;
      beforeAll(async () => {
        dovecot ??= await startDovecot();
        await dovecot.addUser(user);
        for (let i = 0; i < MESSAGES; i++) {
          dovecot.deliver(
            user,
            `From: Jane Doe <jane@example.org>\r\nTo: ${DEV}\r\nSubject: about ${i}\r\nDate: ${dateOf(i).toUTCString().replace('GMT', '+0000')}\r\n` +
              `Message-ID: <m${i}-${user}@example.org>\r\nList-Id: The dev list <dev.lists.example.org>\r\n\r\nBody of ${i}.\r\n`,
          );
        }
      }, TIMEOUT_MS);
      killPointSuite(protocol, databases, async (db, env) => {
        const port = protocol === 'imap' ? dovecot.imapPort : dovecot.pop3Port;
        const withPassword = { ...env, LISTMINER_MAIL_PASSWORD: dovecot.password };
        const add = await runCli(
          [
            'lists',
            'add',
            DEV,
            '--system',
            protocol,
            '--base-url',
            `${protocol}://${user}@127.0.0.1:${port}/`,
            '--db',
            db.url,
          ],
          { env: withPassword },
        );
        expect(add.code, add.stderr).toBe(0);
        return withPassword;
      });
    },
    { skip: dovecotSkipReason },
  );
}

afterAll(async () => {
  await news?.close();
  await dovecot?.close();
});
