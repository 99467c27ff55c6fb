import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { runCli } from '../helpers/cli.js';
import { countDistinctMessages } from '../helpers/distinct-messages.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { generateListMbox } from '../helpers/generated-list-mail.js';
import { hostileMessages, toMbox, type HostileMessage } from '../helpers/hostile-mail.js';
import { hostilePipeline, MARKER, PIPELINE_TIMEOUT_MS as TIMEOUT_MS } from '../helpers/hostile-pipeline.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed } from '../helpers/seeded-random.js';
import { runCliMeasured } from '../helpers/start-cli.js';

/**
 * Rule 1 and 2 against mail nobody should have to read: thousands of
 * generated malformed messages and byte-mutated copies of the repository's
 * mail go through fetch → classify → drain → project in the built CLI
 * (hostile-pipeline.ts). No stage may crash or hang, no stage may use more
 * than 500 MB, and every message the mbox reader yields must end as one row:
 * drained, deferred or shunted. Byte-mutated copies of the real-mail corpus
 * go the same way in test/corpus/hostile-input.test.ts.
 */

const random = suiteSeed('hostile-input', 20_240_603);
const MESSAGES = shortOrLong(4_000, 30_000);
/** PostgreSQL's batch in the short mode: smaller, to keep `npm test` within its ten minutes. */
const POSTGRES_MESSAGES = shortOrLong(2_000, 30_000);
// The long mode sends 40,000 ids, as real threads have; the short one keeps to 4,000 so a slow parse cannot hold up `npm test`.
const GIANT_REFERENCES = shortOrLong(4_000, 40_000);
/** Copies of each mail file, each with its own mutations. */
const FUZZ_COPIES = shortOrLong(1, 5);
/** Generated list mail for the byte-mutation fuzz: files of this many messages each. */
const FUZZ_FILES = shortOrLong(20, 60);
const FUZZ_MESSAGES_PER_FILE = 10;
/** Large messages in a row, more than one classify batch of them, and their size. */
const LARGE_MESSAGES = 70;
const LARGE_MESSAGE_BYTES = shortOrLong(2, 6) * 1024 * 1024;

const kindOf = (marker: string) => marker.replace(/^hostile-/, '').replace(/-\d+$/, '');
const tally = (markers: Iterable<string>) => {
  const counts: Record<string, number> = {};
  for (const marker of markers) counts[kindOf(marker)] = (counts[kindOf(marker)] ?? 0) + 1;
  return counts;
};

/** The repository's own mail fixtures (not the compressed ones), and generated list traffic cut into small files. */
function repositoryMail(): Array<{ name: string; bytes: Buffer }> {
  const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
  const files = ['mbox', 'mime'].flatMap((folder) =>
    readdirSync(join(fixtures, folder))
      .filter((name) => !name.endsWith('.gz'))
      .map((name) => ({ name: `${folder}/${name}`, bytes: readFileSync(join(fixtures, folder, name)) })),
  );
  const generated = splitMboxBuffer(generateListMbox(FUZZ_FILES * FUZZ_MESSAGES_PER_FILE, { tag: 'fuzz' }));
  const separator = Buffer.from('From fuzz@example.org Mon Jan  1 00:00:00 2024\n');
  for (let n = 0; n < FUZZ_FILES; n++) {
    const messages = generated.slice(n * FUZZ_MESSAGES_PER_FILE, (n + 1) * FUZZ_MESSAGES_PER_FILE);
    files.push({
      name: `generated-${n}.mbox`,
      bytes: Buffer.concat(messages.flatMap((raw) => [separator, raw, Buffer.from('\n')])),
    });
  }
  return files;
}

/** What the reader made of the generated messages: how many it read, and which kinds swallowed the messages after them. */
function readerOutcome(messages: readonly HostileMessage[], read: readonly Buffer[]) {
  const alone = new Set(read.map((raw) => MARKER.exec(raw.toString('latin1'))?.[0]));
  const swallowers = read
    .map((raw) => [...raw.toString('latin1').matchAll(new RegExp(MARKER, 'g'))].map((m) => m[0]))
    .filter((markers) => new Set(markers).size > 1)
    .map((markers) => markers[0]!);
  return {
    read: read.length,
    notReadAlone: messages.filter((m) => !alone.has(m.marker)).length,
    swallowedTheNextMessages: tally(swallowers),
  };
}

