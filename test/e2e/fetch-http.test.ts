import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { breakerOpenUntil } from '../../src/core/fetch/fetch-policy.js';
import { openStore } from '../../src/core/store/open-store.js';
import { send, sendCutOff, startArchiveServer, type ArchiveServer } from '../helpers/archive-server.js';
import { addListAt } from '../helpers/add-list-at.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { stagedDigests } from '../helpers/store-digest.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

type Behaviour = 'ok' | 'cut' | '502' | 'long-429' | 'short-429' | 'html';

const NOW_MONTH = monthOf(new Date());
/** The four months a `--months 4` fetch reads, oldest first. */
const MONTHS = [3, 2, 1, 0].map((back) => addMonths(NOW_MONTH, -back));
const BROKEN = MONTHS[1]!;
const PER_MONTH = 30;

/** A month's mbox: PER_MONTH messages of a few kB each, so a cut lands inside a message. */
function monthMbox(month: string): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < PER_MONTH; i++) {
    parts.push(
      `From sender@example.org Mon Jan  1 00:00:00 2024\n` +
        `From: Sender <sender@example.org>\nTo: dev@x.apache.org\nSubject: message ${i} of ${month}\n` +
        `Date: Mon, 10 Jan 2000 10:00:00 +0000\nMessage-ID: <${month}-${i}@example.org>\n\n` +
        `${`line ${i} of ${month}, long enough to be cut in the middle.\n`.repeat(60)}\n`,
    );
  }
  return Buffer.from(parts.join(''));
}

/** A Pony Mail API whose months misbehave as told; every other list is empty. */
function ponyMail(behaviour: Map<string, Behaviour>) {
  const served = new Map<string, number>();
  return (url: URL, response: ServerResponse) => {
    const params = url.searchParams;
    if (url.pathname === '/api/stats.lua') {
      return send(
        response,
        200,
        JSON.stringify({ firstYear: 2010, firstMonth: 1, lastYear: 2026, lastMonth: 1, hits: 0, emails: [] }),
      );
    }
    if (url.pathname !== '/api/mbox.lua') return send(response, 404, 'not found');
    const month = params.get('date') ?? '';
    if (!MONTHS.includes(month)) return send(response, 404, 'no mail');
    const body = monthMbox(month);
    const count = (served.get(month) ?? 0) + 1;
    served.set(month, count);
    switch (behaviour.get(month) ?? 'ok') {
      case 'cut':
        return sendCutOff(response, body, Math.floor(body.length / 2) + 17);
      case '502':
        return send(response, 502, 'bad gateway');
      case 'long-429':
        return send(response, 429, 'slow down', { 'retry-after': '7200' });
      case 'html':
        // A proxy's maintenance page, sent with 200 in place of the month.
        return send(
          response,
          200,
          '<!DOCTYPE html>\n<html><head><title>Service Unavailable</title></head><body>Back soon</body></html>\n',
          {
            'content-type': 'text/html; charset=utf-8',
          },
        );
      case 'short-429':
        return count % 2 === 1 ? send(response, 429, 'slow down', { 'retry-after': '1' }) : send(response, 200, body);
      default:
        return send(response, 200, body);
    }
  };
}

async function listState(
  url: string,
): Promise<{ last_month: string | null; scan_complete: unknown; retry_after: string | null; failed_attempts: number }> {
  const store = await openStore(url);
  try {
    return (await store.db.get('SELECT last_month, scan_complete, retry_after, failed_attempts FROM lists'))!;
  } finally {
    await store.close();
  }
}

describeOnDialectDatabases('fetch from a misbehaving Pony Mail archive on $dialect', (databases) => {
  let dir: string;
  let server: ArchiveServer;
  const behaviour = new Map<string, Behaviour>();
  let clean: Map<string, string>;
  /** The list registered and nothing fetched: each test fetches into a copy of it. */
  let registered: TestDatabase;
  let cleanDb: TestDatabase;
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-http-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    server = await startArchiveServer(ponyMail(behaviour));
    registered = await databases.create();
    await addListAt(registered.url, { system: 'apache_ponymail', name: 'dev@x.apache.org', baseUrl: server.url });
    cleanDb = await databases.copy(registered);
    const run = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', cleanDb.url], { env });
    expect(run.code, run.stderr).toBe(0);
    clean = await stagedDigests(cleanDb.url);
    expect(clean.size).toBe(MONTHS.length * PER_MONTH);
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    behaviour.clear();
    db = await databases.copy(registered);
  });

  it.each([
    ['a month body cut off mid-message', 'cut', 'transient'],
    ['a 502 on a month in the middle of the range', '502', 'transient'],
    ['a 429 whose Retry-After is too long to wait out', 'long-429', 'rate_limited'],
    ['an HTML page sent with 200 in place of the month', 'html', 'transient'],
  ] as const)(
    'after %s: exit 4, no checkpoint past it, and the next --now run ends with exactly the clean run’s messages',
    async (_name, fault, kind) => {
      behaviour.set(BROKEN, fault);
      const failed = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', db.url], { env });
      expect(failed.code, failed.stderr).toBe(4);
      expect(failed.json.totals.failed).toBe(1);
      expect(failed.json.lists[0]).toMatchObject({
        status: 'failed',
        monthsFetched: 1,
        monthsPlanned: 4,
        error: { kind },
      });
      const state = await listState(db.url);
      expect(state.last_month).toBe(MONTHS[0]);
      expect(Boolean(state.scan_complete)).toBe(false);
      expect(state.retry_after).not.toBeNull();
      // What was staged is a part of the clean run, byte for byte: no half message.
      for (const [key, digest] of await stagedDigests(db.url)) expect(clean.get(key), key).toBe(digest);

      behaviour.clear();
      const again = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.json.lists[0]).toMatchObject({ status: 'done' });
      expect(await stagedDigests(db.url)).toEqual(clean);
      expect((await listState(db.url)).last_month).toBe(NOW_MONTH);
    },
  );

  it('waits out a short Retry-After inside the request and finishes the month', async () => {
    behaviour.set(BROKEN, 'short-429');
    const run = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', db.url], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(await stagedDigests(db.url)).toEqual(clean);
  });

  it('does not claim a list again before the Retry-After of its 429 has passed', async () => {
    behaviour.set(BROKEN, 'long-429');
    const failed = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', db.url], { env });
    expect(failed.code, failed.stderr).toBe(4);
    const retryAfter = Date.parse(failed.json.lists[0]!.error!.retryAfter!);
    expect(retryAfter).toBeGreaterThanOrEqual(Date.now() + 7_000_000);
    expect(Date.parse((await listState(db.url)).retry_after!)).toBe(retryAfter);
  });
});

