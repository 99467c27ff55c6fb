import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AddListInput } from '../../src/core/registry/register-list.js';
import { addListAt } from './add-list-at.js';
import type { Dialect, TestDatabase } from './databases.js';
import { describeOnDialectDatabases } from './describe-on-dialects.js';
import type { SeededRandom } from './seeded-random.js';
import { startCli, type CliExit } from './start-cli.js';
import { digestStore, type StoreDigest } from './store-digest.js';

export type Stage = 'fetch' | 'classify --workers 1' | 'classify --workers 2' | 'drain';
const STAGES: readonly Stage[] = ['fetch', 'classify --workers 1', 'classify --workers 2', 'drain'];

/** The arguments of a stage run, on a database. */
export function stageArgs(stage: Stage, url: string): string[] {
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

/** What a stopped and resumed pipeline must have left as the clean run did. */
const PIPELINE_TABLES = ['staged', 'classes', 'threadRoots', 'bodies', 'contributors'] as const;

/** The store after a disturbed run equals the clean run's in each of `tables`, and holds no lock. */
export function expectAsClean(
  after: StoreDigest,
  clean: StoreDigest,
  where: string,
  tables: ReadonlyArray<keyof StoreDigest> = PIPELINE_TABLES,
): void {
  expect(after.locks, where).toEqual([]);
  for (const table of tables) expect(after[table], `${where}: ${table}`).toEqual(clean[table]);
}

export interface KilledPipelineOptions {
  /** The suite's seeded random stream; each dialect forks its own. */
  random: SeededRandom;
  killPoints: Record<Dialect, number>;
  timeoutMs: number;
  /** Writes what the lists read into `dir` (when they read files of their own) and gives each list as `lists add` takes it. */
  lists(dir: string): AddListInput[];
  /** The least number of messages the clean run stages and threads. */
  leastMessages: number;
  /** Why the suite cannot run here (the corpus is missing), to skip it saying so. */
  skip?: string;
}

/**
 * Rule 1 and 2 under the worst stop there is: the built CLI killed with
 * SIGKILL at random points of every stage (fetch; classify with one and two
 * workers; drain), then run again to its end. Whatever was killed where, the
 * store must end as a clean run left it: the same staged keys, classes,
 * thread roots, bodies and contributors, and no lock left behind.
 */
export function describeKilledPipeline(title: string, options: KilledPipelineOptions): void {
  describeOnDialectDatabases(
    title,
    (databases) => {
      const { dialect } = databases;
      const rng = options.random.fork(dialect);
      const points = options.killPoints[dialect];
      let dir: string;
      /** How long each stage took in the clean run, spawn to exit. */
      const cleanMs = new Map<Stage, number>();
      let clean: Awaited<ReturnType<typeof digestStore>>;
      /** The lists registered and nothing fetched: the clean run and each scenario start from a copy of it. */
      let registered: TestDatabase;

      const env = (cache: string) => ({ LISTMINER_CACHE: cache });

      const runToEnd = async (stage: Stage, url: string, cache: string): Promise<number> => {
        const started = Date.now();
        const run = await startCli(stageArgs(stage, url), { env: env(cache) }).exited;
        expect(run.code, `${stage} did not finish cleanly:\n${run.stderr}`).toBe(0);
        return Date.now() - started;
      };

      /** Starts the stage and kills it with SIGKILL after the given time; says whether it was still running then. */
      const runAndKill = async (
        stage: Stage,
        url: string,
        cache: string,
        afterMs: number,
      ): Promise<{ landed: boolean; exit: CliExit }> => {
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
        registered = await databases.create();
        for (const list of options.lists(dir)) await addListAt(registered.url, list);
        const cleanDb = await databases.copy(registered);
        const cache = join(dir, 'cache-clean');
        cleanMs.set('fetch', await runToEnd('fetch', cleanDb.url, cache));
        cleanMs.set('classify --workers 1', await runToEnd('classify --workers 1', cleanDb.url, cache));
        cleanMs.set('drain', await runToEnd('drain', cleanDb.url, cache));
        // Same work either way: two workers are timed against the one-worker run.
        cleanMs.set('classify --workers 2', cleanMs.get('classify --workers 1')!);
        clean = await digestStore(cleanDb.url);
        expect(Object.keys(clean.staged).length).toBeGreaterThanOrEqual(options.leastMessages);
        expect(Object.keys(clean.threadRoots).length).toBeGreaterThanOrEqual(options.leastMessages);
        expect(clean.locks).toEqual([]);
        console.log(
          `${title.replace('$dialect', dialect)}: clean run ${[...cleanMs].map(([stage, ms]) => `${stage} ${ms} ms`).join(', ')}`,
        );
      }, options.timeoutMs);

      afterAll(async () => {
        rmSync(dir, { recursive: true, force: true });
      }, 120_000);

      it(
        `ends with the clean run's rows and no lock left, whichever point of fetch, classify or drain it was killed at (${points} points)`,
        async () => {
          const scenarios = planScenarios(rng, points);
          const log: string[] = [];
          let landed = 0;
          for (const [n, scenario] of scenarios.entries()) {
            const db = await databases.copy(registered);
            // A fresh cache each time: the month index of a local mbox is written during fetch, and may be killed too.
            const cache = join(dir, `cache-${n}`);
            mkdirSync(cache);
            for (const phase of ['fetch', 'classify', 'drain'] as const) {
              for (const point of scenario.filter((p) => p.stage.startsWith(phase))) {
                const afterMs = Math.round(point.at * cleanMs.get(point.stage)!);
                const outcome = await runAndKill(point.stage, db.url, cache, afterMs);
                if (outcome.landed) landed++;
                log.push(
                  `scenario ${n}: ${point.stage} killed after ${afterMs} ms${outcome.landed ? '' : ' (it had already finished)'}`,
                );
              }
              await runToEnd(
                phase === 'classify' ? rng.pick(['classify --workers 1', 'classify --workers 2'] as const) : phase,
                db.url,
                cache,
              );
            }
            const after = await digestStore(db.url);
            const where = `scenario ${n} (${scenario.map((p) => `${p.stage} at ${Math.round(p.at * 100)}%`).join(', ')}), seed ${options.random.seed}`;
            expectAsClean(after, clean, where);
            await db.drop();
          }
          console.log(
            `${title.replace('$dialect', dialect)}: ${landed} of ${points} kills landed while the stage ran\n  ${log.join('\n  ')}`,
          );
        },
        options.timeoutMs,
      );
    },
    { skip: options.skip },
  );
}
