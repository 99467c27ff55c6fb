import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ArchiveServer } from '../helpers/archive-server.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { startPonyMailServer } from '../helpers/ponymail-server.js';

interface Discovered {
  found: number;
  added: number;
  updated: number;
  unchanged: number;
  lists: Array<{ action: string; name: string; listId: string | null; repoUrl: string | null }>;
}

describeOnDialectDatabases('lists discover on $dialect', (databases) => {
  let db: TestDatabase;
  let server: ArchiveServer;
  beforeAll(async () => {
    server = await startPonyMailServer();
    db = await databases.create();
  });
  afterAll(async () => {
    await server.close();
  });

  it("registers one domain's lists from the Pony Mail catalogue with the project's repo", async () => {
    const result = await runCliJson<Discovered>([
      'lists',
      'discover',
      '--system',
      'apache_ponymail',
      '--domain',
      'kafka.apache.org',
      '--base-url',
      server.url,
      '--db',
      db.url,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ found: 4, added: 4, updated: 0, unchanged: 0 });
    expect(result.json.lists.map((l) => l.name)).toEqual([
      'commits@kafka.apache.org',
      'dev@kafka.apache.org',
      'jira@kafka.apache.org',
      'users@kafka.apache.org',
    ]);
    expect(result.json.lists.every((l) => l.repoUrl === 'https://github.com/apache/kafka')).toBe(true);
    expect(server.requests.at(-1)).toBe('/api/preferences.lua');
  });

  it('registers nothing twice when run again', async () => {
    const again = await runCliJson<Discovered>([
      'lists',
      'discover',
      '--system',
      'apache_ponymail',
      '--domain',
      'kafka.apache.org',
      '--base-url',
      server.url,
      '--db',
      db.url,
    ]);
    expect(again.json).toMatchObject({ found: 4, added: 0, unchanged: 4 });
    const ls = await runCliJson<{ lists: Array<{ name: string; listId: string; repoUrl: string; baseUrl: string }> }>([
      'lists',
      'ls',
      '--db',
      db.url,
    ]);
    expect(ls.json.lists).toHaveLength(4);
    expect(ls.json.lists.find((l) => l.name === 'dev@kafka.apache.org')).toMatchObject({
      listId: 'dev.kafka.apache.org',
      repoUrl: 'https://github.com/apache/kafka',
    });
  });

  it('keeps a repo a list already has, and gives a bare-domain list none', async () => {
    const add = await runCli([
      'lists',
      'add',
      '--system',
      'apache_ponymail',
      'dev@ponymail.apache.org',
      '--repo',
      'https://github.com/apache/incubator-ponymail-foal',
      '--db',
      db.url,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const result = await runCli([
      'lists',
      'discover',
      '--system',
      'apache_ponymail',
      '--base-url',
      server.url,
      '--db',
      db.url,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/announce@apache\.org/);
    expect(result.stdout).toMatch(/│ list\s+│ list-id\s+│ repo\s+│ action\s+│/);
    expect(result.stderr).toContain('7 lists found: 2 added, 1 updated, 4 unchanged');
    const ls = await runCliJson<{ lists: Array<{ name: string; repoUrl: string | null }> }>([
      'lists',
      'ls',
      '--db',
      db.url,
    ]);
    const repo = (name: string) => ls.json.lists.find((l) => l.name === name)?.repoUrl;
    expect(repo('dev@ponymail.apache.org')).toBe('https://github.com/apache/incubator-ponymail-foal');
    expect(repo('users@ponymail.apache.org')).toBe('https://github.com/apache/ponymail');
    expect(repo('announce@apache.org')).toBeNull();
  });

  it('fails with exit 1 and a hint when the archive cannot be reached', async () => {
    const result = await runCli([
      'lists',
      'discover',
      '--system',
      'apache_ponymail',
      '--base-url',
      'http://127.0.0.1:9',
      '--db',
      db.url,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^Error: The apache_ponymail catalogue could not be read: GET http:\/\/127\.0\.0\.1:9\/api\/preferences\.lua failed/m,
    );
    expect(result.stderr).toContain('Hint: Try again later.');
  });

  it('refuses a system without a catalogue with exit 2', async () => {
    const result = await runCli(['lists', 'discover', '--system', 'pipermail', '--db', db.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Error: The pipermail system has no list catalogue to discover from.');
  });
});
