import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import type { StatsResult } from '../../src/core/stats/collect-stats.js';
import { openStore } from '../../src/core/store/open-store.js';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import type { VerifyResult } from '../../src/core/verify/verify-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const APACHE = `${EXAMPLES}quarry-dev.mbox`;
const KERNEL = `${EXAMPLES}kernel-net.mbox`;

/** Every row of the tables the pipeline writes, in a stable order. */
const TABLES: Record<string, string> = {
  lists: 'id',
  fetched_months: 'list_id, month',
  staged_messages: 'id',
  email_messages: 'id',
  message_bodies: 'id',
  contributors: 'id',
  identities: 'id',
  person_merges: 'id',
  issues: 'id',
  issue_email_messages: 'issue_id, email_message_id',
  pull_request_email_messages: 'pull_request_id, email_message_id',
  patch_series: 'id',
  stage_locks: 'list_id, stage',
};

describeOnDialectDatabases('sync on the sample archives on $dialect', (databases) => {
  let db: TestDatabase;
  const cli = (args: string[]) => runCli([...args, '--db', db.url]);
  const cliJson = <T>(args: string[]) => runCliJson<T>([...args, '--db', db.url]);
  async function withDb<T>(fn: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
    const store = await openStore(db.url);
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  }
  const count = (sql: string) => withDb(async (store) => Number((await store.db.get<{ n: number }>(sql))!.n));
  const snapshot = () =>
    withDb(async (store) => {
      const out: Record<string, unknown[]> = {};
      for (const [table, order] of Object.entries(TABLES))
        out[table] = await store.db.all(`SELECT * FROM ${table} ORDER BY ${order}`);
      return out;
    });

  beforeAll(async () => {
    db = await databases.create();
  });

  it('registers each sample archive and runs every stage on it in one command', async () => {
    const apache = await cliJson<SyncResult>([
      'sync',
      APACHE,
      '--rules',
      'apache_ponymail',
      '--repo',
      'https://github.com/apache/quarry',
    ]);
    expect(apache.code, apache.stderr).toBe(0);
    expect(apache.json.fetch.totals).toMatchObject({ staged: 294, failed: 0 });
    expect(apache.json.classify).toMatchObject({ classified: 294, shunted: 0 });
    expect(apache.json.drain).toMatchObject({ drained: 294, deferred: 0, shunted: 0 });
    expect(apache.json.project!.created).toBeGreaterThan(0);
    expect(apache.json.project!.inherited).toBeGreaterThan(0);

    const kernel = await cliJson<SyncResult>([
      'sync',
      KERNEL,
      '--rules',
      'public_inbox',
      '--repo',
      'https://github.com/torvalds/linux',
    ]);
    expect(kernel.code, kernel.stderr).toBe(0);
    expect(kernel.json.drain).toMatchObject({ drained: 49, shunted: 0 });
    expect(kernel.json.project).toMatchObject({ created: 0, linked: 0, none: 49 });
  });

  it('gives in stats --json the figures the tables hold', async () => {
    const { code, json, stderr } = await cliJson<StatsResult>(['stats']);
    expect(code, stderr).toBe(0);
    expect(json.totals).toMatchObject({
      staged: await count('SELECT COUNT(*) AS n FROM staged_messages'),
      drained: await count("SELECT COUNT(*) AS n FROM staged_messages WHERE status = 'drained'"),
      stored: await count('SELECT COUNT(*) AS n FROM email_messages'),
      pending: 0,
    });
    for (const { msgClass, count: n } of json.classes) {
      expect(n, msgClass).toBe(await count(`SELECT COUNT(*) AS n FROM email_messages WHERE msg_class = '${msgClass}'`));
    }
    const monthsOf = (name: string) => json.lists.find((list) => list.name === name)!.monthsScanned;
    expect(monthsOf(APACHE) + monthsOf(KERNEL)).toBe(await count('SELECT COUNT(*) AS n FROM fetched_months'));
  });

  it('passes verify --strict', async () => {
    const { code, json, stderr } = await cliJson<VerifyResult>(['verify', '--strict']);
    expect(code, stderr).toBe(0);
    expect(json.failing).toEqual([]);
    expect(json.branches.find((b) => b.name === 'pr-equivalents')!.status).toBe('PASS');
  });

  it('changes nothing when run again', async () => {
    const before = await snapshot();
    const again = await cli(['sync', '--now']);
    expect(again.code, again.stderr).toBe(0);
    const after = await snapshot();
    // A fetch run again re-reads the current month and notes when it ran; nothing else moves.
    const timeless = (rows: Record<string, unknown[]>) => ({
      ...rows,
      lists: rows.lists!.map((row) => ({ ...(row as object), last_run_at: null })),
      fetched_months: rows.fetched_months!.map((row) => ({ ...(row as object), fetched_at: null })),
    });
    expect(timeless(after)).toEqual(timeless(before));
  });

  it('refuses --repo without a PATH, as a usage error', async () => {
    const refused = await cli(['sync', '--repo', 'https://github.com/apache/quarry']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--rules and --repo go with a PATH.');
  });
});
