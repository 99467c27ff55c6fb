import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../helpers/cli.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { LONG_MODE } from '../helpers/long-mode.js';
import { countMessagePages, monthOfVolume } from '../helpers/mailman2-archive.js';
import { serveArchives, stagedByMonth, total, type FetchJson, type Served } from '../helpers/pipermail-fetch.js';

/**
 * The three real Mailman 2.1 snapshots: true counts from MANIFEST.md (unique
 * Message-IDs = per-message pages). Mail Mailman archived twice is one
 * message: in lightning-dev's 2020-January one message was archived again and
 * the Scrubber linked its attachment as `attachment-0001.sig` the second time.
 */
const SNAPSHOTS = [
  { list: 'canorus-devel@lists.berlios.de', folder: 'berlios-canorus-devel-maillist', messages: 996 },
  { list: 'fetchmail-devel@lists.berlios.de', folder: 'berlios-fetchmail-devel-maillist', messages: 1655 },
  {
    list: 'lightning-dev@lists.linuxfoundation.org',
    folder: 'lightning-dev-wget/lists.linuxfoundation.org/pipermail/lightning-dev',
    messages: 3988,
  },
];
const distinctMessageIds = async (url: string, list: string) =>
  Number(
    (
      await queryAt<{ n: number | string }>(
        url,
        'SELECT COUNT(DISTINCT s.message_id) AS n FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ?',
        [list],
      )
    )[0]!.n,
  );

describeOnDialectDatabases(
  'fetch of real Mailman 2.1 snapshots on $dialect',
  (databases) => {
    let dir: string;
    let env: NodeJS.ProcessEnv;
    let served: Served;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'listminer-pipermail-real-'));
      env = { LISTMINER_CACHE: join(dir, 'cache') };
      served = await serveArchives(
        join(dir, 'served'),
        Object.fromEntries(SNAPSHOTS.map((s) => [s.list.split('@')[0]!, corpusPath(s.folder)])),
      );
    });
    afterAll(async () => {
      await served?.http11.close();
      served?.http10.process.kill();
      rmSync(dir, { recursive: true, force: true });
    });

    for (const snapshot of SNAPSHOTS) {
      it(`stores ${snapshot.messages} messages of ${snapshot.folder}, as many as its pages, over HTTP/1.1, HTTP/1.0 and read locally`, async () => {
        const pages = new Map(
          [...countMessagePages(corpusPath(snapshot.folder))].map(([volume, n]) => [monthOfVolume(volume), n]),
        );
        for (const [label, args, name] of [
          ['HTTP/1.1', ['--system', 'pipermail', snapshot.list, '--base-url', served.http11.url], snapshot.list],
          ['HTTP/1.0', ['--system', 'pipermail', snapshot.list, '--base-url', served.http10.url], snapshot.list],
          ['local mbox', ['--system', 'mbox', corpusPath(snapshot.folder)], corpusPath(snapshot.folder)],
        ] as const) {
          const db = await databases.create();
          const added = await runCli(['lists', 'add', ...args, '--db', db.url], { env });
          expect(added.code, added.stderr).toBe(0);
          const run = await runCliJson<FetchJson>(['fetch', '--list', name, '--full', '--db', db.url], {
            env,
            timeoutMs: 600_000,
          });
          expect(run.json.lists[0], `${label}: ${run.stderr}`).toMatchObject({ status: 'done' });
          const stored = await stagedByMonth(db.url, name);
          expect(await distinctMessageIds(db.url, name), label).toBe(snapshot.messages);
          expect(total(stored), label).toBe(snapshot.messages);
          if (label !== 'local mbox')
            for (const [month, n] of pages) expect(stored.get(month) ?? 0, `${label} ${month}`).toBe(n);
        }
      }, 900_000);
    }
  },
  {
    skip: corpusMissing,
    ...(LONG_MODE
      ? {}
      : { only: ['sqlite'] as const, onlyWhy: 'the full snapshots run on PostgreSQL too under LISTMINER_LONG=1' }),
  },
);
