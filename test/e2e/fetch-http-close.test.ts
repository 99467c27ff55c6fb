import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { addListAt } from '../helpers/add-list-at.js';
import { runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { startPythonHttpServer } from '../helpers/folder-server.js';
import { volumeOfMonth } from '../helpers/mailman2-archive.js';
import { stagedDigests } from '../helpers/store-digest.js';
import { chunksOf, head200, startRawHttpServer, type RawHttpServer } from '../helpers/raw-http-server.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

interface ListsJson {
  lists: Array<{ name: string; failedAttempts: number; lastFailure: string | null; lastMonth: string | null }>;
}

const NOW_MONTH = monthOf(new Date());
const MONTHS = [3, 2, 1, 0].map((back) => addMonths(NOW_MONTH, -back));
const BROKEN = MONTHS[1]!;
/** Enough mail per month (about 1.5 MB) that the body outruns its reader and undici's parser pauses. */
const PER_MONTH = 400;

/** 2024-03 → 2024-March.txt, as pipermail names its monthly files. */
const fileOf = (month: string) => `${volumeOfMonth(month)}.txt`;

function monthMbox(month: string): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < PER_MONTH; i++) {
    parts.push(
      `From sender at example.org  Mon Jan  1 00:00:00 2024\n` +
        `From: sender at example.org (Sender)\nSubject: [dev] message ${i} of ${month}\n` +
        `Date: Mon, 10 Jan 2000 10:00:00 +0000\nMessage-ID: <${month}-${i}@example.org>\n\n` +
        `${`line ${i} of ${month}, long enough to be cut in the middle.\n`.repeat(60)}\n`,
    );
  }
  return Buffer.from(parts.join(''));
}

function indexPage(): Buffer {
  return Buffer.from(
    `<html><body>${MONTHS.map((m) => `<a href="${fileOf(m)}">${fileOf(m)}</a>`).join('\n')}</body></html>\n`,
  );
}

/** How the raw server answers the month under test. */
type Mode = 'length-close' | 'no-length-close' | 'chunked' | 'short-length' | 'mid-chunk' | 'no-header';

function answer(mode: Mode, body: Buffer, socket: import('node:net').Socket): void {
  switch (mode) {
    case 'length-close':
      // What HTTP/1.0 servers do: the length, then the connection closed.
      socket.end(
        Buffer.concat([
          Buffer.from(
            head200({ 'content-type': 'text/plain', 'content-length': body.length, connection: 'close' }, '1.0'),
          ),
          body,
        ]),
      );
      return;
    case 'no-length-close':
      socket.end(Buffer.concat([Buffer.from(head200({ 'content-type': 'text/plain' })), body]));
      return;
    case 'chunked':
      socket.end(
        Buffer.concat([
          Buffer.from(head200({ 'content-type': 'text/plain', 'transfer-encoding': 'chunked', connection: 'close' })),
          chunksOf(body, 16_384),
          Buffer.from('0\r\n\r\n'),
        ]),
      );
      return;
    case 'short-length':
      socket.end(
        Buffer.concat([
          Buffer.from(head200({ 'content-type': 'text/plain', 'content-length': body.length, connection: 'close' })),
          body.subarray(0, body.length >> 1),
        ]),
      );
      return;
    case 'mid-chunk': {
      const chunked = chunksOf(body, 16_384);
      socket.end(
        Buffer.concat([
          Buffer.from(head200({ 'content-type': 'text/plain', 'transfer-encoding': 'chunked' })),
          chunked.subarray(0, (chunked.length >> 1) + 7),
        ]),
      );
      return;
    }
    case 'no-header':
      socket.end();
      return;
  }
}

/** `python3 -m http.server` on a folder: a real HTTP/1.0 server that ends every reply by closing the connection. */
describeOnDialectDatabases('fetch from servers that close the connection on $dialect', (databases) => {
  let dir: string;
  let server: RawHttpServer;
  let mode: Mode;
  let clean: Map<string, string>;
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const bodies = new Map(MONTHS.map((month) => [fileOf(month), monthMbox(month)]));

  const addList = (url: string, base: string) =>
    addListAt(url, { system: 'pipermail', name: 'dev@example.org', baseUrl: base });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-close-'));
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    server = await startRawHttpServer((path, socket) => {
      const name = path.split('/').pop() ?? '';
      if (path.endsWith('/')) return answer('length-close', indexPage(), socket);
      const body = bodies.get(name);
      if (!body) return void socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      answer(name === fileOf(BROKEN) ? mode : 'length-close', body, socket);
    });
    // The months written by pipermail's own layout, for python3 -m http.server to serve.
    const folder = join(dir, 'www', 'pipermail', 'dev');
    mkdirSync(folder, { recursive: true });
    for (const [name, body] of bodies) writeFileSync(join(folder, name), body);
    // Every month sent with its length, then a close: the bytes every other run is held to.
    mode = 'length-close';
    const cleanDb = await databases.create();
    await addList(cleanDb.url, `${server.url}/pipermail/dev`);
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
    mode = 'length-close';
    db = await databases.create();
  });

  it('reads every month whole from python3 -m http.server (HTTP/1.0, each reply ended by a close)', async () => {
    const python = await startPythonHttpServer(join(dir, 'www'));
    try {
      await addList(db.url, python.url);
      const run = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', db.url], { env });
      expect(run.stderr).not.toMatch(/unexpected error/);
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done', monthsFetched: 4 });
      expect(await stagedDigests(db.url)).toEqual(clean);
    } finally {
      python.process.kill();
    }
  });

  it.each(['no-length-close', 'chunked'] as const)('stores every month whole when a month is sent %s', async (sent) => {
    mode = sent;
    await addList(db.url, `${server.url}/pipermail/dev`);
    const run = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', db.url], { env });
    expect(run.stderr).not.toMatch(/unexpected error/);
    expect(run.code, run.stderr).toBe(0);
    expect(await stagedDigests(db.url)).toEqual(clean);
  });

  it.each(['short-length', 'mid-chunk', 'no-header'] as const)(
    'fails the month as transient when it is cut (%s), records the failure, and a later run gets everything once',
    async (cut) => {
      mode = cut;
      await addList(db.url, `${server.url}/pipermail/dev`);
      const failed = await runCliJson<FetchJson>(['fetch', '--months', '4', '--db', db.url], { env });
      expect(failed.stderr).not.toMatch(/unexpected error/);
      expect(failed.code, failed.stderr).toBe(4);
      expect(failed.json.lists[0]).toMatchObject({ status: 'failed', monthsFetched: 1, error: { kind: 'transient' } });
      const listed = await runCliJson<ListsJson>(['lists', 'ls', '--db', db.url], { env });
      expect(listed.json.lists[0]).toMatchObject({
        failedAttempts: 1,
        lastFailure: expect.stringContaining(fileOf(BROKEN)),
        lastMonth: MONTHS[0],
      });
      for (const [key, digest] of await stagedDigests(db.url)) expect(clean.get(key), key).toBe(digest);

      mode = 'length-close';
      const again = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(await stagedDigests(db.url)).toEqual(clean);
    },
  );
});
