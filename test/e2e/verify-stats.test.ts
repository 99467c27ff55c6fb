import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import type { StatsResult } from '../../src/core/stats/collect-stats.js';
import type { VerifyResult } from '../../src/core/verify/verify-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

// Six messages over three months: a Jira event, a patch, its review, and a threaded discussion.
const MBOX = fileURLToPath(new URL('../fixtures/report/dev.mbox', import.meta.url));
const KAFKA = 'https://github.com/apache/kafka';
// An mbox list expects no class of itself (systems.yaml); this store asks for the three the fixture holds.
const CONFIG = join(mkdtempSync(join(tmpdir(), 'listminer-verify-')), 'listminer.yaml');
writeFileSync(CONFIG, 'verify_expects:\n  mbox: [issue_event, patch_submission, review]\n');

describeOnDialectDatabases('verify and stats on $dialect', (databases) => {
  let db: TestDatabase;
  const cli = (args: string[]) => runCli([...args, '--db', db.url, '--config', CONFIG]);
  const cliJson = <T>(args: string[]) => runCliJson<T>([...args, '--db', db.url, '--config', CONFIG]);
  async function sql<T>(
    fn: (q: (text: string, params?: unknown[]) => Promise<number>, run: (text: string) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const store = await openStore(db.url);
    try {
      const count = async (text: string, params: unknown[] = []) =>
        Number((await store.db.get<{ n: number }>(text, params as never[]))!.n);
      return await fn(count, async (text) => void (await store.db.run(text)));
    } finally {
      await store.close();
    }
  }
  const branch = (result: VerifyResult, name: string) => result.branches.find((b) => b.name === name)!;

  beforeAll(async () => {
    db = await databases.create();
    for (const stage of [
      ['lists', 'add', '--system', 'mbox', MBOX, '--repo', KAFKA],
      ['fetch', '--full'],
      ['classify'],
      ['drain'],
    ]) {
      const run = await cli(stage);
      expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
    }
  });

  it('stats --json gives the figures the tables hold', async () => {
    const { code, json, stderr } = await cliJson<StatsResult>(['stats']);
    expect(code, stderr).toBe(0);
    const expected = await sql(async (count) => ({
      staged: await count('SELECT COUNT(*) AS n FROM staged_messages'),
      drained: await count("SELECT COUNT(*) AS n FROM staged_messages WHERE status = 'drained'"),
      stored: await count('SELECT COUNT(*) AS n FROM email_messages'),
      months: await count('SELECT COUNT(*) AS n FROM fetched_months'),
      issueEvents: await count("SELECT COUNT(*) AS n FROM email_messages WHERE msg_class = 'issue_event'"),
      reviews: await count("SELECT COUNT(*) AS n FROM email_messages WHERE msg_class = 'review'"),
      discuss: await count("SELECT COUNT(*) AS n FROM email_messages WHERE msg_class = 'discuss'"),
      humans: await count('SELECT COUNT(*) AS n FROM email_messages WHERE is_bot = FALSE'),
      resolved: await count('SELECT COUNT(*) AS n FROM email_messages WHERE is_bot = FALSE AND sender_id IS NOT NULL'),
      captured: await count('SELECT COUNT(*) AS n FROM email_messages WHERE signaled_repo_url IS NOT NULL'),
    }));
    expect(expected).toMatchObject({ staged: 6, drained: 6, stored: 6, issueEvents: 1, reviews: 1, discuss: 3 });
    const [list] = json.lists;
    expect(json.lists).toHaveLength(1);
    expect(list).toMatchObject({
      system: 'mbox',
      name: MBOX,
      staged: expected.staged,
      drained: expected.drained,
      pending: 0,
      shunted: 0,
      monthsScanned: expected.months,
      scanComplete: true,
    });
    expect(json.totals.stored).toBe(expected.stored);
    const classes = Object.fromEntries(json.classes.map((c) => [c.msgClass, c.count]));
    expect(classes).toMatchObject({
      issue_event: expected.issueEvents,
      review: expected.reviews,
      discuss: expected.discuss,
      unclassified: 0,
    });
    expect(json.classes).toHaveLength(11);
    expect(json.classes.find((c) => c.msgClass === 'discuss')!.share).toBeCloseTo(expected.discuss / expected.stored);
    expect(json.senders).toMatchObject({ humans: expected.humans, resolved: expected.resolved });
    expect(json.signaledRepos.captured).toBe(expected.captured);
    expect(json).toMatchObject({ mirror: { count: 0 }, stuck: [], missedLinkShadows: 0, monthly: [] });
  });

  it("stats --list draws the list's messages per month", async () => {
    const json = await cliJson<StatsResult>(['stats', '--list', MBOX]);
    expect(json.json.monthly).toEqual([
      {
        listId: json.json.lists[0]!.id,
        system: 'mbox',
        name: MBOX,
        undated: 0,
        months: [
          { month: '2024-01', count: 3 },
          { month: '2024-02', count: 2 },
          { month: '2024-03', count: 1 },
        ],
      },
    ]);
    const text = await cli(['stats', '--list', MBOX]);
    expect(text.code, text.stderr).toBe(0);
    const bars = text.stdout.split('\n').filter((line) => /^2024-0\d │/.test(line));
    expect(bars).toHaveLength(3);
    const blocks = bars.map((line) => (line.match(/█/g) ?? []).length);
    expect(blocks[0]).toBeGreaterThan(blocks[1]!);
    expect(blocks[1]).toBeGreaterThan(blocks[2]!);
    // Piped, the chart is drawn 100 wide; the tables are not narrowed (docs/verify.md, Tables).
    expect(Math.max(...bars.map((line) => line.length))).toBeLessThanOrEqual(100);
  });

  it('verify --strict passes a fully covered store with every invariant holding', async () => {
    // "mailing-list only" is the outcome `project` gives mail it ties to nothing.
    const project = await cli(['project']);
    expect(project.code, project.stderr).toBe(0);
    const { code, json, stderr } = await cliJson<VerifyResult>(['verify', '--strict']);
    expect(code, stderr).toBe(0);
    expect(json.failing).toEqual([]);
    expect(json.invariants.every((i) => i.ok)).toBe(true);
    for (const name of [
      'lists',
      'backend-with-mail',
      'class:issue_event',
      'class:patch_submission',
      'class:review',
      'routing:mailing-list-only',
      'threading',
    ]) {
      expect(branch(json, name).status, name).toBe('PASS');
    }
    expect(branch(json, 'threading').count).toBe(
      await sql((count) => count('SELECT COUNT(*) AS n FROM email_messages WHERE thread_root_id <> id')),
    );
    expect(branch(json, 'routing:linked')).toMatchObject({ status: 'DEFER', weight: 'cross_system' });
    expect(branch(json, 'backend:mbox')).toMatchObject({ status: 'PASS', count: 6 });
  });

  it('verify --strict exits 3 naming the required class a store lacks; without --strict it exits 0', async () => {
    await sql(async (_, run) => run("UPDATE email_messages SET msg_class = 'discuss' WHERE msg_class = 'review'"));
    try {
      const strict = await cliJson<VerifyResult>(['verify', '--strict']);
      expect(strict.code).toBe(3);
      expect(strict.json.failing).toEqual(['class:review']);
      expect(branch(strict.json, 'class:review').requiredBy).toEqual([
        { system: 'mbox', source: 'config', file: CONFIG, lists: [MBOX] },
      ]);
      expect(strict.stderr).toContain('class:review (required by mbox (config, 1 list))');
      const text = await cli(['verify', '--strict']);
      expect(text.code).toBe(3);
      expect(text.stderr).toMatch(/Error: .*class:review/);
      expect(text.stdout).toMatch(/class:review\s+│ required\s+│ EMPTY/);
      const lenient = await cli(['verify']);
      expect(lenient.code, lenient.stderr).toBe(0);
    } finally {
      await sql(async (_, run) =>
        run("UPDATE email_messages SET msg_class = 'review' WHERE message_key = 'review-1@example.org'"),
      );
    }
  });

  it('verify --strict exits 3 on an email message duplicated by hand under another key', async () => {
    const columns =
      'list_id, message_id, staged_message_id, repo_id, sender_id, from_address, is_bot, subject, sent_at, msg_class, body_stored, projected_kind, drained_at';
    await sql(async (_, run) =>
      run(
        `INSERT INTO email_messages (message_key, ${columns}) SELECT 'copied@example.org', ${columns} FROM email_messages WHERE message_key = 'patch-1@example.org'`,
      ),
    );
    try {
      const { code, json, stderr } = await cliJson<VerifyResult>(['verify', '--strict']);
      expect(code).toBe(3);
      expect(json.failing).toContain('no-duplicate-content');
      expect(stderr).toContain('no-duplicate-content');
      expect(json.invariants.find((i) => i.name === 'no-duplicate-content')).toMatchObject({
        ok: false,
        violations: 1,
      });
    } finally {
      await sql(async (_, run) => run("DELETE FROM email_messages WHERE message_key = 'copied@example.org'"));
    }
    expect((await cli(['verify', '--strict'])).code).toBe(0);
  });

  it('verify --strict exits 3 naming one mail stored twice in two forms (its Message-ID and a variant key)', async () => {
    const columns =
      'list_id, message_id, repo_id, sender_id, from_name, from_address, is_bot, subject, in_reply_to, references_ids, sent_at, msg_class, body_stored, projected_kind, drained_at';
    const variant = 'patch-1@example.org#0123456789abcdef';
    await sql(async (_, run) => {
      await run(
        `INSERT INTO email_messages (message_key, ${columns}) SELECT '${variant}', ${columns} FROM email_messages WHERE message_key = 'patch-1@example.org'`,
      );
      await run(
        `INSERT INTO email_message_bodies (email_message_id, body_id) SELECT c.id, b.body_id FROM email_messages c, email_messages o
         JOIN email_message_bodies b ON b.email_message_id = o.id WHERE c.message_key = '${variant}' AND o.message_key = 'patch-1@example.org'`,
      );
    });
    try {
      const { code, json } = await cliJson<VerifyResult>(['verify', '--strict']);
      expect(code).toBe(3);
      expect(json.failing).toContain('no-near-duplicates');
      expect(json.invariants.find((i) => i.name === 'no-near-duplicates')).toMatchObject({
        ok: false,
        violations: 1,
        details: [expect.stringContaining(variant)],
      });
    } finally {
      await sql(async (_, run) => run(`DELETE FROM email_messages WHERE message_key = '${variant}'`));
    }
    expect((await cli(['verify', '--strict'])).code).toBe(0);
  });

  it('verify --strict exits 3 on a store whose staged row was deleted by hand', async () => {
    await sql(async (_, run) => run("DELETE FROM staged_messages WHERE message_key = 'discuss-2@example.org'"));
    const { code, json, stderr } = await cliJson<VerifyResult>(['verify', '--strict', '--list', MBOX]);
    expect(code).toBe(3);
    expect(json.failing).toEqual(['stored-staged']);
    expect(json.invariants.find((i) => i.name === 'stored-staged')!.details).toEqual([
      `mbox ${MBOX}: discuss-2@example.org`,
    ]);
    expect(stderr).toContain('stored-staged');
  });
});
