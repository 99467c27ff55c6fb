import { decodeRaw } from '../../src/core/store/raw-codec.js';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli } from '../helpers/cli.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { corpusMailFiles } from '../helpers/corpus-mail.js';
import { countDistinctMessages, differentButSameHash } from '../helpers/distinct-messages.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { hostileMessages, toMbox, type HostileMessage } from '../helpers/hostile-mail.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { mutateBytes } from '../helpers/mutate-bytes.js';
import { suiteSeed } from '../helpers/seeded-random.js';
import { runCliMeasured, startCli } from '../helpers/start-cli.js';

/**
 * Rule 1 and 2 against mail nobody should have to read: thousands of
 * generated malformed messages and byte-mutated copies of the real corpus go
 * through fetch → classify → drain → project in the built CLI. No stage may crash or hang, no
 * stage may use more than MEMORY_LIMIT, and every message the mbox reader
 * yields must end as one row: drained, deferred or shunted.
 */

const random = suiteSeed('hostile-input', 20_240_603);
const MESSAGES = shortOrLong(10_000, 30_000);
/** PostgreSQL's batch in the short mode: smaller, to keep `npm test` within a couple of minutes there. */
const POSTGRES_MESSAGES = shortOrLong(5_000, 30_000);
// The long mode sends 40,000 ids, as real threads have; the short one keeps to 4,000 so a slow parse cannot hold up `npm test`.
const GIANT_REFERENCES = shortOrLong(4_000, 40_000);
/** Copies of each corpus mail file, each with its own mutations. */
const FUZZ_COPIES = shortOrLong(1, 5);
/** Large messages in a row, more than one classify batch of them, and their size. */
const LARGE_MESSAGES = 70;
const LARGE_MESSAGE_BYTES = shortOrLong(2, 6) * 1024 * 1024;
const MEMORY_LIMIT = 500 * 1024 * 1024;
/**
 * A hang guard, not a speed check: a stage still running after this long is
 * killed and the test fails naming it. Far above any healthy run.
 */
const STAGE_DEADLINE_MS = LONG_MODE ? 3_600_000 : 600_000;
const STAGES = [['fetch', '--full'], ['classify'], ['drain'], ['project']] as const;
const TIMEOUT_MS = STAGE_DEADLINE_MS * STAGES.length + 120_000;

/** A message's marker, hostile-<kind>-<n>; greedy, since a kind may hold digits (raw-8bit-headers). */
const MARKER = /hostile-[a-z0-9-]+-\d+\b/;
const kindOf = (marker: string) => marker.replace(/^hostile-/, '').replace(/-\d+$/, '');
const tally = (markers: Iterable<string>) => {
  const counts: Record<string, number> = {};
  for (const marker of markers) counts[kindOf(marker)] = (counts[kindOf(marker)] ?? 0) + 1;
  return counts;
};

/** What the reader made of the generated messages: how many it read, and which kinds swallowed the messages after them. */
function readerOutcome(messages: readonly HostileMessage[], read: readonly Buffer[]) {
  const alone = new Set(read.map((raw) => MARKER.exec(raw.toString('latin1'))?.[0]));
  const swallowers = read
    .map((raw) => [...raw.toString('latin1').matchAll(new RegExp(MARKER, 'g'))].map((m) => m[0]))
    .filter((markers) => new Set(markers).size > 1)
    .map((markers) => markers[0]!);
  return { read: read.length, notReadAlone: messages.filter((m) => !alone.has(m.marker)).length, swallowedTheNextMessages: tally(swallowers) };
}

describe('the mbox reader on generated malformed mail', () => {
  it(`reads each of ${MESSAGES} malformed messages back as one message`, () => {
    const messages = hostileMessages(MESSAGES, random.fork('reader'), { giantReferences: GIANT_REFERENCES });
    const read = splitMboxBuffer(toMbox(messages));
    // On failure: which kinds of message took the messages after them in, to say what broke.
    expect(readerOutcome(messages, read)).toEqual({ read: messages.length, notReadAlone: 0, swallowedTheNextMessages: {} });
  }, TIMEOUT_MS);
});

interface StageRun {
  stage: string;
  code: number | null;
  signal: string | null;
  peakMb: number;
  seconds: number;
  /** Killed at STAGE_DEADLINE_MS. */
  hung: boolean;
}

