import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { send, startArchiveServer, type ArchiveServer } from '../helpers/archive-server.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { volumeOfMonth } from '../helpers/mailman2-archive.js';
import { stagedDigests } from '../helpers/store-digest.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

interface Gap {
  month: string;
  failures: number;
  lastError: string;
  lastFailedAt: string;
}
interface ListsJson {
  lists: Array<{ name: string; lastMonth: string | null; scanComplete: boolean; failedAttempts: number; gaps: Gap[] }>;
}

const NOW_MONTH = monthOf(new Date());
const MONTHS = [4, 3, 2, 1, 0].map((back) => addMonths(NOW_MONTH, -back));
const BROKEN = MONTHS[1]!;
const PER_MONTH = 40;

/** 2024-03 → 2024-March.txt.gz, as pipermail names its monthly files. */
const fileOf = (month: string) => `${volumeOfMonth(month)}.txt.gz`;

function monthMbox(month: string): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < PER_MONTH; i++) {
    parts.push(
      `From sender at example.org  Mon Jan  1 00:00:00 2024\n` +
        `From: sender at example.org (Sender)\nSubject: [dev] message ${i} of ${month}\n` +
        `Date: Mon, 10 Jan 2000 10:00:00 +0000\nMessage-ID: <${month}-${i}@example.org>\n\n` +
        `${`line ${i} of ${month}: ${createHash('sha256').update(`${month}${i}`).digest('hex')}\n`.repeat(40)}\n`,
    );
  }
  return Buffer.from(parts.join(''));
}

/**
 * A Mailman 2 archive of `months` on a local server: the index links each
 * month's `.txt.gz` of PER_MONTH messages, which `answer` may answer for
 * instead (returning true when it did); the index answers 500 while
 * `indexDown` says so.
 */
function startPipermail(
  months: readonly string[],
  answer: (month: string, gzip: Buffer, response: ServerResponse) => boolean = () => false,
  indexDown: () => boolean = () => false,
): Promise<ArchiveServer> {
  const gzips = new Map(months.map((month) => [fileOf(month), { month, gzip: gzipSync(monthMbox(month)) }]));
  return startArchiveServer((url, response) => {
    if (url.pathname === '/pipermail/dev/' && indexDown()) return send(response, 500, 'the server is down');
    if (url.pathname === '/pipermail/dev/')
      return send(
        response,
        200,
        `<html><body>${months.map((m) => `<a href="${fileOf(m)}">${m}</a>`).join('\n')}</body></html>`,
        { 'content-type': 'text/html' },
      );
    const file = gzips.get(url.pathname.split('/').pop()!);
    if (!file) return send(response, 404, 'not found');
    if (!answer(file.month, file.gzip, response))
      send(response, 200, file.gzip, { 'content-type': 'application/x-gzip' });
  });
}

/** Registers the archive of `server` as the list dev@example.org in the database at `url`. */
async function addPipermailList(server: ArchiveServer, url: string, env: NodeJS.ProcessEnv): Promise<void> {
  const add = await runCli(
    ['lists', 'add', '--system', 'pipermail', 'dev@example.org', '--base-url', `${server.url}/pipermail/dev`],
    { env: { ...env, LISTMINER_DB: url } },
  );
  expect(add.code, add.stderr).toBe(0);
}

