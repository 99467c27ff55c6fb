import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { openStore } from '../../src/core/store/open-store.js';
import { BUNDLED_SYSTEMS } from '../../src/core/systems/load-systems.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

interface ClassifyJson {
  classified: number;
  shunted: number;
  changed: number;
  classes: Record<string, number>;
  lists: { list: string; rules: string; classified: number }[];
}

const dir = mkdtempSync(join(tmpdir(), 'listminer-classify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('classify refuses a broken systems file', () => {
  it('exits 2 naming the file and the line of the bad rule', async () => {
    const bad = join(dir, 'bad.yaml');
    const text = readFileSync(BUNDLED_SYSTEMS, 'utf8').replace('      - name: announce\n        class: announce\n', '      - name: announce\n        class: anounce\n');
    writeFileSync(bad, text);
    const line = text.split('\n').findIndex((l) => l.includes('class: anounce')) + 1;
    const result = await runCli(['classify', '--systems', bad, '--db', join(dir, 'unused.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}:${line}`);
    expect(result.stderr).toMatch(/unknown class "anounce"/);
  });

  it('exits 2 for a regular expression that does not compile', async () => {
    const bad = join(dir, 'regex.yaml');
    writeFileSync(bad, `systems:\n  mbox:\n    backend: mbox\n    rules:\n      - class: vote\n        subject: '[unclosed'\n`);
    const result = await runCli(['classify', '--systems', bad, '--db', join(dir, 'unused.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`${bad}:6 .*subject is not a valid regular expression`));
  });
});

describeOnDialectDatabases('classify on $dialect', (databases) => {
  let db: TestDatabase;
  let staged = 0;
  beforeAll(async () => {
    db = await databases.create();
    const store = await openStore(db.url);
    try {
      const apache = (await store.lists.register({ system: 'apache_ponymail', name: 'dev@kafka.apache.org', listAddress: 'dev@kafka.apache.org' })).list.id;
      const kernel = (await store.lists.register({ system: 'public_inbox', name: 'netdev' })).list.id;
      const feed = async (listId: number, folders: string[]) => {
        for (const folder of folders)
          for (const file of corpusMailFiles(folder)) {
            const messages = corpusMessages(file).map((raw) => ({ raw, ...identifyMessage(raw) }));
            const result = await store.staging.stageBatch(listId, null, messages);
            staged += result.staged;
          }
      };
      await feed(apache, ['incubator-ponymail-foal', 'james-project']);
      await feed(kernel, ['b4', 'patchwork']);
    } finally {
      await store.close();
    }
  });

  it('classifies every staged message and reports the counts', async () => {
    const run = await runCliJson<ClassifyJson>(['classify', '--db', db.url]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.classified + run.json.shunted).toBe(staged);
    expect(run.json.classes.patch_submission).toBeGreaterThan(20);
    expect(run.json.classes.review).toBeGreaterThan(5);
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
    writeFileSync(copy, readFileSync(BUNDLED_SYSTEMS, 'utf8').replaceAll('        class: review\n', '        class: discuss\n'));
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
}, { skip: corpusMissing });
