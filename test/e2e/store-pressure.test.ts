import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type TestDatabase, queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const MESSAGES = 2000;
const SLOW = 300_000;
const GENERATOR = fileURLToPath(new URL('../../bench/generate-mbox.js', import.meta.url));
const BETTER_SQLITE3 = fileURLToPath(new URL('../../node_modules/better-sqlite3/lib/index.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'listminer-pressure-'));
const mbox = join(dir, 'dev.mbox');
const env = { LISTMINER_CACHE: join(dir, 'cache') };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  const script = `import { writeFileSync } from 'node:fs'; import { generateMbox } from ${JSON.stringify(GENERATOR)}; writeFileSync(${JSON.stringify(mbox)}, generateMbox(${MESSAGES}));`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script]);
});

const STAGED = 'SELECT message_key, status, msg_class, class_source FROM staged_messages ORDER BY message_key';
const CLASSIFIED = "SELECT COUNT(*) AS n FROM staged_messages WHERE status = 'classified'";
/** Rows a batch would have left half-written: a class without its envelope, or the other way round. */
const HALF_WRITTEN = `SELECT COUNT(*) AS n FROM staged_messages
  WHERE (status = 'classified') <> (msg_class IS NOT NULL AND EXISTS (SELECT 1 FROM staged_envelopes WHERE staged_message_id = staged_messages.id))`;

async function count(url: string, sql: string): Promise<number> {
  return Number((await queryAt<{ n: number }>(url, sql))[0]!.n);
}

async function cli(db: TestDatabase, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  return runCli([...args, '--db', db.url], { env: { ...env, ...extraEnv } });
}

async function ok(db: TestDatabase, ...args: string[]): Promise<void> {
  const result = await cli(db, args);
  expect(result.code, result.stderr).toBe(0);
}