describeOnDialectDatabases('a month whose gzip is always cut short on $dialect', (databases) => {
  let dir: string;
  let server: ArchiveServer;
  let env: NodeJS.ProcessEnv;
  let clean: Map<string, string>;
  let db: TestDatabase;
  let fixed = false;
  const fetch = (...args: string[]) =>
    runCliJson<FetchJson>(['fetch', '--months', String(MONTHS.length), ...args, '--db', db.url], { env });
  const listed = async () => (await runCliJson<ListsJson>(['lists', 'ls', '--db', db.url], { env })).json.lists[0]!;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-gaps-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    server = await startPipermail(MONTHS, (month, gzip, response) => {
      if (month !== BROKEN || fixed) return false;
      // The export itself is cut short: the server sends all it has, with its true length, every time.
      send(response, 200, gzip.subarray(0, Math.floor(gzip.length * 0.6)), { 'content-type': 'application/x-gzip' });
      return true;
    });
    fixed = true;
    const cleanDb = await databases.create();
    await addPipermailList(server, cleanDb.url, env);
    const run = await runCliJson<FetchJson>(['fetch', '--months', String(MONTHS.length), '--db', cleanDb.url], { env });
    expect(run.code, run.stderr).toBe(0);
    clean = await stagedDigests(cleanDb.url);
    expect(clean.size).toBe(MONTHS.length * PER_MONTH);
    fixed = false;
    db = await databases.create();
    await addPipermailList(server, db.url, env);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the list at the month on its first two runs, as any failure', async () => {
    for (const run of [1, 2]) {
      const failed = await fetch('--now');
      expect(failed.code, failed.stderr).toBe(4);
      expect(failed.json.lists[0]).toMatchObject({
        status: 'failed',
        monthsFetched: run === 1 ? 1 : 0,
        error: { kind: 'transient' },
      });
      expect(await listed()).toMatchObject({ lastMonth: MONTHS[0], failedAttempts: run, gaps: [] });
    }
    // The intact messages before the cut are staged, each whole and once.
    const staged = await stagedDigests(db.url);
    const fromBroken = [...staged.keys()].filter((key) => key.startsWith(`${BROKEN}-`));
    expect(fromBroken.length).toBeGreaterThan(0);
    expect(fromBroken.length).toBeLessThan(PER_MONTH);
    for (const [key, digest] of staged) expect(clean.get(key), key).toBe(digest);
  });

  it('records the month as a gap on the third run and reads and checkpoints the months after it', async () => {
    const third = await fetch('--now');
    expect(third.code, third.stderr).toBe(0);
    expect(third.json.lists[0]).toMatchObject({ status: 'done', gaps: [BROKEN] });
    const list = await listed();
    expect(list).toMatchObject({ lastMonth: NOW_MONTH, scanComplete: false, failedAttempts: 0 });
    expect(list.gaps).toEqual([
      {
        month: BROKEN,
        failures: 3,
        lastError: expect.stringContaining(fileOf(BROKEN)),
        lastFailedAt: expect.any(String),
        gapSince: expect.any(String),
      },
    ]);
    const staged = await stagedDigests(db.url);
    for (const month of MONTHS.filter((m) => m !== BROKEN)) {
      for (let i = 0; i < PER_MONTH; i++) expect(staged.has(`${month}-${i}@example.org`), `${month}-${i}`).toBe(true);
    }
    for (const [key, digest] of staged) expect(clean.get(key), key).toBe(digest);

    const table = await runCli(['lists', 'ls', '--db', db.url], { env });
    expect(table.stdout).toMatch(new RegExp(`gap month[\\s\\S]*${BROKEN}`));
    const stats = await runCliJson<{ gaps: Gap[] }>(['stats', '--db', db.url], { env });
    expect(stats.json.gaps).toMatchObject([{ list: 'dev@example.org', month: BROKEN, failures: 3 }]);
    const human = await runCli(['stats', '--db', db.url], { env });
    expect(human.stdout).toContain(BROKEN);
    const verify = await runCliJson<{
      invariants: Array<{ name: string; ok: boolean; details: string[] }>;
      failing: string[];
    }>(['verify', '--db', db.url], { env });
    expect(verify.json.invariants.find((i) => i.name === 'no-fetch-gaps')).toMatchObject({
      ok: false,
      details: [expect.stringContaining(BROKEN)],
    });
    expect(verify.json.failing).toContain('no-fetch-gaps');
    const strict = await runCli(['verify', '--strict', '--db', db.url], { env });
    expect(strict.code, strict.stderr).toBe(3);
  });

  it('tries the gap again on every later run, counting its failures without failing the list', async () => {
    const fourth = await fetch();
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(fourth.json.lists[0]).toMatchObject({ status: 'done', gaps: [BROKEN] });
    expect((await listed()).gaps).toMatchObject([{ month: BROKEN, failures: 4 }]);
  });

  it('reads the gap month whole once the archive is fixed, clears the gap, and holds every message once', async () => {
    fixed = true;
    const mended = await fetch();
    expect(mended.code, mended.stderr).toBe(0);
    expect(mended.json.lists[0]).toMatchObject({ status: 'done' });
    expect(mended.json.lists[0]!.gaps ?? []).toEqual([]);
    expect(await listed()).toMatchObject({ gaps: [], scanComplete: true, lastMonth: NOW_MONTH });
    expect(await stagedDigests(db.url)).toEqual(clean);
    const verify = await runCliJson<{ invariants: Array<{ name: string; ok: boolean }> }>(['verify', '--db', db.url], {
      env,
    });
    expect(verify.json.invariants.find((i) => i.name === 'no-fetch-gaps')).toMatchObject({ ok: true });
  });
});

