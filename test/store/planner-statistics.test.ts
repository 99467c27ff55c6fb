import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { classifyStaged } from '../../src/core/classify/classify-staged.js';
import { silentProgress } from '../../src/core/progress.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, createTestStore, postgresSkipReason, queryAt } from '../helpers/databases.js';
import { writeListMbox } from '../helpers/generated-list-mail.js';
import { mail } from '../helpers/stage-classified.js';

const MESSAGES = 6_000;

/**
 * Classify moves every staged row of a list from 'staged' to 'classified'.
 * Fetch left PostgreSQL's statistics saying every row is staged; planning
 * drain's batch read (status 'classified', in id order) from them, the server
 * expected one row, took the (status, list_id) index and sorted every
 * classified row of the list once per batch: drain of 100,000 messages spent
 * about 6 of its 18 s of server time so. Classify refreshes them as it goes.
 */
if (postgresSkipReason) console.warn(`skipping the planner statistics check: ${postgresSkipReason}`);

describe.skipIf(Boolean(postgresSkipReason))('planner statistics of staged mail on PostgreSQL', () => {
  it('after classify, the planner expects the classified rows drain will read', async () => {
    const store = await createTestStore('postgres');
    try {
      const listId = (
        await store.lists.register({
          system: 'apache_ponymail',
          name: 'dev@kafka.apache.org',
          listAddress: 'dev@kafka.apache.org',
        })
      ).list.id;
      for (let start = 0; start < MESSAGES; start += 1_000) {
        const batch = Array.from({ length: 1_000 }, (_, i) => {
          const raw = mail({
            From: 'Jane <jane@example.org>',
            Subject: `question ${start + i}`,
            Date: 'Mon, 1 Jan 2024 10:00:00 +0000',
            'Message-ID': `<q${start + i}@example.org>`,
          });
          return { raw, ...identifyMessage(raw) };
        });
        await store.staging.stageBatch(listId, '2024-01', batch);
      }
      await store.db.run('ANALYZE staged_messages'); // as fetch leaves them: every row staged

      const result = await classifyStaged(store, loadSystems(), { workers: 1 }, silentProgress);
      expect(result.classified).toBe(MESSAGES);

      // The rows the planner expects the drain read to find: before, 1 of 6,000.
      const [plan] = await store.db.all<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
        `EXPLAIN (FORMAT JSON) SELECT id FROM staged_messages WHERE list_id = ${listId} AND status = 'classified'`,
      );
      expect(plan!['QUERY PLAN'][0].Plan['Plan Rows']).toBeGreaterThan(MESSAGES / 2);
    } finally {
      await store.dropDatabase();
    }
  });

  /**
   * Project fills issue_email_messages from nothing. Planned for the empty
   * table, the lookup of a batch's links by message read the whole table, and
   * the issue mail read with it: project of 1,000,000 messages spent most of
   * its 835 s so, its statements taking 48 ms where 0.3 ms does.
   */
  it('after project, the planner knows how many issue links there are', async () => {
    const db = await createTestDatabase('postgres');
    const dir = mkdtempSync(join(tmpdir(), 'listminer-statistics-'));
    try {
      const mbox = writeListMbox(join(dir, 'dev.mbox'), MESSAGES, { tag: 'stats' });
      const env = { LISTMINER_CACHE: join(dir, 'cache') };
      const sync = await runCli(
        ['sync', mbox, '--rules', 'apache_ponymail', '--repo', 'https://github.com/apache/kafka', '--db', db.url],
        { env },
      );
      expect(sync.code, sync.stderr).toBe(0);
      const [links] = await queryAt<{ n: number; planned: number }>(
        db.url,
        "SELECT COUNT(*) AS n, (SELECT reltuples FROM pg_class WHERE relname = 'issue_email_messages') AS planned FROM issue_email_messages",
      );
      expect(Number(links!.n)).toBeGreaterThan(500);
      // Before: -1, never counted.
      expect(Number(links!.planned)).toBeGreaterThan(Number(links!.n) / 2);
      // Every table project fills is counted once it ends, however little it wrote: export, verify and render plan from them next.
      const counted = await queryAt<{ relname: string; reltuples: number }>(
        db.url,
        "SELECT relname, reltuples FROM pg_class WHERE relname IN ('patch_series', 'issues', 'issue_email_messages', 'pull_request_email_messages') ORDER BY relname",
      );
      expect(counted.filter((row) => Number(row.reltuples) < 0)).toEqual([]);
      // The run's refreshes name the columns its statements look rows up by (every one exists, or sync would have failed).
      const analyzed = await queryAt<{ tablename: string; attname: string }>(
        db.url,
        "SELECT tablename, attname FROM pg_stats WHERE tablename IN ('staged_messages', 'email_messages')",
      );
      expect(analyzed.map((row) => `${row.tablename}.${row.attname}`)).toEqual(
        expect.arrayContaining([
          'staged_messages.status',
          'email_messages.message_key',
          'email_messages.thread_root_id',
        ]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
