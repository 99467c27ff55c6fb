import { decodeRaw } from '../../src/core/store/raw-codec.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { openStore } from '../../src/core/store/open-store.js';
import { addListAt } from '../helpers/add-list-at.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { send } from '../helpers/archive-server.js';
import { startFaultyPonyMail, type FaultyPonyMail } from '../helpers/faulty-ponymail-server.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed } from '../helpers/seeded-random.js';
import { startCli } from '../helpers/start-cli.js';

/**
 * Rule 1 and 2 against an archive that misbehaves: fetch runs again and again
 * (`--now`) while a local Pony Mail answers a seeded share of requests with
 * 404s, 429s, 5xx, resets, cut, short and slow bodies and HTML pages. Nothing
 * it stores may be foreign or half a message; once the faults stop, one more
 * run must end with every month fetched once and exactly the messages of a
 * fault-free run.
 */

const random = suiteSeed('faults-at-the-source', 20_240_602);
const FAULT_RUNS = shortOrLong(6, 24);
const FAULT_RATE = 0.4;
const MONTH_COUNT = shortOrLong(10, 24);
const PER_MONTH = 20;
/** One fetch run may take this long before it is stopped with SIGTERM (which it must survive too). */
const RUN_LIMIT_MS = 30_000;
const TIMEOUT_MS = LONG_MODE ? 3_600_000 : 600_000;

const NOW_MONTH = monthOf(new Date());
const MONTHS = Array.from({ length: MONTH_COUNT }, (_, i) => addMonths(NOW_MONTH, i - MONTH_COUNT + 1));
/** Lists on two host names of the one server, so a host held back by a 429 or its breaker leaves the other to go on. */
const LISTS = [
  { address: 'dev@alpha.example.org', host: '127.0.0.1' },
  { address: 'users@alpha.example.org', host: '127.0.0.1' },
  { address: 'dev@beta.example.org', host: 'localhost' },
];

/** A month's mbox of a list: messages of a few kB, so a cut lands inside one. Some months hold no mail. */
function monthMbox(list: string, month: string, index: number): Buffer | undefined {
  if (index % 4 === 2) return undefined;
  const parts: string[] = [];
  for (let i = 0; i < PER_MONTH; i++) {
    const id = `${month}-${i}.${list.replace('@', '.')}`;
    parts.push(
      `From sender${i}@example.org Mon Jan  1 00:00:00 2024\n` +
        `From: Sender ${i} <sender${i}@example.org>\nTo: ${list}\nSubject: message ${i} of ${month}\n` +
        `Date: ${new Date(`${month}-10T10:00:00Z`).toUTCString().replace('GMT', '+0000')}\nMessage-ID: <${id}@example.org>\n${i > 0 ? `In-Reply-To: <${month}-0.${list.replace('@', '.')}@example.org>\n` : ''}\n` +
        `${`line ${i} of ${month} on ${list}, long enough to be cut in the middle.\n`.repeat(30)}\n`,
    );
  }
  return Buffer.from(parts.join(''));
}

interface FetchState {
  /** list|key → sha256 of the staged bytes. */
  staged: Map<string, string>;
  /** list|month of every checkpointed month. */
  months: string[];
  /** list|month → messages staged under that month. */
  perMonth: Record<string, number>;
}

async function fetchState(url: string): Promise<FetchState> {
  const store = await openStore(url);
  try {
    const stored = await store.db.all<{
      name: string;
      message_key: string;
      archive_month: string;
      raw: Buffer | Uint8Array;
      raw_codec: string | null;
    }>(
      'SELECT l.name, s.message_key, s.archive_month, r.raw, r.raw_codec FROM staged_messages s JOIN lists l ON l.id = s.list_id JOIN staged_message_raws r ON r.staged_message_id = s.id',
    );
    const rows = stored.map((row) => ({ ...row, raw: decodeRaw(row.raw, row.raw_codec) }));
    const months = await store.db.all<{ name: string; month: string }>(
      'SELECT l.name, f.month FROM fetched_months f JOIN lists l ON l.id = f.list_id',
    );
    const perMonth: Record<string, number> = {};
    for (const row of rows)
      perMonth[`${row.name}|${row.archive_month}`] = (perMonth[`${row.name}|${row.archive_month}`] ?? 0) + 1;
    return {
      staged: new Map(
        rows.map((row) => [`${row.name}|${row.message_key}`, createHash('sha256').update(row.raw).digest('hex')]),
      ),
      months: months.map((row) => `${row.name}|${row.month}`).sort(),
      perMonth,
    };
  } finally {
    await store.close();
  }
}

