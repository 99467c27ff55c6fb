import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import type { TestDatabase } from './databases.js';
import type { SeededRandom } from './seeded-random.js';
import { startCli, type RunningCli } from './start-cli.js';
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

/** Where a scenario's kills landed: the messages staged when each one struck (undefined: fetch had ended before it). */
export type KillLog = Array<number | undefined>;

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
 * Rules 1 and 2 under SIGKILL: per scenario, fetch is killed twice in a row
 * — first at a seeded share of the clean run's time (often while it still
 * talks to the server), then, resumed, once a seeded number of messages is
 * staged — and run to its end. It must leave the clean run's staged rows
 * (keys, statuses, content hashes) and no lock.
 */
export async function fetchKilledAndResumed(clean: CleanFetch, options: KillPointsOptions): Promise<KillLog> {
  const total = Object.keys(clean.staged).length;
  const log: KillLog = [];
  for (let scenario = 0; scenario < options.scenarios; scenario++) {
    const db = await options.createDb();
    const env = await options.prepare(db, scenario);
    const store = await openStore(db.url);
    const staged = async () =>
      Number((await store.db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM staged_messages'))[0]!.n);
    try {
      const afterMs = Math.round(options.random.next() * clean.ms);
      log.push(await killWhen(startCli(fetchArgs(db.url), { env }), async (elapsedMs) => elapsedMs >= afterMs, staged));
      const target = options.random.int(Math.min((await staged()) + 1, total - 1), total - 1);
      log.push(await killWhen(startCli(fetchArgs(db.url), { env }), async () => (await staged()) >= target, staged));
    } finally {
      await store.close();
    }
    const last = await startCli(fetchArgs(db.url), { env }).exited;
    expect(last.code, `the resumed fetch failed (scenario ${scenario}):\n${last.stderr}`).toBe(0);
    const digest = await digestStore(db.url);
    expect(digest.staged, `scenario ${scenario}, killed with ${log.slice(-2).join(' and ')} messages staged`).toEqual(
      clean.staged,
    );
    expect(digest.locks).toEqual([]);
  }
  return log;
}

/** Kills the run with SIGKILL as soon as `due` says so (polled every 20 ms); the messages staged then, or undefined when it ended first. */
async function killWhen(
  running: RunningCli,
  due: (elapsedMs: number) => Promise<boolean>,
  staged: () => Promise<number>,
): Promise<number | undefined> {
  const started = Date.now();
  let ended = false;
  const exit = running.exited.finally(() => (ended = true));
  while (!ended) {
    if (await due(Date.now() - started)) {
      if (ended) break;
      running.child.kill('SIGKILL');
      await exit;
      return staged();
    }
    await sleep(20);
  }
  const run = await exit;
  expect(run.code, `fetch failed before its kill point:\n${run.stderr}`).toBe(0);
  return undefined;
}
