import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import postgres from 'postgres';
import type { VerifyResult } from '../../src/core/verify/verify-store.js';
import { RUN_JS, runCli, runCliJson } from '../helpers/cli.js';
import { type TestDatabase, queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

/** Enough mail that every stage is still at work when the signal comes. */
const MESSAGES = 4000;
/** Whole pipelines run several times per engine on a shared machine. */
const SLOW = 300_000;
const GENERATOR = fileURLToPath(new URL('../../bench/generate-mbox.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'listminer-signals-'));
const mbox = join(dir, 'dev.mbox');
const env = { LISTMINER_CACHE: join(dir, 'cache') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  const script = `import { writeFileSync } from 'node:fs'; import { generateMbox } from ${JSON.stringify(GENERATOR)}; writeFileSync(${JSON.stringify(mbox)}, generateMbox(${MESSAGES}));`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script]);
});

async function count(url: string, sql: string): Promise<number> {
  return Number((await queryAt<{ n: number }>(url, sql))[0]!.n);
}

/** What a run leaves in the store, in a form two databases can be compared by. */
async function storeContents(url: string): Promise<unknown> {
  return {
    staged: await queryAt(
      url,
      'SELECT message_key, status, msg_class, class_source, error FROM staged_messages ORDER BY message_key',
    ),
    drained: await queryAt(
      url,
      `SELECT e.message_key, e.msg_class, e.thread_root_key, e.signaled_repo_url, c.email AS sender
       FROM email_messages e LEFT JOIN contributors c ON c.id = e.sender_id ORDER BY e.message_key`,
    ),
    bodies: await count(url, 'SELECT COUNT(*) AS n FROM message_bodies'),
    fetchedMonths: await queryAt(url, 'SELECT month FROM fetched_months ORDER BY month'),
  };
}

async function run(db: TestDatabase, ...args: string[]): Promise<void> {
  const result = await runCli([...args, '--db', db.url], { env });
  expect(result.code, result.stderr).toBe(0);
}

/**
 * Counts rows while a stage runs, on a plain read connection: opening a
 * store would queue behind the stage's writes for its migration check.
 */
async function countWhileRunning(
  db: TestDatabase,
  sql: string,
): Promise<{ count: () => Promise<number>; close: () => Promise<void> }> {
  if (db.dialect === 'sqlite') {
    const reader = new Database(db.url, { readonly: true, fileMustExist: true });
    return {
      count: async () => Number((reader.prepare(sql).get() as { n: number }).n),
      close: async () => void reader.close(),
    };
  }
  const reader = postgres(db.url, { max: 1, onnotice: () => {} });
  return { count: async () => Number((await reader.unsafe(sql))[0]!.n), close: () => reader.end() };
}

/**
 * Starts a stage, waits until `progressSql` counts `atLeast` rows (the stage
 * is mid-run), sends the signal, and returns how the process ended.
 */
