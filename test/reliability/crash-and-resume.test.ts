import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import type { Dialect, TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { writeListMbox } from '../helpers/generated-list-mail.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed, type SeededRandom } from '../helpers/seeded-random.js';
import { startCli, type CliExit } from '../helpers/start-cli.js';
import { digestStore } from '../helpers/store-digest.js';

/**
 * Rule 1 and 2 under the worst stop there is: the built CLI killed with
 * SIGKILL at random points of every stage (fetch; classify with one and two
 * workers; drain), then run again to its end. Whatever was killed where, the
 * store must end as a clean run left it: the same staged keys, classes,
 * thread roots, bodies and contributors, and no lock left behind.
 */

const random = suiteSeed('crash-and-resume', 20_240_601);
const GENERATED_MESSAGES = shortOrLong(1200, 6000);
const KILL_POINTS: Record<Dialect, number> = { sqlite: shortOrLong(20, 60), postgres: shortOrLong(6, 24) };
const SYNC_KILL_POINTS: Record<Dialect, number> = { sqlite: shortOrLong(4, 12), postgres: shortOrLong(2, 8) };
const TIMEOUT_MS = LONG_MODE ? 3_600_000 : 600_000;

type Stage = 'fetch' | 'classify --workers 1' | 'classify --workers 2' | 'drain';
const STAGES: readonly Stage[] = ['fetch', 'classify --workers 1', 'classify --workers 2', 'drain'];

/** The arguments of a stage run, on a database. */
function stageArgs(stage: Stage, url: string): string[] {
  switch (stage) {
    case 'fetch':
      return ['fetch', '--full', '--now', '--db', url];
    case 'classify --workers 1':
      return ['classify', '--workers', '1', '--db', url];
    case 'classify --workers 2':
      return ['classify', '--workers', '2', '--db', url];
    case 'drain':
      return ['drain', '--db', url];
  }
}

interface KillPoint {
  stage: Stage;
  /** When to kill, as a share of the clean run's time for the stage. */
  at: number;
}

/** Kill points per database: two per stage, so a resumed run is killed again too. */
const POINTS_PER_SCENARIO = 2 * STAGES.length;

/** Kill points over the stages in turn, grouped into scenarios of at most two points per stage. */
function planScenarios(rng: SeededRandom, points: number): KillPoint[][] {
  const scenarios: KillPoint[][] = [];
  for (let i = 0; i < points; i++) {
    if (i % POINTS_PER_SCENARIO === 0) scenarios.push([]);
    scenarios.at(-1)!.push({ stage: STAGES[i % STAGES.length]!, at: rng.next() });
  }
  return scenarios;
}

describeOnDialectDatabases('the pipeline killed with SIGKILL at random points on $dialect', (databases) => {
  const { dialect } = databases;
  const rng = random.fork(dialect);
  let dir: string;
  let generated: string;
  /** How long each stage took in the clean run, spawn to exit. */
  const cleanMs = new Map<Stage, number>();
  let clean: Awaited<ReturnType<typeof digestStore>>;
  let cleanDb: TestDatabase;

  const env = (cache: string) => ({ LISTMINER_CACHE: cache });

  /** The lists of the run: generated list traffic, and real list archives from the corpus when it is there. */
  const registerLists = async (url: string, cache: string) => {
    const adds = [['--system', 'mbox', '--rules', 'apache_ponymail', generated, '--repo', 'https://github.com/apache/kafka']];
    if (!corpusMissing) {
      adds.push(['--system', 'mbox', '--rules', 'apache_ponymail', corpusPath('incubator-ponymail-foal/test/resources'), '--repo', 'https://github.com/apache/incubator-ponymail-foal']);
      // No repo: its mail stays deferred, which must survive a crash just as well.
      adds.push(['--system', 'mbox', corpusPath('grimoirelab-perceval/tests/data/mbox')]);
    }
    for (const add of adds) {
      const result = await runCli(['lists', 'add', ...add, '--db', url], { env: env(cache) });
      expect(result.code, result.stderr).toBe(0);
    }
  };

  const runToEnd = async (stage: Stage, url: string, cache: string): Promise<number> => {
    const started = Date.now();
    const run = await startCli(stageArgs(stage, url), { env: env(cache) }).exited;
    expect(run.code, `${stage} did not finish cleanly:\n${run.stderr}`).toBe(0);
    return Date.now() - started;
  };

  /** Starts the stage and kills it with SIGKILL after the given time; says whether it was still running then. */
  const runAndKill = async (stage: Stage, url: string, cache: string, afterMs: number): Promise<{ landed: boolean; exit: CliExit }> => {
    const running = startCli(stageArgs(stage, url), { env: env(cache) });
    let landed = false;
    const timer = setTimeout(() => {
      landed = running.child.exitCode === null && running.child.signalCode === null;
      running.child.kill('SIGKILL');
    }, afterMs);
    const exit = await running.exited;
    clearTimeout(timer);
    // A stage that ended before its kill point must have ended well.
    if (!landed) expect(exit.code, `${stage} failed before it was killed:\n${exit.stderr}`).toBe(0);
    return { landed, exit };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-crash-'));
    generated = writeListMbox(join(dir, 'generated-dev.mbox'), GENERATED_MESSAGES, { tag: 'crash' });
    cleanDb = await databases.create();
    const cache = join(dir, 'cache-clean');
    await registerLists(cleanDb.url, cache);
    cleanMs.set('fetch', await runToEnd('fetch', cleanDb.url, cache));
    cleanMs.set('classify --workers 1', await runToEnd('classify --workers 1', cleanDb.url, cache));
    cleanMs.set('drain', await runToEnd('drain', cleanDb.url, cache));
    // Same work either way: two workers are timed against the one-worker run.
    cleanMs.set('classify --workers 2', cleanMs.get('classify --workers 1')!);
    clean = await digestStore(cleanDb.url);
    expect(Object.keys(clean.staged).length).toBeGreaterThanOrEqual(GENERATED_MESSAGES);
    expect(Object.keys(clean.threadRoots).length).toBeGreaterThanOrEqual(GENERATED_MESSAGES);
    expect(clean.locks).toEqual([]);
    console.log(`crash-and-resume on ${dialect}: clean run ${[...cleanMs].map(([stage, ms]) => `${stage} ${ms} ms`).join(', ')}`);
  }, TIMEOUT_MS);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it(`ends with the clean run's rows and no lock left, whichever point of fetch, classify or drain it was killed at (${KILL_POINTS[dialect]} points)`, async () => {
    const scenarios = planScenarios(rng, KILL_POINTS[dialect]);
    const log: string[] = [];
    let landed = 0;
    for (const [n, points] of scenarios.entries()) {
      const db = await databases.create();
      // A fresh cache each time: the month index of a local mbox is written during fetch, and may be killed too.
      const cache = join(dir, `cache-${n}`);
      mkdirSync(cache);
      await registerLists(db.url, cache);
      for (const phase of ['fetch', 'classify', 'drain'] as const) {
        for (const point of points.filter((p) => p.stage.startsWith(phase))) {
          const afterMs = Math.round(point.at * cleanMs.get(point.stage)!);
          const outcome = await runAndKill(point.stage, db.url, cache, afterMs);
          if (outcome.landed) landed++;
          log.push(`scenario ${n}: ${point.stage} killed after ${afterMs} ms${outcome.landed ? '' : ' (it had already finished)'}`);
        }
        await runToEnd(phase === 'classify' ? rng.pick(['classify --workers 1', 'classify --workers 2'] as const) : phase, db.url, cache);
      }
      const after = await digestStore(db.url);
      const where = `scenario ${n} (${points.map((p) => `${p.stage} at ${Math.round(p.at * 100)}%`).join(', ')}), seed ${random.seed}`;
      expect(after.locks, where).toEqual([]);
      expect(after.staged, where).toEqual(clean.staged);
      expect(after.classes, where).toEqual(clean.classes);
      expect(after.threadRoots, where).toEqual(clean.threadRoots);
      expect(after.bodies, where).toEqual(clean.bodies);
      expect(after.contributors, where).toEqual(clean.contributors);
      await db.drop();
    }
    console.log(`crash-and-resume on ${dialect}: ${landed} of ${KILL_POINTS[dialect]} kills landed while the stage ran\n  ${log.join('\n  ')}`);
  }, TIMEOUT_MS);
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
    const add = await runCli(['lists', 'add', '--system', 'mbox', '--rules', 'apache_ponymail', generated, '--repo', 'https://github.com/apache/kafka', '--db', db.url], { env: env() });
    expect(add.code, add.stderr).toBe(0);
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
      expect({ code: exit.code, signal: exit.signal, locks }, exit.stderr).toEqual({ code: exit.code === 0 ? 0 : 130, signal: null, locks: [] });
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
  const sync = (url: string) => ['sync', mbox, '--rules', 'apache_ponymail', '--repo', 'https://github.com/apache/kafka', '--db', url];

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

  it(`ends as an uninterrupted sync did, whichever point it was killed at (${SYNC_KILL_POINTS[dialect]} points)`, async () => {
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
      expect(after.locks, where).toEqual([]);
      expect(after.staged, where).toEqual(clean.staged);
      expect(after.classes, where).toEqual(clean.classes);
      expect(after.threadRoots, where).toEqual(clean.threadRoots);
      expect(after.bodies, where).toEqual(clean.bodies);
      expect(after.contributors, where).toEqual(clean.contributors);
      expect(after.projected, where).toEqual(clean.projected);
      expect(after.issues, where).toEqual(clean.issues);
      await db.drop();
    }
    console.log(`sync killed on ${dialect}: clean sync ${cleanMs} ms\n  ${log.join('\n  ')}`);
  }, TIMEOUT_MS);
});
