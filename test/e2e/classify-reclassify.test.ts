import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

interface ReclassifyJson {
  classified: number;
  changed: number;
  changes: { from: string; to: string; count: number }[];
  classes: Record<string, number>;
}

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/classify/${name}`, import.meta.url));
const messagesOf = (name: string) =>
  splitMboxBuffer(readFileSync(fixture(`formats/${name}`))).map((raw) => ({ raw, ...identifyMessage(raw) }));
const OLD_RULES = fixture('systems-before-eras.yaml');

/**
 * Mail labelled by older rules, then labelled again after an upgrade: the
 * report says how many messages moved from which class to which, so no rule
 * change re-labels stored mail silently.
 */
describeOnDialectDatabases('classify --reclassify after a rules upgrade on $dialect', (databases) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await databases.create();
    const store = await openStore(db.url);
    try {
      // Ten GitHub mirror mails of every era on an Apache dev@ list, fifteen kernel mails in a local mbox.
      const apache = (
        await store.lists.register({
          system: 'apache_ponymail',
          name: 'dev@commons.apache.org',
          listAddress: 'dev@commons.apache.org',
        })
      ).list.id;
      const kernel = (await store.lists.register({ system: 'mbox', name: 'lkml-export' })).list.id;
      await store.staging.stageBatch(apache, null, messagesOf('github-mirror-eras.mbox'));
      await store.staging.stageBatch(kernel, null, messagesOf('kernel.mbox'));
    } finally {
      await store.close();
    }
    const old = await runCliJson<ReclassifyJson>(['classify', '--db', db.url, '--systems', OLD_RULES]);
    expect(old.code, old.stderr).toBe(0);
    expect(old.json.classes).toEqual({ github_mirror: 1, discuss: 9, unclassified: 15 });
  });
  it('reports in --json how many messages changed class, per old and new class', async () => {
    const run = await runCliJson<ReclassifyJson>(['classify', '--db', db.url, '--reclassify']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.changes).toEqual([
      { from: 'discuss', to: 'github_mirror', count: 9 },
      { from: 'unclassified', to: 'issue_event', count: 4 },
      { from: 'unclassified', to: 'patch_submission', count: 4 },
      { from: 'unclassified', to: 'review', count: 3 },
      { from: 'unclassified', to: 'commit_notify', count: 2 },
      { from: 'unclassified', to: 'discuss', count: 2 },
    ]);
    expect(run.json.changed).toBe(24);
    expect(run.json.classified).toBe(25);
  });

  it('prints each change of class for humans', async () => {
    const back = await runCli(['classify', '--db', db.url, '--reclassify', '--systems', OLD_RULES]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain('changed class 24');
    expect(back.stdout).toContain('  github_mirror → discuss: 9\n');
    const again = await runCli(['classify', '--db', db.url, '--reclassify']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^classified 25, shunted 0, changed class 24 /);
    expect(again.stdout).toContain('  discuss → github_mirror: 9\n');
    expect(again.stdout).toContain('  unclassified → review: 3\n');
  });

  it('reports no change when the rules are the same', async () => {
    const run = await runCliJson<ReclassifyJson>(['classify', '--db', db.url, '--reclassify']);
    expect(run.json).toMatchObject({ changed: 0, changes: [] });
  });
});
