import { expect } from 'vitest';
import type { TestDatabase } from './databases.js';
import type { SeededRandom } from './seeded-random.js';
import { startCli } from './start-cli.js';
import { digestStore, type StoreDigest } from './store-digest.js';

/** What a clean fetch left: its staged rows, and how long it ran. */
export interface CleanFetch {
  staged: StoreDigest['staged'];
  ms: number;
}

export interface KillPointsOptions {
  random: SeededRandom;
  /** Scenarios to run; each kills fetch twice in a row (the resumed run too) before running it to its end. */
  scenarios: number;
  createDb: () => Promise<TestDatabase>;
  /** Registers the lists on a fresh database; the environment its runs use (a cache folder of its own). */
  prepare: (db: TestDatabase, scenario: number) => Promise<NodeJS.ProcessEnv>;
}

const fetchArgs = (url: string) => ['fetch', '--full', '--now', '--db', url];

/** A fetch run to its end on a fresh database: the digest every killed and resumed run must end with. */
export async function cleanFetch(options: Pick<KillPointsOptions, 'createDb' | 'prepare'>): Promise<CleanFetch> {
  const db = await options.createDb();
  const env = await options.prepare(db, -1);
  const started = Date.now();
  const run = await startCli(fetchArgs(db.url), { env }).exited;
  expect(run.code, run.stderr).toBe(0);
  return { staged: (await digestStore(db.url)).staged, ms: Date.now() - started };
}

/**
 * Rules 1 and 2 under SIGKILL: per scenario, fetch killed at two seeded
 * points (shares of the clean run's time), then run to its end, must leave
 * the clean run's staged rows (keys, statuses, content hashes) and no lock.
 * Returns, for each kill that landed while fetch was still running, how
 * many messages were staged then.
 */
export async function fetchKilledAndResumed(clean: CleanFetch, options: KillPointsOptions): Promise<number[]> {
  const landed: number[] = [];
  for (let scenario = 0; scenario < options.scenarios; scenario++) {
    const db = await options.createDb();
    const env = await options.prepare(db, scenario);
    const points = [options.random.next(), options.random.next()];
    for (const share of points) {
      const running = startCli(fetchArgs(db.url), { env });
      let killed = false;
      const timer = setTimeout(() => {
        killed = running.child.exitCode === null && running.child.signalCode === null;
        running.child.kill('SIGKILL');
      }, Math.round(share * clean.ms));
      const exit = await running.exited;
      clearTimeout(timer);
      if (killed) landed.push(Object.keys((await digestStore(db.url)).staged).length);
      else expect(exit.code, `fetch failed before its kill point:\n${exit.stderr}`).toBe(0);
    }
    const last = await startCli(fetchArgs(db.url), { env }).exited;
    expect(last.code, `the resumed fetch failed (scenario ${scenario}, points ${points.join(', ')}):\n${last.stderr}`).toBe(0);
    const digest = await digestStore(db.url);
    expect(digest.staged, `scenario ${scenario}, killed at ${points.map((share) => Math.round(share * clean.ms)).join(' and ')} ms`).toEqual(clean.staged);
    expect(digest.locks).toEqual([]);
  }
  return landed;
}
