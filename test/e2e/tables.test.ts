import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addListAt } from '../helpers/add-list-at.js';
import { runCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const SAMPLES = [
  { file: 'quarry-dev.mbox', rules: 'apache_ponymail', repo: 'https://github.com/apache/quarry' },
  { file: 'kernel-net.mbox', rules: 'public_inbox', repo: 'https://github.com/torvalds/linux' },
];

/** The table says which list each row is: both sample names whole, nothing cut, no line wider than the terminal. */
function expectBothListsNamed(text: string, width: number | undefined, what: string): void {
  for (const sample of SAMPLES) expect(text, `${what}:\n${text}`).toContain(sample.file);
  expect(text, what).not.toContain('…');
  if (width !== undefined)
    for (const line of text.split('\n')) expect([...line].length, `${what}: ${line}`).toBeLessThanOrEqual(width);
}

// Rendering does not depend on the engine; the lists sit deep in a temp folder, as a new user's would.
describeOnDialectDatabases(
  'tables name both sample lists at any width ($dialect)',
  (databases) => {
    let folder: string;
    let drained: TestDatabase;
    /** The store is fetched and drained once; each width projects a copy of it, so project has a table to draw. */
    beforeAll(async () => {
      const root = mkdtempSync(join(tmpdir(), 'listminer-tables-'));
      folder = join(root, 'a', 'deeply', 'nested', 'folder', 'of', 'mailing', 'list', 'samples');
      mkdirSync(folder, { recursive: true });
      for (const sample of SAMPLES) copyFileSync(join(EXAMPLES, sample.file), join(folder, sample.file));
      drained = await databases.create();
      for (const sample of SAMPLES)
        await addListAt(drained.url, {
          system: 'mbox',
          rules: sample.rules,
          name: join(folder, sample.file),
          repoUrl: sample.repo,
        });
      for (const stage of [['fetch', '--full'], ['classify'], ['drain']]) {
        const run = await runCli([...stage, '--db', drained.url]);
        expect(run.code, run.stderr).toBe(0);
      }
    });
    afterAll(() => rmSync(folder.split('/a/deeply')[0]!, { recursive: true, force: true }));

    it.each([80, 100, 120, undefined])('stats, lists ls, fetch and project at %s columns', async (width) => {
      const db = await databases.copy(drained);
      const env = { COLUMNS: width === undefined ? '' : String(width) };
      const cli = async (args: string[]) => {
        const result = await runCli([...args, '--db', db.url], { env });
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
        return result.stdout;
      };
      expectBothListsNamed(await cli(['fetch', '--full']), width, 'fetch');
      expectBothListsNamed(await cli(['project']), width, 'project');
      const stats = await cli(['stats']);
      expectBothListsNamed(stats, width, 'stats');
      expect(stats).toMatch(/examined|staged/);
      expectBothListsNamed(await cli(['lists', 'ls']), width, 'lists ls');
      if (width === undefined) {
        // A pipe gets every table whole: each list's full path on one line.
        expect(stats).toContain(join(folder, 'quarry-dev.mbox'));
      }
    });
  },
  { only: ['sqlite'], onlyWhy: 'tables are drawn the same from either engine' },
);