describeOnDialectDatabases('every stage on hostile input on $dialect', (databases) => {
  const { dialect } = databases;
  let dir: string;
  let db: TestDatabase;
  const env = () => ({ LISTMINER_CACHE: join(dir, 'cache') });

  /** Registers the path as an mbox list with a repo, runs every stage on it alone, and says how each went. */
  const runPipeline = async (path: string): Promise<StageRun[]> => {
    const add = await runCli(['lists', 'add', '--system', 'mbox', '--rules', 'apache_ponymail', path, '--repo', 'https://github.com/apache/kafka', '--db', db.url], { env: env() });
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
      runs.push({ stage: stage[0], code: exit.code, signal: exit.signal, peakMb: Math.round(exit.peakRssBytes / 1024 / 1024), seconds: Math.round((Date.now() - started) / 1000), hung });
      if (exit.code !== 0) console.log(`hostile-input on ${dialect}: ${stage.join(' ')} on ${path} ${hung ? `hung past ${STAGE_DEADLINE_MS / 1000} s` : `exited ${exit.code ?? exit.signal}`}:\n${exit.stderr.slice(-4000)}`);
      // The stages after a hung one would only wait on its locks.
      if (hung) break;
    }
    console.log(`hostile-input on ${dialect}: ${path}: ${runs.map((r) => `${r.stage} exit ${r.code ?? r.signal}, ${r.seconds} s, peak ${r.peakMb} MB`).join('; ')}`);
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
      const markers = rows.map((row) => MARKER.exec(decodeRaw(row.raw, row.raw_codec).toString('latin1'))?.[0]).filter((m): m is string => Boolean(m));
      const hashes = new Set((await store.db.all<{ content_hash: string }>('SELECT content_hash FROM staged_messages WHERE list_id = ?', [list.id])).map((r) => r.content_hash));
      return { count: rows.length, statuses, markers, hashes };
    } finally {
      await store.close();
    }
  };

  /** Rule 1 as counts: every different message read is drained, deferred or shunted, and nothing else. */
  const expectAccounted = (distinct: number, statuses: Record<string, number>) => {
    const { drained = 0, deferred = 0, shunted = 0, ...other } = statuses;
    expect({ in: distinct, out: drained + deferred + shunted, other }).toEqual({ in: distinct, out: distinct, other: {} });
  };

  const expectWithinBounds = (runs: StageRun[]) => {
    expect(runs.filter((r) => r.hung).map((r) => r.stage), `stages still running after ${STAGE_DEADLINE_MS / 1000} s (hung)`).toEqual([]);
    expect(runs.map((r) => [r.stage, r.code, r.signal])).toEqual(STAGES.map((stage) => [stage[0], 0, null]));
    for (const run of runs) expect(run.peakMb, `${run.stage} peak memory`).toBeLessThanOrEqual(MEMORY_LIMIT / 1024 / 1024);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-hostile-'));
    db = await databases.create();
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const count = dialect === 'postgres' ? POSTGRES_MESSAGES : MESSAGES;
  // PostgreSQL runs the generated batch in the short mode too; the corpus fuzz and the large messages there in the long mode only.
  const longOnPostgres = dialect === 'postgres' && !LONG_MODE;

  it(
    `runs ${count} generated malformed messages through every stage without a crash or a hang, under 500 MB, count in = drained + deferred + shunted`,
    async () => {
      const messages = hostileMessages(count, random.fork(`pipeline-${dialect}`), { giantReferences: GIANT_REFERENCES });
      const path = join(dir, 'hostile.mbox');
      const mbox = toMbox(messages);
      writeFileSync(path, mbox);
      const read = splitMboxBuffer(mbox);
      const distinct = countDistinctMessages(read);
      const runs = await runPipeline(path);
      const rows = await rowsOf(path);
      // Read messages that have no row of their own (merged into another), by kind.
      const own = new Set(rows.markers);
      const withoutRow = tally(read.map((raw) => MARKER.exec(raw.toString('latin1'))?.[0]).filter((m): m is string => Boolean(m) && !own.has(m!)));
      console.log(`hostile-input on ${dialect}: ${read.length} read (${distinct} different), ${rows.count} rows ${JSON.stringify(rows.statuses)}`);
      expectWithinBounds(runs);
      expect({ rows: rows.count, withoutRow }).toEqual({ rows: distinct, withoutRow: {} });
      expectAccounted(distinct, rows.statuses);
    },
    TIMEOUT_MS,
  );

  it.skipIf(Boolean(corpusMissing) || longOnPostgres)(
    `runs byte-mutated copies of every corpus mail file through every stage without a crash, under 500 MB, each read message ending drained, deferred or shunted`,
    async () => {
      const rng = random.fork(`fuzz-${dialect}`);
      const folder = join(dir, 'fuzz');
      const read: Buffer[] = [];
      for (const file of corpusMailFiles()) {
        const original = readFileSync(corpusPath(file));
        for (let copy = 0; copy < FUZZ_COPIES; copy++) {
          // Every copy opens with a From_ line, so the mbox source takes it for mail whatever the mutations did.
          const head = Buffer.from('From fuzz@example.org Mon Jan  1 00:00:00 2024\n');
          const body = original.subarray(0, 5).equals(Buffer.from('From ')) ? original.subarray(original.indexOf(0x0a) + 1) : original;
          const mutated = Buffer.concat([head, mutateBytes(body, rng, rng.int(1, 40))]);
          const target = join(folder, `${file.replace(/\//g, '__')}.${copy}`);
          mkdirSync(folder, { recursive: true });
          writeFileSync(target, mutated);
          read.push(...splitMboxBuffer(mutated));
        }
      }
      const runs = await runPipeline(folder);
      const rows = await rowsOf(folder);
      // The corpus holds some mail twice (one month as pipermail and as HyperKitty serve it): one message, one row.
      const distinct = countDistinctMessages(read);
      console.log(`hostile-input on ${dialect}: fuzzed corpus: ${read.length} read (${distinct} different), ${rows.count} rows ${JSON.stringify(rows.statuses)}`);
      expectWithinBounds(runs);
      // On failure: the read messages that have no row under their own content, as they begin.
      const unstored = read.filter((raw) => !rows.hashes.has(identifyMessage(raw).contentHash)).map((raw) => JSON.stringify(raw.toString('latin1', 0, 160)));
      // …and the different messages that share a content hash, so share a row.
      const sharingARow = differentButSameHash(read);
      expect({ rows: rows.count, unstored: unstored.slice(0, 10), sharingARow: sharingARow.slice(0, 10) }).toEqual({ rows: distinct, unstored: [], sharingARow: [] });
      expectAccounted(distinct, rows.statuses);
    },
    TIMEOUT_MS,
  );

  it.skipIf(longOnPostgres)(
    `classifies and drains ${LARGE_MESSAGES} messages of ${LARGE_MESSAGE_BYTES / 1024 / 1024} MB each under 500 MB`,
    async () => {
      const path = join(dir, 'large.mbox');
      const line = 'a long line of a large message, as a log or a generated report pastes it into a mail body\n';
      const body = line.repeat(Math.ceil(LARGE_MESSAGE_BYTES / line.length));
      const parts = Array.from(
        { length: LARGE_MESSAGES },
        (_, i) =>
          `From large@example.org Mon Jan  1 10:00:00 2024\nFrom: Large <large${i}@example.org>\nSubject: large ${i}\nMessage-ID: <large-${i}@example.org>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\n${i} ${body}\n`,
      );
      writeFileSync(path, parts.join('\n'));
      const runs = await runPipeline(path);
      const rows = await rowsOf(path);
      expectWithinBounds(runs);
      expect(rows.statuses).toEqual({ drained: LARGE_MESSAGES });
    },
    TIMEOUT_MS,
  );

  it.skipIf(Boolean(corpusMissing) || longOnPostgres)('fails the list of a truncated .mbox.gz with exit 4 and an error that names the file', async () => {
    const path = join(dir, 'truncated.mbox.gz');
    const whole = gzipSync(readFileSync(corpusPath('incubator-ponymail-foal/test/resources/users_ponymail_apache_org_2022-01.mbox')));
    writeFileSync(path, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const add = await runCli(['lists', 'add', '--system', 'mbox', '--rules', 'apache_ponymail', path, '--db', db.url], { env: env() });
    expect(add.code, add.stderr).toBe(0);
    const fetch = await runCliMeasured(['fetch', '--full', '--list', path, '--json', '--db', db.url], { env: env() });
    expect(fetch.code, fetch.stderr).toBe(4);
    const error = (JSON.parse(fetch.stdout) as { lists: Array<{ error?: { message: string } }> }).lists[0]?.error?.message ?? '';
    expect(error).toContain('truncated.mbox.gz');
  });
});
