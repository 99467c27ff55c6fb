import { beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from './cli.js';
import type { TestDatabase } from './databases.js';
import { describeOnDialectDatabases } from './describe-on-dialects.js';

interface ListRow {
  name: string;
  system: string;
  counts: { staged: number; drained: number; deferred: number; shunted: number };
}

/**
 * fetch → classify → drain, as a cron entry would chain them, on two lists:
 * Apache mail (a folder of mbox files, with a repo) and kernel mail (a
 * Maildir, without a repo until the last case).
 */
export function describePipeline(title: string, archives: () => { apache: string; lkml: string }, skip?: string): void {
  describeOnDialectDatabases(
    title,
    (databases) => {
      let apacheArchive: string;
      let lkmlArchive: string;
      let db: TestDatabase;
      const cli = (args: string[]) => runCliJson<Record<string, unknown>>([...args, '--db', db.url]);
      const lists = async () => (await runCliJson<{ lists: ListRow[] }>(['lists', 'ls', '--db', db.url])).json.lists;
      const tableCounts = async () => {
        const store = await openStore(db.url);
        try {
          const count = async (table: string) =>
            Number((await store.db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n);
          return {
            email_messages: await count('email_messages'),
            message_bodies: await count('message_bodies'),
            contributors: await count('contributors'),
            staged_messages: await count('staged_messages'),
          };
        } finally {
          await store.close();
        }
      };

      beforeAll(async () => {
        ({ apache: apacheArchive, lkml: lkmlArchive } = archives());
        db = await databases.create();
        expect(
          (
            await runCli([
              'lists',
              'add',
              '--system',
              'mbox',
              '--rules',
              'apache_ponymail',
              apacheArchive,
              '--repo',
              'https://github.com/apache/incubator-ponymail-foal',
              '--db',
              db.url,
            ])
          ).code,
        ).toBe(0);
        expect((await runCli(['lists', 'add', '--system', 'maildir', lkmlArchive, '--db', db.url])).code).toBe(0);
      });

      it('accounts for every staged message as drained, deferred or shunted, per list', async () => {
        const fetch = await cli(['fetch', '--full']);
        expect(fetch.code, fetch.stderr).toBe(0);
        const classify = await cli(['classify']);
        expect(classify.code, classify.stderr).toBe(0);
        const drain = await cli(['drain']);
        expect(drain.code, drain.stderr).toBe(0);

        const rows = await lists();
        expect(rows).toHaveLength(2);
        for (const row of rows) {
          expect(row.counts.staged, row.name).toBeGreaterThan(0);
          expect(row.counts.drained + row.counts.deferred + row.counts.shunted, row.name).toBe(row.counts.staged);
        }
        const apache = rows.find((r) => r.system === 'mbox')!;
        const lkml = rows.find((r) => r.system === 'maildir')!;
        expect(apache.counts.deferred).toBe(0);
        expect(lkml.counts.drained).toBe(0); // no repo yet: its mail waits
        expect(lkml.counts.deferred).toBe(lkml.counts.staged);
        expect((await tableCounts()).email_messages).toBe(apache.counts.drained);
      });

      it('changes nothing when every stage runs again', async () => {
        // lastRunAt records that fetch ran; everything else must stay as it was.
        const snapshot = async () => ({
          lists: (await lists()).map(({ lastRunAt: _, ...rest }: ListRow & { lastRunAt?: string }) => rest),
          tables: await tableCounts(),
        });
        const before = await snapshot();
        for (const stage of [['fetch', '--full', '--now'], ['classify'], ['drain']]) {
          const run = await cli(stage);
          expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
        }
        expect(await snapshot()).toEqual(before);
      });

      it('drains deferred mail once the list has a repo, without fetching again', async () => {
        const before = await tableCounts();
        expect(
          (
            await runCli([
              'lists',
              'add',
              '--system',
              'maildir',
              lkmlArchive,
              '--repo',
              'https://github.com/torvalds/linux',
              '--db',
              db.url,
            ])
          ).code,
        ).toBe(0);
        const drain = await cli(['drain']);
        expect(drain.code, drain.stderr).toBe(0);
        const lkml = (await lists()).find((r) => r.system === 'maildir')!;
        expect(lkml.counts.deferred).toBe(0);
        expect(lkml.counts.drained + lkml.counts.shunted).toBe(lkml.counts.staged);
        const after = await tableCounts();
        expect(after.staged_messages).toBe(before.staged_messages);
        expect(after.email_messages).toBe(before.email_messages + lkml.counts.drained);
      });
    },
    { skip },
  );
}
