import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { githubIssue, githubPull } from '../helpers/github-api-server.js';

describe('repos import of page files whose ids collide', () => {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-import-ids-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['pulls', 'pull request', [githubPull(1)], [githubPull(2, { id: githubPull(1).id })]],
    ['issues', 'issue', [githubIssue(1), githubIssue(3)], [githubIssue(2, { id: githubIssue(1).id })]],
  ])('--%s: one sentence naming the file and the id, exit 2', async (flag, kind, first, second) => {
    const file = join(dir, `${flag}.json`);
    // Two pages, as `gh api --paginate` writes them: arrays one after another.
    writeFileSync(file, `${JSON.stringify(first)}${JSON.stringify(second)}\n`);
    const run = await runCli(['repos', 'import', 'acme/widget', `--${flag}`, file, '--db', join(dir, `${flag}.db`)]);
    expect(run.code, run.stderr).toBe(2);
    const id = (first[0] as { id: number }).id;
    expect(run.stderr).toContain(`Error: ${file}: ${kind} id ${id} is given to #1 (page 1) and to #2 (page 2)`);
    expect(run.stderr).not.toMatch(/unexpected error|UNIQUE/i);
  });
});
