import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { openStore } from '../../src/core/store/open-store.js';
import { addListAt } from '../helpers/add-list-at.js';
import { RUN_JS, runCli, runCliJson } from '../helpers/cli.js';
import { type TestDatabase, queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { kernelMail, PublicInboxArchive, withMessageId } from '../helpers/public-inbox-archive.js';
import type { FetchResult as FetchJson } from '../../src/core/fetch/fetch-lists.js';

const NOW_MONTH = monthOf(new Date());
/** A moment in the month `back` months before this one. */
const inMonth = (back: number, day = 10, hour = 12) =>
  new Date(`${addMonths(NOW_MONTH, -back)}-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`);

/** The messages of the month a fetch is stopped in: about eight batches (BATCH_MESSAGES, 512). */
const BIG_MONTH_MESSAGES = 4000;

async function stagedKeys(url: string, list: string): Promise<string[]> {
  const store = await openStore(url);
  try {
    const rows = await store.db.all<{ message_key: string }>(
      'SELECT s.message_key FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ? ORDER BY s.message_key',
      [list],
    );
    return rows.map((r) => r.message_key);
  } finally {
    await store.close();
  }
}

describeOnDialectDatabases('fetch of a public-inbox archive on $dialect', (databases) => {
  let dir: string;
  let db: TestDatabase;
  let archive: PublicInboxArchive;
  let env: NodeJS.ProcessEnv;
  const mail = kernelMail();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-fetch-'));
    db = await databases.create();
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    archive = new PublicInboxArchive(join(dir, 'archive'), 'linux-kselftest');
    const half = Math.floor(mail.length / 2);
    archive.addCommits(
      0,
      mail.slice(0, half).map((raw, i) => ({ raw, at: inMonth(3, 1 + (i % 27)) })),
    );
    archive.addCommits(1, [
      ...mail.slice(half).map((raw, i) => ({ raw, at: inMonth(2, 1 + (i % 27)) })),
      { raw: mail[0]!, at: inMonth(1, 3), kind: 'd' as const },
      { raw: mail[1]!, at: inMonth(0, 1, 0) },
    ]);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('clones every epoch through file:// and stages the whole history with its deletion', async () => {
    await addListAt(db.url, { system: 'public_inbox', name: 'linux-kselftest', baseUrl: archive.baseUrl });
    const fetch = await runCliJson<FetchJson>(['fetch', '--full', '--db', db.url], { env });
    expect(fetch.code, fetch.stderr).toBe(0);
    const [list] = fetch.json.lists;
    expect(list).toMatchObject({
      list: 'linux-kselftest',
      status: 'done',
      monthsPlanned: 4,
      monthsFetched: 4,
      seen: mail.length + 1,
      deletions: 1,
    });
    const keys = await stagedKeys(db.url, 'linux-kselftest');
    expect(keys).toHaveLength(list!.staged);
    expect(list!.staged + list!.duplicates).toBe(mail.length + 1);
    const deletions = await queryAt<{ source_ref: string }>(db.url, 'SELECT source_ref FROM archive_deletions');
    expect(deletions).toEqual([{ source_ref: `1.git/${archive.commits(1)[1]}` }]);
  });

  it('stages nothing new when the same months are fetched again', async () => {
    const before = await stagedKeys(db.url, 'linux-kselftest');
    const fetch = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(fetch.json.lists[0]).toMatchObject({ monthsFetched: 1, staged: 0 });
    expect(await stagedKeys(db.url, 'linux-kselftest')).toEqual(before);
  });

  it('picks up new mail, and a new epoch, on the next fetch without duplicating any', async () => {
    const before = await stagedKeys(db.url, 'linux-kselftest');
    const fresh = [
      withMessageId(mail[2]!, 'new-1@kernel.example'),
      withMessageId(mail[3]!, 'new-2@kernel.example'),
      withMessageId(mail[4]!, 'new-3@kernel.example'),
    ];
    archive.addCommits(1, [{ raw: fresh[0]!, at: inMonth(0, 1, 1) }]);
    archive.addCommits(2, [
      { raw: fresh[1]!, at: inMonth(0, 1, 2) },
      { raw: fresh[2]!, at: inMonth(0, 1, 3) },
      { raw: mail[1]!, at: inMonth(0, 1, 4) },
    ]);
    const fetch = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(fetch.json.lists[0]).toMatchObject({ staged: 3, duplicates: 2 });
    const after = await stagedKeys(db.url, 'linux-kselftest');
    expect(after.filter((key) => !before.includes(key)).sort()).toEqual([
      'new-1@kernel.example',
      'new-2@kernel.example',
      'new-3@kernel.example',
    ]);
  });

  it('reads a past month again when an epoch that appears late (a lagging mirror) files mail under it, and only that month', async () => {
    const late = withMessageId(mail[5]!, 'late-epoch@kernel.example');
    archive.addCommits(3, [{ raw: late, at: inMonth(2, 9) }]);
    const fetch = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(fetch.json.lists[0]).toMatchObject({
      monthsFetched: 2,
      staged: 1,
      duplicates: mail.length - Math.floor(mail.length / 2) + 5,
    });
    expect(await stagedKeys(db.url, 'linux-kselftest')).toContain('late-epoch@kernel.example');
  });

  it('prints one line per list with plain timestamps when stderr is not a terminal', async () => {
    const fetch = await runCli(['fetch', '--now', '--db', db.url], { env });
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(fetch.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ fetch: public_inbox linux-kselftest .*\(done\)$/m);
    expect(fetch.stdout).toContain('linux-kselftest');
  });

  it('exits 4 when a list fails and still fetches the others', async () => {
    await addListAt(db.url, { system: 'public_inbox', name: 'no-such-inbox', baseUrl: archive.baseUrl });
    const fetch = await runCliJson<FetchJson>(['fetch', '--now', '--db', db.url], { env });
    expect(fetch.code).toBe(4);
    expect(fetch.json.lists.map((l) => [l.list, l.status]).sort()).toEqual([
      ['linux-kselftest', 'done'],
      ['no-such-inbox', 'failed'],
    ]);
  });
});

describeOnDialectDatabases('a fetch stopped mid-month on $dialect', (databases) => {
  const bigMonth = addMonths(NOW_MONTH, -1);
  let dir: string;
  let archive: PublicInboxArchive;
  let env: Record<string, string>;
  /** The list registered and nothing fetched: each run starts from a copy of it. */
  let registered: TestDatabase;
  let clean: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-kill-'));
    const mail = kernelMail();
    archive = new PublicInboxArchive(join(dir, 'archive'), 'lkml');
    // One large month of eight batches: the stop, asked for after two, lands between two of them.
    const big = Array.from({ length: BIG_MONTH_MESSAGES }, (_, i) => ({
      raw: withMessageId(mail[i % mail.length]!, `gen-${i}@kernel.example`),
      at: inMonth(1, 1 + (i % 27), i % 24),
    }));
    archive.addCommits(0, [...mail.map((raw, i) => ({ raw, at: inMonth(2, 1 + (i % 27)) })), ...big]);
    env = { LISTMINER_CACHE: join(dir, 'cache') };
    registered = await databases.create();
    await addListAt(registered.url, { system: 'public_inbox', name: 'lkml', baseUrl: archive.baseUrl });
    clean = await databases.copy(registered);
    const cleanRun = await runCliJson<FetchJson>(['fetch', '--full', '--db', clean.url], { env });
    expect(cleanRun.code, cleanRun.stderr).toBe(0);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a fetch, waits until 1,000 messages of the large month are written, sends the signal, and returns the exit code. */
  async function stopMidMonth(db: TestDatabase, signal: NodeJS.Signals): Promise<{ code: number | null; pid: number }> {
    const child = spawn(process.execPath, [RUN_JS, 'fetch', '--full', '--quiet', '--db', db.url], {
      env: { ...process.env, ...env, LISTMINER_DB: '', LISTMINER_CONFIG: '' },
      stdio: 'ignore',
      detached: true, // its own process group, so a signal can reach the group as a terminal's Ctrl-C does
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const store = await openStore(db.url);
    try {
      for (;;) {
        const row = await store.db.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM staged_messages WHERE archive_month = ?',
          [bigMonth],
        );
        if (Number(row!.n) >= 1000) break;
        if (child.exitCode !== null) throw new Error('the fetch ended before it could be stopped');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await store.close();
    }
    // SIGINT goes to the whole group (listminer and its git processes), as Ctrl-C at a terminal does.
    if (signal === 'SIGINT') process.kill(-child.pid!, signal);
    else child.kill(signal);
    return { code: await exited, pid: child.pid! };
  }

  it('killed, then re-run, stages exactly the messages a clean run stages', async () => {
    const db = await databases.copy(registered);
    const { pid } = await stopMidMonth(db, 'SIGKILL');
    expect(await queryAt(db.url, 'SELECT month FROM fetched_months WHERE month = ?', [bigMonth])).toEqual([]);
    const [partial] = await queryAt<{ n: number }>(db.url, 'SELECT COUNT(*) AS n FROM staged_messages');
    expect(Number(partial!.n)).toBeLessThan(BIG_MONTH_MESSAGES);
    const [held] = await queryAt<{ locked_pid: number }>(
      db.url,
      "SELECT locked_pid FROM stage_locks WHERE stage = 'fetch'",
    );
    expect(Number(held!.locked_pid)).toBe(pid);

    // The dead process's lock is recovered; the month is read again from its start.
    const rerun = await runCliJson<FetchJson>(['fetch', '--full', '--db', db.url], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.json.lists[0]!.duplicates).toBeGreaterThanOrEqual(1000);
    expect(await stagedKeys(db.url, 'lkml')).toEqual(await stagedKeys(clean.url, 'lkml'));
  });

  it('on Ctrl-C exits 130, releases the list, and the next fetch resumes at the unfinished month', async () => {
    const db = await databases.copy(registered);
    const { code } = await stopMidMonth(db, 'SIGINT');
    expect(code).toBe(130);
    const [list] = await queryAt<{ locked_at: string | null; last_month: string | null; failed_attempts: number }>(
      db.url,
      "SELECT fetch_lock.locked_at, last_month, failed_attempts FROM lists LEFT JOIN stage_locks fetch_lock ON fetch_lock.list_id = lists.id AND fetch_lock.stage = 'fetch'",
    );
    expect(list).toMatchObject({ locked_at: null, last_month: addMonths(NOW_MONTH, -2) });
    expect(Number(list!.failed_attempts)).toBe(0);
    const rerun = await runCliJson<FetchJson>(['fetch', '--db', db.url], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.json.lists[0]).toMatchObject({ monthsPlanned: 2 });
    expect(await stagedKeys(db.url, 'lkml')).toEqual(await stagedKeys(clean.url, 'lkml'));
  });
});

describeOnDialectDatabases('two fetch processes on one $dialect database', (databases) => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await databases.create();
    dir = mkdtempSync(join(tmpdir(), 'listminer-two-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('never work on the same list at once and stage each message once', async () => {
    const store = await openStore(db.url);
    for (let i = 0; i < 12; i++) await store.lists.register({ system: 'public_inbox', name: `list-${i}` });
    await store.close();
    const log = join(dir, 'work.jsonl');
    const worker = fileURLToPath(new URL('./fetch-worker.mjs', import.meta.url));
    const run = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [worker, db.url, log], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('exit', resolve);
      });
    expect(await Promise.all([run(), run()])).toEqual([0, 0]);

    const work = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { list: string; pid: number; start: number; end: number });
    expect(work.map((w) => w.list).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `list-${i}`).sort());
    expect(new Set(work.map((w) => w.pid)).size).toBe(2);
    const staged = await queryAt<{ message_key: string; n: number }>(
      db.url,
      'SELECT message_key, COUNT(*) AS n FROM staged_messages GROUP BY message_key',
    );
    expect(staged).toHaveLength(48);
    expect(staged.every((row) => Number(row.n) === 1)).toBe(true);
  });
});
