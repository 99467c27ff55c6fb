import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { exportResearchTables, type ExportManifest } from '../../src/core/export/export-research-tables.js';
import type { ProgressEvent } from '../../src/core/progress.js';
import { openStore } from '../../src/core/store/open-store.js';
import { RUN_JS, runCli } from '../helpers/cli.js';
import { queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { KERNEL, QUARRY } from '../helpers/sample-lists.js';

type Row = Record<string, unknown>;

async function readJsonl(dir: string, file: string): Promise<Row[]> {
  const text = await readFile(join(dir, file), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Row);
}

/** How many rows of `rows` carry each value of `key` (nulls left out). */
function tally(rows: readonly Row[], key: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const row of rows) {
    if (row[key] === null) continue;
    const value = Number(row[key]);
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

describeOnDialectDatabases('an export while another process writes the store, on $dialect', (databases) => {
  it('reads every table at one moment: mail synced between two batches is in no file, and the files agree', async () => {
    const db = await databases.create();
    const first = await runCli([
      'sync',
      QUARRY,
      '--rules',
      'apache_ponymail',
      '--repo',
      'https://github.com/apache/quarry',
      '--db',
      db.url,
      '--quiet',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const before = Number((await queryAt<{ n: unknown }>(db.url, 'SELECT COUNT(*) AS n FROM email_messages'))[0]!.n);
    expect(before).toBe(294);

    const out = await mkdtemp(join(tmpdir(), 'listminer-export-moment-'));
    const store = await openStore(db.url);
    let written: ReturnType<typeof spawnSync> | undefined;
    try {
      // After the first batch of threads, and before the second, another process syncs a second list to the end:
      // synchronously, so the export goes on only once that mail is committed.
      const progress = (event: ProgressEvent) => {
        if (written || event.type !== 'update' || event.task !== 'threads.jsonl') return;
        written = spawnSync(
          process.execPath,
          [
            RUN_JS,
            'sync',
            KERNEL,
            '--rules',
            'public_inbox',
            '--repo',
            'https://github.com/torvalds/linux',
            '--db',
            db.url,
            '--quiet',
          ],
          { env: { ...process.env, LISTMINER_DB: '', LISTMINER_CONFIG: '' }, encoding: 'utf8', timeout: 120_000 },
        );
      };
      await exportResearchTables(store, { format: 'jsonl', outDir: out, version: '0.0.0', batchSize: 5 }, progress);
    } finally {
      await store.close();
    }
    expect(written, 'the export read threads in more than one batch').toBeDefined();
    expect(written!.status, String(written!.stderr)).toBe(0);
    // The writer was not kept waiting: its mail is in the store.
    const after = Number((await queryAt<{ n: unknown }>(db.url, 'SELECT COUNT(*) AS n FROM email_messages'))[0]!.n);
    expect(after).toBe(294 + 49);

    const messages = await readJsonl(out, 'email_messages.jsonl');
    const threads = await readJsonl(out, 'threads.jsonl');
    const senders = await readJsonl(out, 'senders.jsonl');
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as ExportManifest;
    await rm(out, { recursive: true, force: true });

    expect(messages).toHaveLength(before);
    expect(manifest.files.find((file) => file.table === 'email_messages')!.rows).toBe(before);
    // Messages per thread, and per sender, as email_messages.jsonl holds them.
    const perThread = tally(messages, 'thread_root_id');
    expect(new Map(threads.map((row) => [Number(row.thread_root_id), Number(row.message_count)]))).toEqual(perThread);
    const perSender = tally(messages, 'sender_id');
    expect(
      new Map(
        senders
          .filter((row) => row.contributor_id !== null)
          .map((row) => [Number(row.contributor_id), Number(row.message_count)]),
      ),
    ).toEqual(perSender);
    const bots = messages.filter((row) => row.is_bot === true).length;
    expect(senders.filter((row) => row.is_bot === true).reduce((sum, row) => sum + Number(row.message_count), 0)).toBe(
      bots,
    );
  });
});
