import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { openStore } from '../../src/core/store/open-store.js';
import { decodeRaw } from '../../src/core/store/raw-codec.js';
import { runCli } from './cli.js';
import type { TestDatabase } from './databases.js';
import type { DialectDatabases } from './describe-on-dialects.js';
import { countDistinctMessages, differentButSameHash, messagesWithoutRow } from './distinct-messages.js';
import { LONG_MODE } from './long-mode.js';
import { mutateBytes } from './mutate-bytes.js';
import type { SeededRandom } from './seeded-random.js';
import { startCli } from './start-cli.js';

/** When the mutated archives were last written: long enough ago that no mail program is appending to them. */
const AT_REST = new Date('2024-06-01T00:00:00Z');
/** Every stage a hostile list goes through, in order. */
export const STAGES = [['fetch', '--full'], ['classify'], ['drain'], ['project']] as const;
export const MEMORY_LIMIT = 500 * 1024 * 1024;
/**
 * A hang guard, not a speed check: a stage still running after this long is
 * killed and the test fails naming it. Far above any healthy run.
 */
export const STAGE_DEADLINE_MS = LONG_MODE ? 3_600_000 : 600_000;
export const PIPELINE_TIMEOUT_MS = STAGE_DEADLINE_MS * STAGES.length + 120_000;

/** A message's marker, hostile-<kind>-<n>; greedy, since a kind may hold digits (raw-8bit-headers). */
export const MARKER = /hostile-[a-z0-9-]+-\d+\b/;

interface StageRun {
  stage: string;
  code: number | null;
  signal: string | null;
  peakMb: number;
  seconds: number;
  /** Killed at STAGE_DEADLINE_MS. */
  hung: boolean;
}

/**
 * The pipeline of a hostile-input suite on one dialect: a database and a
 * folder for the suite (made in beforeAll, dropped in afterAll), each list
 * run through every stage of the built CLI, and the checks of rule 1 on what
 * it left.
 */
