import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { openStore } from '../../src/core/store/open-store.js';
import { BUNDLED_SYSTEMS } from '../../src/core/systems/load-systems.js';
import { runCli, runCliJson } from './cli.js';
import type { TestDatabase } from './databases.js';
import { describeOnDialectDatabases } from './describe-on-dialects.js';

interface ClassifyJson {
  classified: number;
  shunted: number;
  changed: number;
  classes: Record<string, number>;
  lists: { list: string; rules: string; classified: number }[];
}

/**
 * `listminer classify` end to end on two lists (Apache mail under the
 * apache_ponymail rules, kernel mail under public_inbox's), each fed its
 * files' messages: counts, a second run, --reclassify with changed rules,
 * worker threads, and the summary for humans. At least `least` patches and
 * reviews must be found.
 */
export function describeClassifyRuns(
  title: string,
  mail: { apache: Buffer[][]; kernel: Buffer[][] },
  least: { patches: number; reviews: number },
  skip?: string,
): void {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-classify-runs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describeOnDialectDatabases(
    title,
    (databases) => {
      let db: TestDatabase;
      let staged = 0;
      beforeAll(async () => {
        db = await databases.create();
        const store = await openStore(db.url);
        try {
          const apache = (
            await store.lists.register({
              system: 'apache_ponymail',
              name: 'dev@kafka.apache.org',
              listAddress: 'dev@kafka.apache.org',
            })
          ).list.id;
          const kernel = (await store.lists.register({ system: 'public_inbox', name: 'netdev' })).list.id;
          const feed = async (listId: number, files: Buffer[][]) => {
            for (const file of files)
              staged += (
                await store.staging.stageBatch(
                  listId,
                  null,
                  file.map((raw) => ({ raw, ...identifyMessage(raw) })),
                )
              ).staged;
          };
          await feed(apache, mail.apache);
          await feed(kernel, mail.kernel);
        } finally {
          await store.close();
        }
      });

      it('classifies every staged message and reports the counts', async () => {
        const run = await runCliJson<ClassifyJson>(['classify', '--db', db.url]);
        expect(run.code, run.stderr).toBe(0);
        expect(run.json.classified + run.json.shunted).toBe(staged);
        expect(run.json.classes.patch_submission).toBeGreaterThanOrEqual(least.patches);
        expect(run.json.classes.review).toBeGreaterThanOrEqual(least.reviews);
        expect(run.json.classes.issue_event).toBeGreaterThan(0);
        expect(run.json.lists.map((l) => l.rules).sort()).toEqual(['apache_ponymail', 'public_inbox']);
      });

      it('finds nothing new the second time', async () => {
        const run = await runCliJson<ClassifyJson>(['classify', '--db', db.url]);
        expect(run.json).toMatchObject({ classified: 0, shunted: 0 });
      });

      it('re-labels stored mail with changed rules and reports how many changed class', async () => {
        const reviews = (await runCliJson<ClassifyJson>(['classify', '--db', db.url, '--reclassify'])).json;
        expect(reviews.changed).toBe(0);
        const copy = join(dir, `changed-${databases.dialect}.yaml`);
        // Every rule that gives review (patch-reply and patch-reply-unprefixed) now gives discuss.
        writeFileSync(
          copy,
          readFileSync(BUNDLED_SYSTEMS, 'utf8').replaceAll('        class: review\n', '        class: discuss\n'),
        );
        const run = await runCliJson<ClassifyJson>(['classify', '--db', db.url, '--reclassify', '--systems', copy]);
        expect(run.code, run.stderr).toBe(0);
        expect(run.json.changed).toBe(reviews.classes.review);
        expect(run.json.classes.review ?? 0).toBe(0);
      });

      it('gives the same labels when worker threads parse', async () => {
        const single = (await runCliJson<ClassifyJson>(['classify', '--db', db.url, '--reclassify'])).json;
        const pooled = await runCliJson<ClassifyJson>(['classify', '--db', db.url, '--reclassify', '--workers', '2']);
        expect(pooled.code, pooled.stderr).toBe(0);
        expect(pooled.json.classes).toEqual(single.classes);
        expect(pooled.json.changed).toBe(0);
      });

      it('prints a summary for humans without --json', async () => {
        const run = await runCli(['classify', '--db', db.url]);
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(/^classified 0, shunted 0/);
      });
    },
    { skip },
  );
}