describeOnDialectDatabases('a --full first fetch that fails before its first checkpoint on $dialect', (databases) => {
  // Two months of history far behind the window a list never fetched starts with, and the two latest.
  const months = [30, 29, 1, 0].map((back) => addMonths(NOW_MONTH, -back));
  let dir: string;
  let server: ArchiveServer;
  let env: NodeJS.ProcessEnv;
  /** What is down: the first month's file, or the archive's index. */
  let down: 'month' | 'index' | undefined = 'month';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-first-failure-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    server = await startPipermail(
      months,
      (month, _gzip, response) => {
        if (month !== months[0] || down !== 'month') return false;
        send(response, 500, 'the server is down');
        return true;
      },
      () => down === 'index',
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const failing of ['month', 'index'] as const) {
    it(`reads the whole history on the next run when ${failing === 'month' ? 'its first month' : 'the archive index'} failed, not a recent window`, async () => {
      const db = await databases.create();
      await addPipermailList(server, db.url, env);
      down = failing;
      const failed = await runCliJson<FetchJson>(['fetch', '--full', '--db', db.url], { env });
      expect(failed.code).toBe(4);
      expect(failed.json.lists[0]).toMatchObject({ status: 'failed', monthsFetched: 0 });
      down = undefined;
      const next = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
      expect(next.code, next.stderr).toBe(0);
      expect(next.json.lists[0]).toMatchObject({ status: 'done', staged: months.length * PER_MONTH });
      expect((await stagedDigests(db.url)).size).toBe(months.length * PER_MONTH);
      // A run that reached its end: the next plain run goes on from the checkpoint.
      const after = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
      expect(after.json.lists[0]!.monthsPlanned).toBeLessThanOrEqual(2);
    });
  }
});

describeOnDialectDatabases('a month the index links that the server cannot give on $dialect', (databases) => {
  const months = [2, 1].map((back) => addMonths(NOW_MONTH, -back));
  const faulty = months[0]!;
  /** What the server answers for the faulty month's file. */
  let fault: 'missing' | 'empty' | 'binary' | 'an error page in text' | 'gzipped again' | undefined;
  let dir: string;
  let server: ArchiveServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-linked-month-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    server = await startPipermail(months, (month, gzip, response) => {
      if (month !== faulty || !fault) return false;
      if (fault === 'missing') send(response, 404, 'not found');
      else if (fault === 'empty') send(response, 200, '', { 'content-type': 'application/x-gzip' });
      else if (fault === 'an error page in text')
        send(response, 200, 'Error: 503 Backend fetch failed\nRetry later.\n', { 'content-type': 'text/plain' });
      else if (fault === 'binary')
        send(response, 200, createHash('sha512').update(month).digest().toString('latin1').repeat(40), {
          'content-type': 'text/plain',
        });
      else send(response, 200, gzipSync(gzip), { 'content-type': 'application/x-gzip' });
      return true;
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fetchInto = async (url: string, ...flags: string[]) =>
    runCliJson<FetchJson>(['fetch', '--months', '3', ...flags, '--db', url], { env });

  for (const broken of ['missing', 'empty', 'binary', 'an error page in text'] as const) {
    it(`fails the month while the file is ${broken}, stores nothing of it, and reads it whole once served`, async () => {
      const db = await databases.create();
      await addPipermailList(server, db.url, env);
      fault = broken;
      const failed = await fetchInto(db.url);
      expect(failed.code).toBe(4);
      expect(failed.json.lists[0]).toMatchObject({ status: 'failed', staged: 0, error: { kind: 'transient' } });
      expect(failed.json.lists[0]!.error!.message).toContain(fileOf(faulty));
      expect((await stagedDigests(db.url)).size).toBe(0);
      fault = undefined;
      const mended = await fetchInto(db.url, '--now');
      expect(mended.code, mended.stderr).toBe(0);
      expect([...(await stagedDigests(db.url)).keys()].filter((key) => key.startsWith(`${faulty}-`))).toHaveLength(
        PER_MONTH,
      );
      expect((await stagedDigests(db.url)).size).toBe(2 * PER_MONTH);
    });
  }

  it('reads a month file the server gzips once more', async () => {
    const db = await databases.create();
    await addPipermailList(server, db.url, env);
    fault = 'gzipped again';
    const run = await fetchInto(db.url);
    fault = undefined;
    expect(run.code, run.stderr).toBe(0);
    expect((await stagedDigests(db.url)).size).toBe(2 * PER_MONTH);
  });
});