export function hostilePipeline(databases: DialectDatabases) {
  const { dialect } = databases;
  let dir: string;
  let db: TestDatabase;
  const env = () => ({ LISTMINER_CACHE: join(dir, 'cache') });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-hostile-'));
    db = await databases.create();
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  /** Registers the path as an mbox list with a repo, runs every stage on it alone, and says how each went. */
  const runPipeline = async (path: string): Promise<StageRun[]> => {
    const add = await runCli(
      [
        'lists',
        'add',
        '--system',
        'mbox',
        '--rules',
        'apache_ponymail',
        path,
        '--repo',
        'https://github.com/apache/kafka',
        '--db',
        db.url,
      ],
      { env: env() },
    );
    expect(add.code, add.stderr).toBe(0);
    const runs: StageRun[] = [];
    for (const stage of STAGES) {
      const started = Date.now();
      const running = startCli([...stage, '--list', path, '--db', db.url], { env: env() });
      let hung = false;
      const deadline = setTimeout(() => {
        hung = true;
        running.child.kill('SIGKILL');
      }, STAGE_DEADLINE_MS);
      const exit = await running.exited.finally(() => clearTimeout(deadline));
      runs.push({
        stage: stage[0],
        code: exit.code,
        signal: exit.signal,
        peakMb: Math.round(exit.peakRssBytes / 1024 / 1024),
        seconds: Math.round((Date.now() - started) / 1000),
        hung,
      });
      if (exit.code !== 0)
        console.log(
          `hostile-input on ${dialect}: ${stage.join(' ')} on ${path} ${hung ? `hung past ${STAGE_DEADLINE_MS / 1000} s` : `exited ${exit.code ?? exit.signal}`}:\n${exit.stderr.slice(-4000)}`,
        );
      // The stages after a hung one would only wait on its locks.
      if (hung) break;
    }
    console.log(
      `hostile-input on ${dialect}: ${path}: ${runs.map((r) => `${r.stage} exit ${r.code ?? r.signal}, ${r.seconds} s, peak ${r.peakMb} MB`).join('; ')}`,
    );
    return runs;
  };

  /** Rows of the list by status, and the first hostile marker of each row. */
  const rowsOf = async (path: string) => {
    const store = await openStore(db.url);
    try {
      const list = (await store.lists.byName('mbox', path))!;
      const rows = await store.db.all<{ status: string; raw: Buffer | Uint8Array; raw_codec: string | null }>(
        'SELECT status, raw, raw_codec FROM staged_messages JOIN staged_message_raws ON staged_message_id = id WHERE list_id = ?',
        [list.id],
      );
      const statuses: Record<string, number> = {};
      for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
      const markers = rows
        .map((row) => MARKER.exec(decodeRaw(row.raw, row.raw_codec).toString('latin1'))?.[0])
        .filter((m): m is string => Boolean(m));
      const hashes = new Set(
        (
          await store.db.all<{ content_hash: string }>('SELECT content_hash FROM staged_messages WHERE list_id = ?', [
            list.id,
          ])
        ).map((r) => r.content_hash),
      );
      return { count: rows.length, statuses, markers, hashes };
    } finally {
      await store.close();
    }
  };

  /** Rule 1 as counts: every different message read is drained, deferred or shunted, and nothing else. */
  const expectAccounted = (distinct: number, statuses: Record<string, number>) => {
    const { drained = 0, deferred = 0, shunted = 0, ...other } = statuses;
    expect({ in: distinct, out: drained + deferred + shunted, other }).toEqual({
      in: distinct,
      out: distinct,
      other: {},
    });
  };

  const expectWithinBounds = (runs: StageRun[]) => {
    expect(
      runs.filter((r) => r.hung).map((r) => r.stage),
      `stages still running after ${STAGE_DEADLINE_MS / 1000} s (hung)`,
    ).toEqual([]);
    expect(runs.map((r) => [r.stage, r.code, r.signal])).toEqual(STAGES.map((stage) => [stage[0], 0, null]));
    for (const run of runs)
      expect(run.peakMb, `${run.stage} peak memory`).toBeLessThanOrEqual(MEMORY_LIMIT / 1024 / 1024);
  };

  /**
   * Writes `copies` byte-mutated copies of each mail file into a folder of
   * its own, runs the folder through every stage, and checks that each
   * message the reader yields ends as a row of its own content: drained,
   * deferred or shunted.
   */
  const expectFuzzedFilesStored = async (
    name: string,
    files: ReadonlyArray<{ name: string; bytes: Buffer }>,
    copies: number,
    rng: SeededRandom,
  ) => {
    const folder = join(dir, name);
    mkdirSync(folder, { recursive: true });
    const read: Buffer[] = [];
    for (const file of files) {
      for (let copy = 0; copy < copies; copy++) {
        // Every copy opens with a From_ line, so the mbox source takes it for mail whatever the mutations did.
        const head = Buffer.from('From fuzz@example.org Mon Jan  1 00:00:00 2024\n');
        const original = file.bytes;
        const body = original.subarray(0, 5).equals(Buffer.from('From '))
          ? original.subarray(original.indexOf(0x0a) + 1)
          : original;
        const mutated = Buffer.concat([head, mutateBytes(body, rng, rng.int(1, 40))]);
        const path = join(folder, `${file.name.replace(/\//g, '__')}.${copy}`);
        writeFileSync(path, mutated);
        // Archives at rest: a file that ends inside a line and was written a moment ago is one still being appended to.
        utimesSync(path, AT_REST, AT_REST);
        read.push(...splitMboxBuffer(mutated));
      }
    }
    const runs = await runPipeline(folder);
    const rows = await rowsOf(folder);
    // Some mail is there twice (one month as pipermail and as HyperKitty serve it): one message, one row.
    const distinct = countDistinctMessages(read);
    console.log(
      `hostile-input on ${dialect}: fuzzed ${name}: ${read.length} read (${distinct} different), ${rows.count} rows ${JSON.stringify(rows.statuses)}`,
    );
    expectWithinBounds(runs);
    // On failure: the read messages that no row stands for, as they begin.
    const unstored = messagesWithoutRow(read, rows.hashes);
    // …and the different messages that share a content hash, so share a row.
    const sharingARow = differentButSameHash(read);
    expect({ rows: rows.count, unstored: unstored.slice(0, 10), sharingARow: sharingARow.slice(0, 10) }).toEqual({
      rows: distinct,
      unstored: [],
      sharingARow: [],
    });
    expectAccounted(distinct, rows.statuses);
  };

  return {
    dir: () => dir,
    db: () => db,
    env,
    runPipeline,
    rowsOf,
    expectAccounted,
    expectWithinBounds,
    expectFuzzedFilesStored,
  };
}