describeOnDialectDatabases('fetch from a Pony Mail archive injecting faults at random on $dialect', (databases) => {
  const { dialect } = databases;
  const rng = random.fork(dialect);
  let dir: string;
  let archive: FaultyPonyMail;
  let clean: FetchState;
  let cleanDb: TestDatabase;
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;

  const addLists = async (url: string) => {
    for (const list of LISTS) {
      const base = archive.server.url.replace('127.0.0.1', list.host);
      await addListAt(url, { system: 'apache_ponymail', name: list.address, baseUrl: base });
    }
  };
  /** One fetch run, stopped with SIGTERM if it is still going at the time limit. */
  const fetch = async (url: string, extra: string[] = []) => {
    const running = startCli(['fetch', '--full', '--now', ...extra, '--db', url], { env });
    let stopped = false;
    const limit = setTimeout(() => {
      stopped = true;
      running.child.kill('SIGTERM');
    }, RUN_LIMIT_MS);
    const exit = await running.exited;
    clearTimeout(limit);
    return { ...exit, stopped };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-faults-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    const content = new Map(
      LISTS.map((list) => [
        list.address,
        new Map(
          MONTHS.flatMap((month, i) => {
            const mbox = monthMbox(list.address, month, i);
            return mbox ? [[month, mbox] as const] : [];
          }),
        ),
      ]),
    );
    archive = await startFaultyPonyMail({
      archive: content,
      firstMonth: MONTHS[0]!,
      random: rng,
      faultRate: FAULT_RATE,
    });
    cleanDb = await databases.create();
    await addLists(cleanDb.url);
    const run = await fetch(cleanDb.url);
    expect(run.code, run.stderr).toBe(0);
    clean = await fetchState(cleanDb.url);
    expect(clean.staged.size).toBe(LISTS.length * [...content.values().next().value!.keys()].length * PER_MONTH);
    expect(clean.months).toHaveLength(LISTS.length * MONTHS.length);
    db = await databases.create();
    await addLists(db.url);
  }, TIMEOUT_MS);

  afterAll(async () => {
    await archive.server.close();
    await cleanDb.drop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it(
    `stores only whole messages of the archive during ${FAULT_RUNS} faulty runs, then ends with every month once and the fault-free run's messages`,
    async () => {
      archive.faulty = true;
      const log: string[] = [];
      for (let run = 0; run < FAULT_RUNS; run++) {
        const result = await fetch(db.url);
        log.push(
          `run ${run}: exit ${result.code ?? result.signal}${result.stopped ? ' (stopped at the time limit)' : ''}`,
        );
        // 0 all fetched, 4 some lists failed, 130 stopped at the time limit: never a crash.
        expect(
          { code: result.code, signal: result.signal },
          `run ${run} (seed ${random.seed}):\n${result.stderr}`,
        ).toEqual({
          code: result.stopped ? 130 : result.code === 0 ? 0 : 4,
          signal: null,
        });
        const state = await fetchState(db.url);
        for (const [key, digest] of state.staged)
          expect(clean.staged.get(key), `run ${run}: ${key} is not a message of the archive, byte for byte`).toBe(
            digest,
          );
      }
      archive.faulty = false;
      console.log(
        `faults-at-the-source on ${dialect}: ${log.join(', ')}; faults served ${JSON.stringify(archive.injected)}`,
      );

      // Ten failures in a row open a host's breaker for an hour; that hour is let pass here, as a scheduler would.
      const store = await openStore(db.url);
      try {
        const open = await store.breakers.openHosts();
        if (open.length > 0)
          console.log(`faults-at-the-source on ${dialect}: breaker open for ${open.join(', ')}; letting its hour pass`);
        await store.db.run('UPDATE circuit_breakers SET open_until = NULL');
      } finally {
        await store.close();
      }
      // Named lists are fetched even when ten failures in a row set them aside.
      const last = await fetch(
        db.url,
        LISTS.flatMap((list) => ['--list', list.address]),
      );
      expect(last.code, last.stderr).toBe(0);
      const after = await fetchState(db.url);
      expect(after.months).toEqual(clean.months);
      expect(after.perMonth).toEqual(clean.perMonth);
      expect(after.staged).toEqual(clean.staged);
    },
    TIMEOUT_MS,
  );
});

/**
 * A 429 whose Retry-After is too long to wait out fails that list and keeps
 * the host's other lists out of the rest of the run; a list of the host that
 * another worker is fetching at that moment must not sit out the wait either.
 */
describeOnDialectDatabases(
  'fetch of two lists of one host when one is told to wait an hour on $dialect',
  (databases) => {
    const { dialect } = databases;
    let dir: string;
    let db: TestDatabase;
    let archive: FaultyPonyMail;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'listminer-long-wait-'));
      const months = new Map(
        MONTHS.map((month, i) => [month, monthMbox('b@wait.example.org', month, i)!] as const).filter(
          ([, mbox]) => mbox,
        ),
      );
      archive = await startFaultyPonyMail({
        archive: new Map([['b@wait.example.org', months]]),
        firstMonth: MONTHS[0]!,
        random: random.fork(`wait-${dialect}`),
        faultRate: 0,
      });
      const hold = archive.server.handle;
      // a@ is told to come back in an hour; b@'s months come slowly, so the 429 lands while b@ is being fetched.
      archive.server.handle = async (url, response, request) => {
        if (url.searchParams.get('list') === 'a') return send(response, 429, 'slow down', { 'retry-after': '3600' });
        if (url.pathname === '/api/mbox.lua') await new Promise((resolve) => setTimeout(resolve, 200));
        return hold(url, response, request);
      };
      db = await databases.create();
      for (const address of ['a@wait.example.org', 'b@wait.example.org'])
        await addListAt(db.url, { system: 'apache_ponymail', name: address, baseUrl: archive.server.url });
    });
    afterAll(async () => {
      await archive.server.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it(
      'ends the run by itself with exit 4 instead of holding the other list for the hour',
      async () => {
        const running = startCli(['fetch', '--full', '--now', '--workers', '2', '--db', db.url], {
          env: { LISTMINER_CACHE: join(dir, 'cache') },
        });
        let stopped = false;
        const limit = setTimeout(() => {
          stopped = true;
          running.child.kill('SIGTERM');
        }, RUN_LIMIT_MS);
        const exit = await running.exited;
        clearTimeout(limit);
        expect({ code: exit.code, stoppedAtTheLimit: stopped }, exit.stderr).toEqual({
          code: 4,
          stoppedAtTheLimit: false,
        });
      },
      TIMEOUT_MS,
    );
  },
);
