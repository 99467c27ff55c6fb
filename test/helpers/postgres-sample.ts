import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which CLI suites (test/e2e and test/reliability: each test starts the
 * built CLI a dozen times) run their PostgreSQL variant (README, "Tests").
 * Every one runs on SQLite in `npm test`; on PostgreSQL they are as many CLI
 * runs again, which would put `npm test` far past its ten minutes on a
 * 2-core machine. So:
 * - `sample` (the default): a seeded sixteenth of these files run on
 *   PostgreSQL too, a different one each day unless LISTMINER_E2E_SEED is set;
 * - `only`: every one of them on PostgreSQL and none on SQLite
 *   (`npm run test:postgres`, a layer of its own in `.ci/run`);
 * - `all`: every one on both (`npm run test:all`).
 * The store contract and unit suites always run on both engines, and so do
 * the CLI suites that compare the engines or are written for one.
 */
type PostgresE2eMode = 'sample' | 'only' | 'all';

/** One CLI suite file in this many runs its PostgreSQL variant in `sample` mode. */
const POSTGRES_SAMPLE_ONE_IN = 16;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DAY_MS = 86_400_000;

function postgresE2eMode(): PostgresE2eMode {
  const given = process.env.LISTMINER_E2E_POSTGRES ?? 'sample';
  if (given === 'sample' || given === 'only' || given === 'all') return given;
  throw new Error(`LISTMINER_E2E_POSTGRES=${given}: give sample, only or all.`);
}

/** The sample's seed: LISTMINER_E2E_SEED when given, else the day (UTC), so the sample moves on each day and a run can be repeated. */
function postgresSampleSeed(): string {
  return process.env.LISTMINER_E2E_SEED ?? String(Math.floor(Date.now() / DAY_MS));
}

/** Whether `file` (a test file's path) is in the seed's sample. */
function inPostgresSample(file: string, seed: string): boolean {
  const digest = createHash('sha256')
    .update(`${seed}\0${relative(ROOT, file)}`)
    .digest();
  return digest.readUInt32BE(0) % POSTGRES_SAMPLE_ONE_IN === 0;
}

/**
 * Why `dialect`'s run of the CLI suite file `file` is skipped in this run,
 * or undefined when it runs. Files outside test/e2e and test/reliability
 * always run on both; an `unsampled` suite (one that compares the engines,
 * or is written for one) runs on PostgreSQL in every run.
 */
export function e2eDialectSkip(
  file: string | undefined,
  dialect: 'sqlite' | 'postgres',
  unsampled: boolean,
): string | undefined {
  if (!file || !/[/\\]test[/\\](e2e|reliability)[/\\]/.test(file)) return undefined;
  const mode = postgresE2eMode();
  if (mode === 'all') return undefined;
  if (mode === 'only')
    return dialect === 'sqlite' ? 'LISTMINER_E2E_POSTGRES=only runs the PostgreSQL variants alone' : undefined;
  if (dialect === 'sqlite' || unsampled) return undefined;
  const seed = postgresSampleSeed();
  if (inPostgresSample(file, seed)) return undefined;
  return (
    `not in this run's PostgreSQL sample (one CLI suite file in ${POSTGRES_SAMPLE_ONE_IN}, LISTMINER_E2E_SEED=${seed}); ` +
    '`npm run test:postgres` runs every one on PostgreSQL'
  );
}
