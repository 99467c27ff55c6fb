import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { currentLockOwner } from '../../src/core/locks/lock-owner.js';
import { type TestDatabase, withStoreAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { runCli, runCliJson } from '../helpers/cli.js';

describeOnDialectDatabases('lists and repos commands on $dialect', (databases) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await databases.create();
  });

  it('adds a Pony Mail list with its repo and shows it in lists ls --json', async () => {
    const add = await runCli([
      'lists',
      'add',
      '--system',
      'apache_ponymail',
      'dev@kafka.apache.org',
      '--repo',
      'https://github.com/apache/kafka',
      '--db',
      db.url,
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('added apache_ponymail list dev@kafka.apache.org');
    const ls = await runCliJson<{ lists: Array<Record<string, unknown>> }>(['lists', 'ls', '--db', db.url]);
    expect(ls.code).toBe(0);
    expect(ls.json.lists).toHaveLength(1);
    expect(ls.json.lists[0]).toMatchObject({
      system: 'apache_ponymail',
      name: 'dev@kafka.apache.org',
      listId: 'dev.kafka.apache.org',
      repoUrl: 'https://github.com/apache/kafka',
      state: 'never fetched',
    });
  });

  it('does not make a second row when the same list is added again', async () => {
    const again = await runCliJson<{ action: string }>([
      'lists',
      'add',
      '--system',
      'apache_ponymail',
      'DEV@kafka.apache.org',
      '--db',
      db.url,
    ]);
    expect(again.json.action).toBe('unchanged');
    const ls = await runCliJson<{ lists: unknown[] }>(['lists', 'ls', '--db', db.url]);
    expect(ls.json.lists).toHaveLength(1);
  });

  it('takes a symbolic link to a registered archive, or an archive reached through one, for the same list', async () => {
    const own = await databases.create();
    const dir = mkdtempSync(join(tmpdir(), 'listminer-linked-'));
    const mbox = join(dir, 'dev.mbox');
    writeFileSync(mbox, 'From a@x Mon Jan  1 00:00:00 2024\nFrom: a@x.org\nMessage-ID: <l1@x>\nSubject: s\n\nbody\n');
    symlinkSync(mbox, join(dir, 'link.mbox'));
    symlinkSync(dir, `${dir}-folder-link`);
    const add = (path: string) =>
      runCliJson<{ action: string; list: { name: string } }>([
        'lists',
        'add',
        '--system',
        'mbox',
        path,
        '--db',
        own.url,
      ]);
    const link = join(dir, 'link.mbox');
    const first = await add(link);
    expect(first.json).toMatchObject({ action: 'added', list: { name: link } });
    expect((await add(mbox)).json.action).toBe('unchanged');
    expect((await add(join(`${dir}-folder-link`, 'dev.mbox'))).json.action).toBe('unchanged');
    const sync = await runCli(['sync', join(dir, 'link.mbox'), '--db', own.url]);
    expect(sync.code, sync.stderr).toBe(0);
    const ls = await runCliJson<{ lists: Array<{ name: string }> }>(['lists', 'ls', '--db', own.url]);
    expect(ls.json.lists.map((list) => list.name)).toEqual([link]);
    const fetch = await runCli(['fetch', '--list', mbox, '--db', own.url]);
    expect(fetch.code, fetch.stderr).toBe(0);
  });

  it('takes the database from LISTMINER_DB when --db is not given', async () => {
    const ls = await runCliJson<{ lists: unknown[] }>(['lists', 'ls'], { env: { LISTMINER_DB: db.url } });
    expect(ls.json.lists).toHaveLength(1);
  });

  it('refuses an unknown system with exit code 2 and one line of reason', async () => {
    const result = await runCli(['lists', 'add', '--system', 'ponymail', 'dev@kafka.apache.org', '--db', db.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Error: Unknown archive system "ponymail"\.\nHint: Known systems: apache_ponymail/);
    expect(result.stdout).toBe('');
  });

  it('refuses a malformed list address with exit code 2', async () => {
    const result = await runCli(['lists', 'add', '--system', 'apache_ponymail', 'dev-at-kafka', '--db', db.url]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe('Error: "dev-at-kafka" is not a mailing-list address.');
  });

  it.each([
    ['imap', 'dev@lists.example.org', 'imaps:// or imap://'],
    ['pop3', 'dev@lists.example.org', 'pop3s:// or pop3://'],
    ['nntp', 'comp.lang.example', 'nntps:// or nntp://'],
  ])(
    'refuses a web base URL for an %s list at lists add, naming the schemes it reads, with exit code 2',
    async (system, name, schemes) => {
      for (const url of ['http://mail.example.org', 'https://mail.example.org/archives']) {
        const result = await runCli(['lists', 'add', '--system', system, name, '--base-url', url, '--db', db.url]);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr.split('\n')[0]).toBe(`Error: The ${system} system reads ${schemes} URLs, not "${url}".`);
      }
      const ls = await runCliJson<{ lists: Array<{ name: string }> }>(['lists', 'ls', '--db', db.url]);
      expect(ls.json.lists.map((list) => list.name)).not.toContain(name);
    },
  );

  it('reports an error as JSON on stdout under --json', async () => {
    const result = await runCliJson<{ error: { message: string; exitCode: number } }>([
      'lists',
      'add',
      '--system',
      'nope',
      'a@b.org',
      '--db',
      db.url,
    ]);
    expect(result.code).toBe(2);
    expect(result.json.error).toMatchObject({ exitCode: 2, message: 'Unknown archive system "nope".' });
  });

  it('registers a repo once and ties lists waiting for it', async () => {
    await runCli([
      'lists',
      'add',
      '--system',
      'public_inbox',
      'netdev',
      '--repo',
      'https://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git',
      '--db',
      db.url,
    ]);
    const add = await runCliJson<{ unchanged: number; repos: Array<{ action: string; repo: { url: string } }> }>([
      'repos',
      'add',
      'https://github.com/Apache/Kafka.git',
      '--db',
      db.url,
    ]);
    expect(add.json).toMatchObject({
      added: 0,
      unchanged: 1,
      repos: [{ action: 'unchanged', repo: { url: 'https://github.com/apache/kafka' } }],
    });
    const repos = await runCliJson<{ repos: Array<{ url: string }> }>(['repos', 'ls', '--db', db.url]);
    expect(repos.json.repos.map((r) => r.url)).toEqual([
      'https://git.kernel.org/pub/scm/linux/kernel/git/netdev/net',
      'https://github.com/apache/kafka',
    ]);
  });

  it('refuses a GitHub owner over 39 characters or a repository name over 100, in lists add and the repos commands, with exit code 2', async () => {
    const longName = `https://github.com/acme/${'n'.repeat(5000)}`;
    const longOwner = `https://github.com/${'o'.repeat(40)}/widget`;
    const dir = mkdtempSync(join(tmpdir(), 'listminer-repo-names-'));
    const list = join(dir, 'repos.txt');
    writeFileSync(list, `https://github.com/acme/widget\n${longName}\n`);
    const pages = join(dir, 'issues.json');
    writeFileSync(pages, '[]');
    const nameSentence =
      /^Error: "https:\/\/github\.com\/acme\/n+…" \(the first 80 of 5,024 characters\) is not a GitHub repository: its name has 5,000 characters, and GitHub allows at most 100\.$/;
    const reposBefore = (await runCliJson<{ repos: unknown[] }>(['repos', 'ls', '--db', db.url])).json.repos;
    for (const [args, sentence] of [
      [['lists', 'add', '--system', 'apache_ponymail', 'dev@widget.apache.org', '--repo', longName], nameSentence],
      [['repos', 'add', longName], nameSentence],
      [
        ['repos', 'add', longOwner],
        /^Error: "https:\/\/github\.com\/o{40}\/widget" is not a GitHub repository: its owner has 40 characters, and GitHub allows at most 39\.$/,
      ],
      [
        ['repos', 'add', '--from', list],
        /^Error: .*repos\.txt:2: .* is not a GitHub repository: its name has 5,000 characters/,
      ],
      [
        ['repos', 'import', `acme/${'n'.repeat(101)}`, '--issues', pages],
        /^Error: "https:\/\/github\.com\/acme\/n+…" \(the first 80 of 125 characters\) is not a GitHub repository: its name has 101 characters, and GitHub allows at most 100\.$/,
      ],
    ] as const) {
      const result = await runCli([...args, '--db', db.url]);
      expect(result.code, `${args.join(' ').slice(0, 60)}: ${result.stderr.slice(0, 500)}`).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(sentence);
    }
    expect((await runCliJson<{ repos: unknown[] }>(['repos', 'ls', '--db', db.url])).json.repos).toEqual(reposBefore);
    const widest = await runCli([
      'repos',
      'add',
      `https://github.com/${'o'.repeat(39)}/${'n'.repeat(100)}`,
      '--db',
      db.url,
    ]);
    expect(widest.code, widest.stderr).toBe(0);
  });

  it('removes a list that holds no mail', async () => {
    const rm = await runCli(['lists', 'rm', 'netdev', '--db', db.url]);
    expect(rm.code, rm.stderr).toBe(0);
    const ls = await runCliJson<{ lists: Array<{ name: string }> }>(['lists', 'ls', '--db', db.url]);
    expect(ls.json.lists.map((l) => l.name)).toEqual(['dev@kafka.apache.org']);
  });

  it('refuses, even with --force, to remove a list a live process holds for a stage, naming the holder; removes it once free', async () => {
    const [list] = (await runCliJson<{ lists: Array<{ id: number }> }>(['lists', 'ls', '--db', db.url])).json.lists;
    // This test's own process is the live holder, as a sync of another terminal would be.
    await withStoreAt(db.url, (store) => store.locks.claim(list!.id, 'drain', currentLockOwner()));
    const refused = await runCli(['lists', 'rm', 'dev@kafka.apache.org', '--force', '--db', db.url]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^Error: The list dev@kafka\\.apache\\.org is being drained: held by pid ${process.pid} on \\S+ since `,
      ),
    );
    expect(refused.stderr).not.toMatch(/unexpected error/);
    await withStoreAt(db.url, (store) => store.locks.release(list!.id, 'drain', currentLockOwner()));
    const removed = await runCli(['lists', 'rm', 'dev@kafka.apache.org', '--force', '--db', db.url]);
    expect(removed.code, removed.stderr).toBe(0);
  });
});

describe('database errors', () => {
  it('never prints the password of a database URL', async () => {
    const result = await runCli(['lists', 'ls', '--db', 'postgres://researcher:hunter2secret@127.0.0.1:1/none']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot connect to the database postgres://researcher:*****@127.0.0.1:1/none');
    expect(result.stderr + result.stdout).not.toContain('hunter2secret');
  });

  it('explains a SQLite path in a folder that does not exist', async () => {
    const result = await runCli(['lists', 'ls', '--db', '/nonexistent-folder/x.db']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the folder /nonexistent-folder does not exist');
  });

  it('refuses a bad config file with its line and exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-config-'));
    writeFileSync(join(dir, 'bad.yaml'), 'database: ./x.db\nworkers: many\n');
    const result = await runCli(['lists', 'ls', '--config', join(dir, 'bad.yaml')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('bad.yaml:2 (workers): workers must be 1 to 64');
  });

  it('names every problem of a bad config file, the first as the error and the others in the hint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-config-'));
    writeFileSync(join(dir, 'bad.yaml'), 'database: ./x.db\nworkers: many\nmax_message_bytes: lots\n');
    const result = await runCli(['lists', 'ls', '--config', join(dir, 'bad.yaml')]);
    expect(result.code).toBe(2);
    const [error, hint] = result.stderr.split('\n');
    expect(error).toContain('bad.yaml:2 (workers): workers must be 1 to 64');
    expect(hint).toContain('bad.yaml:3 (max_message_bytes):');
  });
});