async function interrupt(
  db: TestDatabase,
  stage: string[],
  signal: NodeJS.Signals,
  progressSql: string,
  atLeast: number,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [RUN_JS, ...stage, '--db', db.url], {
    env: { ...process.env, ...env, LISTMINER_DB: '', LISTMINER_CONFIG: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true, // its own process group, so SIGINT reaches it as a terminal's Ctrl-C does
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const reader = await countWhileRunning(db, progressSql);
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${stage.join(' ')} ended before it could be stopped:\n${stderr}`);
      if ((await reader.count()) >= atLeast) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await reader.close();
  }
  if (signal === 'SIGINT') process.kill(-child.pid!, signal);
  else child.kill(signal);
  return { code: await exited, stderr };
}

const CLASSIFIED = "SELECT COUNT(*) AS n FROM staged_messages WHERE status = 'classified'";
const DRAINED = 'SELECT COUNT(*) AS n FROM email_messages';
const STAGED = 'SELECT COUNT(*) AS n FROM staged_messages';
const KEYS = 'SELECT message_key FROM staged_messages ORDER BY message_key';
/** The last message people resolve has read. */
const PEOPLE_READ = "SELECT COALESCE(MAX(last_id), 0) AS n FROM people_progress WHERE name = 'mail'";
const LOCKS_HELD = 'SELECT COUNT(*) AS n FROM stage_locks WHERE locked_at IS NOT NULL OR locked_pid IS NOT NULL';

describeOnDialectDatabases('every stage stopped by a signal on $dialect', (databases) => {
  let clean: unknown;

  async function registered(): Promise<TestDatabase> {
    const db = await databases.create();
    await run(
      db,
      'lists',
      'add',
      '--system',
      'mbox',
      '--rules',
      'apache_ponymail',
      '--repo',
      'https://github.com/apache/kafka',
      mbox,
    );
    return db;
  }

  let cleanKeys: unknown;
  beforeAll(async () => {
    const db = await registered();
    await run(db, 'fetch', '--full');
    cleanKeys = await queryAt(db.url, KEYS);
    await run(db, 'classify');
    await run(db, 'drain');
    clean = await storeContents(db.url);
    expect(await count(db.url, DRAINED)).toBe(MESSAGES);
  }, SLOW);
  it(
    'fetch on SIGTERM writes what it read, releases the list, exits 130, and a re-run completes the same store',
    async () => {
      const db = await registered();
      const stopped = await interrupt(db, ['fetch', '--full'], 'SIGTERM', STAGED, 1000);
      expect(stopped.code, stopped.stderr).toBe(130);
      expect(stopped.stderr).toMatch(/Stopped by a signal: fetched .* messages staged/);
      expect(await count(db.url, STAGED)).toBeLessThan(MESSAGES);
      expect(await count(db.url, LOCKS_HELD)).toBe(0);
      await run(db, 'fetch', '--full');
      expect(await queryAt(db.url, KEYS)).toEqual(cleanKeys);
      expect(await queryAt(db.url, 'SELECT month FROM fetched_months ORDER BY month')).toEqual(
        (clean as { fetchedMonths: unknown }).fetchedMonths,
      );
    },
    SLOW,
  );

  it(
    'classify on SIGINT and drain on SIGTERM stop mid-run with exit 130, release their locks, and re-runs complete the same store',
    async () => {
      const db = await registered();
      await run(db, 'fetch', '--full');

      const classify = await interrupt(db, ['classify'], 'SIGINT', CLASSIFIED, 500);
      expect(classify.code, classify.stderr).toBe(130);
      expect(classify.stderr).toMatch(/Stopped by a signal: classified \d+/);
      expect(await count(db.url, CLASSIFIED)).toBeLessThan(MESSAGES);
      await run(db, 'classify');

      const drain = await interrupt(db, ['drain'], 'SIGTERM', DRAINED, 500);
      expect(drain.code, drain.stderr).toBe(130);
      expect(drain.stderr).toMatch(/Stopped by a signal: drained \d+ messages/);
      expect(await count(db.url, DRAINED)).toBeLessThan(MESSAGES);
      expect(await count(db.url, LOCKS_HELD)).toBe(0);
      await run(db, 'drain');
      expect(await storeContents(db.url)).toEqual(clean);
    },
    SLOW,
  );

  it(
    'people resolve on SIGINT stops after the batch of mail it is in, exits 130, and a re-run reads the rest',
    async () => {
      const db = await registered();
      for (const stage of ['fetch', 'classify', 'drain'])
        await run(db, ...(stage === 'fetch' ? [stage, '--full'] : [stage]));
      const resolve = await interrupt(db, ['people', 'resolve'], 'SIGINT', PEOPLE_READ, 1);
      expect(resolve.code, resolve.stderr).toBe(130);
      expect(resolve.stderr).toMatch(/Stopped by a signal: read \d+ messages, made \d+ merges/);
      const last = await count(db.url, 'SELECT MAX(id) AS n FROM email_messages');
      expect(await count(db.url, PEOPLE_READ)).toBeLessThan(last);
      await run(db, 'people', 'resolve');
      expect(await count(db.url, PEOPLE_READ)).toBe(last);
    },
    SLOW,
  );

  it(
    'sync stopped in its fetch, over mail a fetch left staged before, leaves nothing verify --strict calls stuck',
    async () => {
      const db = await databases.create();
      const grown = join(dir, `grown-${databases.dialect}.mbox`);
      const messages = readFileSync(mbox, 'utf8').split(/^(?=From )/m);
      const third = Math.floor(messages.length / 3);
      writeFileSync(grown, messages.slice(0, third).join(''));
      await run(db, 'sync', grown, '--rules', 'apache_ponymail', '--repo', 'https://github.com/apache/kafka');
      // cron: fetch alone; the mail waits, staged, for classify
      appendFileSync(grown, messages.slice(third, 2 * third).join(''));
      await run(db, 'fetch', '--now');
      appendFileSync(grown, messages.slice(2 * third).join(''));
      const sync = await interrupt(db, ['sync', '--now'], 'SIGTERM', STAGED, 2 * third + 200);
      expect(sync.code, sync.stderr).toBe(130);
      const verify = await runCliJson<VerifyResult>(['verify', '--strict', '--db', db.url], { env });
      expect(verify.json.failing, verify.stderr).not.toContain('no-stuck-mail');
    },
    SLOW,
  );

  it(
    'classify on SIGTERM and drain on SIGINT do the same',
    async () => {
      const db = await registered();
      await run(db, 'fetch', '--full');

      const classify = await interrupt(db, ['classify', '--workers', '2'], 'SIGTERM', CLASSIFIED, 500);
      expect(classify.code, classify.stderr).toBe(130);
      expect(classify.stderr).toMatch(/Stopped by a signal: classified \d+/);
      await run(db, 'classify');

      const drain = await interrupt(db, ['drain'], 'SIGINT', DRAINED, 500);
      expect(drain.code, drain.stderr).toBe(130);
      expect(drain.stderr).toMatch(/Stopped by a signal: drained \d+ messages/);
      expect(await count(db.url, LOCKS_HELD)).toBe(0);
      await run(db, 'drain');
      expect(await storeContents(db.url)).toEqual(clean);
    },
    SLOW,
  );
});
