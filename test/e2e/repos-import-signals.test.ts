import type { ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GitHubApiServer,
  githubIssue,
  githubPull,
  sendJson,
  startGitHubApiServer,
} from '../helpers/github-api-server.js';
import { startCli } from '../helpers/start-cli.js';
import { withStoreAt } from '../helpers/databases.js';

describe('repos import stopped by SIGTERM', () => {
  let dir: string;
  let server: GitHubApiServer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-import-signal-'));
    const issues = [1, 2, 3, 4, 5].map((n) => githubIssue(n));
    const pulls = [6, 7].map((n) => githubPull(n));
    server = await startGitHubApiServer({ owner: 'acme', name: 'widget', issues, pulls, pageSize: 2 });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops after the page being read, keeps the pages saved, says so and exits 130', async () => {
    const db = join(dir, 'store.db');
    let held: ServerResponse | undefined;
    const asked = new Promise<void>((resolve) =>
      server.failFirst('/repos/acme/widget/issues?page=2', (response) => {
        held = response;
        resolve();
      }),
    );
    const running = startCli(['repos', 'import', 'acme/widget', '--github', '--api-url', server.url, '--db', db]);
    await asked;
    running.child.kill('SIGTERM');
    // Whether the request is cut short or answered, the import stops there.
    setTimeout(() => held && !held.writableEnded && sendJson(held, []), 200);
    const exit = await running.exited;
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toMatch(/Stopped by a signal: \d page\(s\) of https:\/\/github.com\/acme\/widget saved/);
    const saved = await withStoreAt(
      db,
      async (store) => (await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM issues'))!.n,
    );
    expect(Number(saved)).toBeGreaterThanOrEqual(2);
  });
});