describe('the mbox reader on generated malformed mail', () => {
  it(
    `reads each of ${MESSAGES} malformed messages back as one message`,
    () => {
      const messages = hostileMessages(MESSAGES, random.fork('reader'), { giantReferences: GIANT_REFERENCES });
      const read = splitMboxBuffer(toMbox(messages));
      // On failure: which kinds of message took the messages after them in, to say what broke.
      expect(readerOutcome(messages, read)).toEqual({
        read: messages.length,
        notReadAlone: 0,
        swallowedTheNextMessages: {},
      });
    },
    TIMEOUT_MS,
  );
});

describeOnDialectDatabases('every stage on hostile input on $dialect', (databases) => {
  const { dialect } = databases;
  const { dir, db, env, runPipeline, rowsOf, expectAccounted, expectWithinBounds, expectFuzzedFilesStored } =
    hostilePipeline(databases);

  const count = dialect === 'postgres' ? POSTGRES_MESSAGES : MESSAGES;
  // PostgreSQL runs the generated batch in the short mode too; the fuzz and the large messages there in the long mode only.
  const longOnPostgres = dialect === 'postgres' && !LONG_MODE;

  it(
    `runs ${count} generated malformed messages through every stage without a crash or a hang, under 500 MB, count in = drained + deferred + shunted`,
    async () => {
      const messages = hostileMessages(count, random.fork(`pipeline-${dialect}`), {
        giantReferences: GIANT_REFERENCES,
      });
      const path = join(dir(), 'hostile.mbox');
      const mbox = toMbox(messages);
      writeFileSync(path, mbox);
      const read = splitMboxBuffer(mbox);
      const distinct = countDistinctMessages(read);
      const runs = await runPipeline(path);
      const rows = await rowsOf(path);
      // Read messages that have no row of their own (merged into another), by kind.
      const own = new Set(rows.markers);
      const withoutRow = tally(
        read
          .map((raw) => MARKER.exec(raw.toString('latin1'))?.[0])
          .filter((m): m is string => Boolean(m) && !own.has(m!)),
      );
      console.log(
        `hostile-input on ${dialect}: ${read.length} read (${distinct} different), ${rows.count} rows ${JSON.stringify(rows.statuses)}`,
      );
      expectWithinBounds(runs);
      expect({ rows: rows.count, withoutRow }).toEqual({ rows: distinct, withoutRow: {} });
      expectAccounted(distinct, rows.statuses);
    },
    TIMEOUT_MS,
  );

  it.skipIf(longOnPostgres)(
    `runs byte-mutated copies of the repository's mail fixtures and of generated list mail through every stage without a crash, under 500 MB, each read message ending drained, deferred or shunted`,
    () => expectFuzzedFilesStored('fuzz', repositoryMail(), FUZZ_COPIES, random.fork(`fuzz-${dialect}`)),
    TIMEOUT_MS,
  );

  it.skipIf(longOnPostgres)(
    `classifies and drains ${LARGE_MESSAGES} messages of ${LARGE_MESSAGE_BYTES / 1024 / 1024} MB each under 500 MB`,
    async () => {
      const path = join(dir(), 'large.mbox');
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

  it.skipIf(longOnPostgres)(
    'fails the list of a truncated .mbox.gz with exit 4 and an error that names the file',
    async () => {
      const path = join(dir(), 'truncated.mbox.gz');
      const whole = gzipSync(generateListMbox(200, { tag: 'truncated' }));
      writeFileSync(path, whole.subarray(0, Math.floor(whole.length * 0.6)));
      const add = await runCli(
        ['lists', 'add', '--system', 'mbox', '--rules', 'apache_ponymail', path, '--db', db().url],
        { env: env() },
      );
      expect(add.code, add.stderr).toBe(0);
      const fetch = await runCliMeasured(['fetch', '--full', '--list', path, '--json', '--db', db().url], {
        env: env(),
      });
      expect(fetch.code, fetch.stderr).toBe(4);
      const error =
        (JSON.parse(fetch.stdout) as { lists: Array<{ error?: { message: string } }> }).lists[0]?.error?.message ?? '';
      expect(error).toContain('truncated.mbox.gz');
    },
  );
});