async function registered(db: TestDatabase): Promise<void> {
  await ok(
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
}

/** The store's failure as a sentence and a hint: not a crash report. */
function expectStoreError(result: { code: number; stderr: string }, pattern: RegExp): void {
  expect(result.stderr, result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/unexpected error|report it/);
  expect(result.stderr).toMatch(/^Hint: /m);
  expect(result.code, result.stderr).toBe(1);
}

describeOnDialectDatabases('the store under pressure on $dialect', (databases) => {
  const { dialect } = databases;
  let cleanKeys: unknown;
  let cleanClassified: unknown;

  async function database(): Promise<TestDatabase> {
    const db = await databases.create();
    return db;
  }

  beforeAll(async () => {
    const db = await database();
    await registered(db);
    await ok(db, 'fetch', '--full');
    cleanKeys = await queryAt(db.url, 'SELECT message_key FROM staged_messages ORDER BY message_key');
    await ok(db, 'classify');
    cleanClassified = await queryAt(db.url, STAGED);
  }, SLOW);
  it.skipIf(dialect !== 'sqlite')(
    'SQLITE_BUSY: another process holding the write lock past the busy timeout stops classify with a sentence; nothing is half-written and a re-run completes',
    async () => {
      const db = await database();
      await registered(db);
      await ok(db, 'fetch', '--full');
      const holder = holdWriteLock(db.url);
      try {
        await holder.held;
        const result = await cli(db, ['classify'], { LISTMINER_SQLITE_BUSY_TIMEOUT: '0.5' });
        expectStoreError(
          result,
          new RegExp(
            `The SQLite database ${db.url} is locked: another process held its write lock for more than 0.5 s`,
          ),
        );
        expect(result.stderr).toMatch(/LISTMINER_SQLITE_BUSY_TIMEOUT/);
      } finally {
        await holder.release();
      }
      expect(await count(db.url, CLASSIFIED)).toBe(0);
      await ok(db, 'classify');
      expect(await queryAt(db.url, STAGED)).toEqual(cleanClassified);
    },
    SLOW,
  );

  describe.skipIf(dialect !== 'sqlite')('a full disk', () => {
    let disk: string;
    let mounted = false;
    beforeAll(() => {
      disk = join(dir, 'disk');
      mkdirSync(disk, { recursive: true });
      if (process.getuid?.() !== 0)
        return console.warn('skipping the full-disk tests: mounting a small tmpfs needs root');
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', disk]);
        mounted = true;
      } catch (error) {
        console.warn(
          `skipping the full-disk tests: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`,
        );
      }
    });
    afterAll(() => {
      if (mounted) execFileSync('umount', [disk]);
    });

    /** Shrinks the tmpfs to what it holds now plus `spareKb`. */
    function leaveSpace(spareKb: number): void {
      const stats = statfsSync(disk);
      const usedKb = Math.ceil(((stats.blocks - stats.bfree) * stats.bsize) / 1024);
      execFileSync('mount', ['-o', `remount,size=${usedKb + spareKb}k`, disk]);
    }
    const growDisk = () => execFileSync('mount', ['-o', 'remount,size=64m', disk]);

    it(
      'stops fetch with a sentence naming the file; a re-run after space is freed stages what a clean run stages',
      async (context) => {
        if (!mounted) return context.skip();
        const db: TestDatabase = {
          dialect: 'sqlite',
          url: join(disk, 'fetch.db'),
          drop: async () => rmSync(join(disk, 'fetch.db'), { force: true }),
        };
        await registered(db);
        leaveSpace(400);
        try {
          const result = await cli(db, ['fetch', '--full']);
          expectStoreError(result, new RegExp(`The disk holding the SQLite database ${db.url} is full`));
        } finally {
          growDisk();
        }
        await ok(db, 'fetch', '--full');
        expect(await queryAt(db.url, 'SELECT message_key FROM staged_messages ORDER BY message_key')).toEqual(
          cleanKeys,
        );
        expect(await queryAt(db.url, "SELECT locked_at FROM stage_locks WHERE stage = 'fetch'")).toEqual([
          { locked_at: null },
        ]);
      },
      SLOW,
    );

    it(
      'stops classify with a sentence naming the file; nothing is half-written and a re-run completes',
      async (context) => {
        if (!mounted) return context.skip();
        const db: TestDatabase = {
          dialect: 'sqlite',
          url: join(disk, 'classify.db'),
          drop: async () => rmSync(join(disk, 'classify.db'), { force: true }),
        };
        await registered(db);
        await ok(db, 'fetch', '--full');
        leaveSpace(400);
        try {
          const result = await cli(db, ['classify']);
          expectStoreError(result, new RegExp(`The disk holding the SQLite database ${db.url} is full`));
        } finally {
          growDisk();
        }
        expect(await count(db.url, CLASSIFIED)).toBeLessThan(MESSAGES);
        expect(await count(db.url, HALF_WRITTEN)).toBe(0);
        await ok(db, 'classify');
        expect(await queryAt(db.url, STAGED)).toEqual(cleanClassified);
      },
      SLOW,
    );
  });

  it.skipIf(dialect !== 'postgres')(
    'a connection terminated in the middle of a batch stops classify with a sentence; the batch is rolled back and a re-run completes',
    async () => {
      const db = await database();
      await registered(db);
      await ok(db, 'fetch', '--full');
      // Hold a lock classify's first write waits on, so its connection is killed inside that batch's transaction.
      const blocker = postgres(db.url, { max: 1, onnotice: () => {} });
      const watcher = postgres(db.url, { max: 1, onnotice: () => {} });
      try {
        await blocker.unsafe('BEGIN');
        await blocker.unsafe('LOCK TABLE staged_messages IN SHARE MODE');
        const child = spawnCli(['classify', '--db', db.url]);
        let pid: number | undefined;
        while (pid === undefined) {
          if (child.process.exitCode !== null)
            throw new Error(`classify ended before its batch could be cut:\n${child.stderr()}`);
          const rows = await watcher.unsafe(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE staged_messages%'",
          );
          pid = rows[0]?.pid as number | undefined;
          if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await watcher.unsafe('SELECT pg_terminate_backend($1)', [pid]);
        await blocker.unsafe('COMMIT');
        const code = await child.exited;
        expectStoreError(
          { code: code ?? -1, stderr: child.stderr() },
          /The connection to the database .* was lost .*nothing half-written was kept/,
        );
      } finally {
        await blocker.end();
        await watcher.end();
      }
      expect(await count(db.url, CLASSIFIED)).toBe(0);
      expect(await count(db.url, HALF_WRITTEN)).toBe(0);
      await ok(db, 'classify');
      expect(await queryAt(db.url, STAGED)).toEqual(cleanClassified);
    },
    SLOW,
  );
});

/** Another process holding SQLite's write lock until released. */
function holdWriteLock(path: string): { held: Promise<void>; release: () => Promise<void> } {
  const script = `
    const Database = require(${JSON.stringify(BETTER_SQLITE3)});
    const db = new Database(${JSON.stringify(path)});
    db.exec('BEGIN IMMEDIATE');
    db.prepare('UPDATE lists SET created_at = created_at').run();
    process.stdout.write('held\\n');
    process.stdin.on('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const held = new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    held,
    release: async () => {
      child.stdin.write('release\n');
      await exited;
    },
  };
}

function spawnCli(args: string[]): { process: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../../bin/run.js', import.meta.url)), ...args], {
    env: { ...process.env, ...env, LISTMINER_DB: '', LISTMINER_CONFIG: '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    process: child,
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    stderr: () => stderr,
  };
}
