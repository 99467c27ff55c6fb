import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addListAt } from '../helpers/add-list-at.js';
import type { Dialect, TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { writeListMbox } from '../helpers/generated-list-mail.js';
import { describeKilledPipeline, expectAsClean, stageArgs } from '../helpers/killed-pipeline.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed } from '../helpers/seeded-random.js';
import { startCli } from '../helpers/start-cli.js';
import { digestStore } from '../helpers/store-digest.js';

/**
 * Rule 1 and 2 when a stage is stopped: killed with SIGKILL at random points
 * (killed-pipeline.ts), stopped with SIGTERM, and sync killed anywhere. The
 * same kill scenarios over real list archives are in test/corpus/crash-and-resume.test.ts.
 */

const random = suiteSeed('crash-and-resume', 20_240_601);
const GENERATED_MESSAGES = shortOrLong(800, 6000);
const KILL_POINTS: Record<Dialect, number> = { sqlite: shortOrLong(12, 60), postgres: shortOrLong(4, 24) };
const SYNC_KILL_POINTS: Record<Dialect, number> = { sqlite: shortOrLong(3, 12), postgres: shortOrLong(2, 8) };
const TIMEOUT_MS = LONG_MODE ? 3_600_000 : 600_000;

describeKilledPipeline('the pipeline killed with SIGKILL at random points on $dialect', {
  random,
  killPoints: KILL_POINTS,
  timeoutMs: TIMEOUT_MS,
  lists: (dir) => [
    {
      system: 'mbox',
      rules: 'apache_ponymail',
      name: writeListMbox(join(dir, 'generated-dev.mbox'), GENERATED_MESSAGES, { tag: 'crash' }),
      repoUrl: 'https://github.com/apache/kafka',
    },
    // No repo: its mail stays deferred, which must survive a crash just as well.
    {
      system: 'mbox',
      name: writeListMbox(join(dir, 'generated-users.mbox'), GENERATED_MESSAGES / 10, { tag: 'crash-deferred' }),
    },
  ],
  leastMessages: GENERATED_MESSAGES,
});

/**
 * A stop asked for (Ctrl-C, SIGTERM) is not a crash: the stage writes what it
 * has, releases its lock and exits with 130; the next run goes on from there.
 */
describeOnDialectDatabases('every stage stopped with SIGTERM on $dialect', (databases) => {
  let dir: string;
  let db: TestDatabase;
  const env = () => ({ LISTMINER_CACHE: join(dir, 'cache') });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-sigterm-'));
    const generated = writeListMbox(join(dir, 'generated-dev.mbox'), GENERATED_MESSAGES, { tag: 'sigterm' });
    db = await databases.create();
    await addListAt(db.url, {
      system: 'mbox',
      rules: 'apache_ponymail',
      name: generated,
      repoUrl: 'https://github.com/apache/kafka',
    });
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['fetch', 'classify --workers 2', 'drain'] as const)(
    '%s exits with 130 and leaves no lock when stopped once it has started, and the next run finishes the work',
    async (stage) => {
      const running = startCli(stageArgs(stage, db.url), { env: env() });
      // Stopped as soon as it reports work under way, so the signal lands mid-stage.
      const started = new Promise<void>((resolve) => {
        let seen = '';
        running.child.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('(started)')) resolve();
        });
        running.child.on('close', () => resolve());
      });
      await started;
      running.child.kill('SIGTERM');
      // A stage that does not stop is ended after a generous wait, so the test reports instead of hanging.
      const stuck = setTimeout(() => running.child.kill('SIGKILL'), 60_000);
      const exit = await running.exited;
      clearTimeout(stuck);
      const locks = (await digestStore(db.url)).locks;
      // The next run goes first, so a failed stop still leaves the store ready for the next stage's test.
      const again = await startCli(stageArgs(stage, db.url), { env: env() }).exited;
      expect({ code: exit.code, signal: exit.signal, locks }, exit.stderr).toEqual({
        code: exit.code === 0 ? 0 : 130,
        signal: null,
        locks: [],
      });
      expect(again.code, again.stderr).toBe(0);
    },
    TIMEOUT_MS,
  );
});

/**
 * sync runs the four stages in one process: killed anywhere in it (its own
 * registration of the archive included), a second sync must end as one
 * uninterrupted sync did, projection and synthetic issues included.
 */
describeOnDialectDatabases('sync killed with SIGKILL at random points on $dialect', (databases) => {
  const { dialect } = databases;
  const rng = random.fork(`sync-${dialect}`);
  let dir: string;
  let mbox: string;
  let cleanMs: number;
  let clean: Awaited<ReturnType<typeof digestStore>>;
  const sync = (url: string) => [
    'sync',
    mbox,
    '--rules',
    'apache_ponymail',
    '--repo',
    'https://github.com/apache/kafka',
    '--db',
    url,
  ];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-sync-crash-'));
    mbox = writeListMbox(join(dir, 'dev.mbox'), GENERATED_MESSAGES, { tag: 'sync' });
    const db = await databases.create();
    const began = Date.now();
    const run = await startCli(sync(db.url), { env: { LISTMINER_CACHE: join(dir, 'cache') } }).exited;
    cleanMs = Date.now() - began;
    expect(run.code, run.stderr).toBe(0);
    clean = await digestStore(db.url);
    expect(Object.keys(clean.projected).length).toBeGreaterThan(0);
  }, TIMEOUT_MS);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    `ends as an uninterrupted sync did, whichever point it was killed at (${SYNC_KILL_POINTS[dialect]} points)`,
    async () => {
      const log: string[] = [];
      for (let n = 0; n < SYNC_KILL_POINTS[dialect]; n++) {
        const db = await databases.create();
        const cache = join(dir, `cache-${n}`);
        const afterMs = Math.round(rng.next() * cleanMs);
        const running = startCli(sync(db.url), { env: { LISTMINER_CACHE: cache } });
        await new Promise((resolve) => setTimeout(resolve, afterMs));
        running.child.kill('SIGKILL');
        const killed = await running.exited;
        log.push(`point ${n}: killed after ${afterMs} ms${killed.signal ? '' : ' (it had already finished)'}`);
        const again = await startCli(sync(db.url), { env: { LISTMINER_CACHE: cache } }).exited;
        const where = `point ${n} (${afterMs} of ${cleanMs} ms), seed ${random.seed}`;
        expect(again.code, `${where}: ${again.stderr}`).toBe(0);
        const after = await digestStore(db.url);
        expectAsClean(after, clean, where, [
          'staged',
          'classes',
          'threadRoots',
          'bodies',
          'contributors',
          'projected',
          'issues',
        ]);
        await db.drop();
      }
      console.log(`sync killed on ${dialect}: clean sync ${cleanMs} ms\n  ${log.join('\n  ')}`);
    },
    TIMEOUT_MS,
  );
});
