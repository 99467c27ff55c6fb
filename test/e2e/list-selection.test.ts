import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

function mboxOf(count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) {
    text += `From jane@example.org Mon Jan  1 10:00:00 2024\nFrom: Jane <jane@example.org>\nTo: dev@example.org\nSubject: note ${i}\nDate: Mon, 1 Jan 2024 10:0${i}:00 +0000\nMessage-ID: <note-${i}@example.org>\n\nbody ${i}\n\n`;
  }
  return text;
}

describeOnDialectDatabases('--list on $dialect', (databases) => {
  let db: TestDatabase;
  let dir: string;
  beforeEach(async () => {
    db = await databases.create();
    dir = mkdtempSync(join(tmpdir(), 'listminer-select-'));
    writeFileSync(join(dir, 'relative.mbox'), mboxOf(3));
  });
  afterEach(async () => {
    rmSync(dir, { recursive: true, force: true });
  });
  const cli = (args: string[]) => runCliJson<Record<string, unknown>>([...args, '--db', db.url], { cwd: dir });

  it('finds a local list by the relative path it was added with, in fetch, classify and drain', async () => {
    const add = await cli([
      'lists',
      'add',
      '--system',
      'mbox',
      './relative.mbox',
      '--repo',
      'https://github.com/example/relative',
    ]);
    expect(add.code, add.stderr).toBe(0);

    const fetch = await cli(['fetch', '--list', './relative.mbox', '--full', '--now']);
    expect(fetch.code, fetch.stderr).toBe(0);
    expect(fetch.json).toMatchObject({ totals: { staged: 3 } });

    const classify = await cli(['classify', '--list', './relative.mbox']);
    expect(classify.code, classify.stderr).toBe(0);
    expect(classify.json).toMatchObject({ classified: 3 });

    const drain = await cli(['drain', '--list', 'relative.mbox']);
    expect(drain.code, drain.stderr).toBe(0);
    expect(drain.json).toMatchObject({ drained: 3 });
  });

  it('refuses a name that fits two lists, naming both, and takes --system to choose', async () => {
    for (const system of ['mbox', 'generic']) {
      const add = await cli(['lists', 'add', '--system', system, './relative.mbox']);
      expect(add.code, add.stderr).toBe(0);
    }
    for (const stage of ['fetch', 'classify', 'drain']) {
      const refused = await runCli([stage, '--list', './relative.mbox', '--db', db.url], { cwd: dir });
      expect(refused.code, stage).toBe(2);
      expect(refused.stderr, stage).toContain('names 2 lists');
      expect(refused.stderr, stage).toMatch(
        /mbox .*relative\.mbox.*generic .*relative\.mbox|generic .*relative\.mbox.*mbox .*relative\.mbox/,
      );
    }
    const chosen = await cli(['fetch', '--list', './relative.mbox', '--system', 'mbox', '--full', '--now']);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.json).toMatchObject({ totals: { staged: 3 } });
  });

  it('says the same thing in every stage when no list has the name', async () => {
    for (const stage of ['fetch', 'classify', 'drain']) {
      const refused = await runCli([stage, '--list', 'nope@example.org', '--db', db.url], { cwd: dir });
      expect(refused.code, stage).toBe(2);
      expect(refused.stderr, stage).toContain('No list "nope@example.org" is registered.');
    }
  });
});