describeOnDialectDatabases('fetch while a host breaker is open on $dialect', (databases) => {
  let dir: string;
  let server: ArchiveServer;
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  let blockedHost: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-breaker-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    server = await startArchiveServer(ponyMail(new Map()));
    blockedHost = new URL(server.url).host;
    db = await databases.create();
    // One server, two host names: the breaker is per host name.
    for (const [address, base] of [
      ['dev@x.apache.org', server.url],
      ['dev@y.apache.org', server.url.replace('127.0.0.1', 'localhost')],
    ])
      await addListAt(db.url, { system: 'apache_ponymail', name: address!, baseUrl: base });
    const store = await openStore(db.url);
    try {
      for (let i = 0; i < 10; i++)
        await store.breakers.recordFailure(blockedHost, new Date(), (failures) =>
          breakerOpenUntil(failures, new Date()),
        );
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('claims nothing of the host while its breaker is open, fetches the other host, and says which lists wait', async () => {
    const run = await runCliJson<FetchJson & { breakers: Array<{ host: string; openUntil: string; lists: string[] }> }>(
      ['fetch', '--now', '--months', '2', '--db', db.url],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.lists.map((l) => [l.list, l.status])).toEqual([['dev@y.apache.org', 'done']]);
    expect(run.json.breakers).toEqual([
      { host: blockedHost, why: 'breaker', openUntil: expect.any(String), lists: ['dev@x.apache.org'] },
    ]);
    expect(server.requests.some((r) => r.includes('domain=x.apache.org'))).toBe(false);

    const human = await runCli(['fetch', '--now', '--db', db.url], { env });
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toMatch(new RegExp(`1 list of ${blockedHost} was not fetched: .*breaker is open until`));
  });

  it('reports a named list behind an open breaker as skipped for that reason, not as not due', async () => {
    const run = await runCliJson<FetchJson & { lists: Array<{ reason?: string }> }>(
      ['fetch', '--now', '--list', 'dev@x.apache.org', '--db', db.url],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.lists).toMatchObject([
      {
        list: 'dev@x.apache.org',
        status: 'skipped',
        reason: expect.stringContaining(`${blockedHost} failed 10 times in a row`),
      },
    ]);
    const human = await runCli(['fetch', '--now', '--list', 'dev@x.apache.org', '--db', db.url], { env });
    expect(human.stderr).toContain('breaker is open until');
    expect(human.stderr).not.toContain('--now fetches it anyway');
    expect(server.requests.some((r) => r.includes('domain=x.apache.org'))).toBe(false);
  });
});

describeOnDialectDatabases('fetch after a host asked for a long wait on $dialect', (databases) => {
  let dir: string;
  let server: ArchiveServer;
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-429-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    const months = ponyMail(new Map());
    server = await startArchiveServer((url, response) =>
      url.pathname === '/api/mbox.lua' && url.searchParams.get('list') === 'dev'
        ? send(response, 429, 'slow down', { 'retry-after': '7200' })
        : months(url, response),
    );
    db = await databases.create();
    for (const address of ['dev@x.apache.org', 'users@x.apache.org'])
      await addListAt(db.url, { system: 'apache_ponymail', name: address, baseUrl: server.url });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('claims no other list of that host in the run instead of waiting hours for it, and says so', async () => {
    const run = await runCliJson<FetchJson & { breakers: Array<{ host: string; why: string; lists: string[] }> }>(
      ['fetch', '--months', '2', '--workers', '1', '--db', db.url],
      { env, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(4);
    expect(run.json.lists.map((l) => [l.list, l.status])).toEqual([['dev@x.apache.org', 'failed']]);
    expect(run.json.breakers).toEqual([
      {
        host: new URL(server.url).host,
        why: 'rate_limited',
        openUntil: expect.any(String),
        lists: ['users@x.apache.org'],
      },
    ]);
    expect(server.requests.some((r) => r.includes('list=users'))).toBe(false);
  });
});
