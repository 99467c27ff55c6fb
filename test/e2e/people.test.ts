import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MailmapOutcome, MergeOutcome, SplitOutcome } from '../../src/core/people/change-people.js';
import type { ResolveResult } from '../../src/core/people/resolve-people.js';
import type { PersonView } from '../../src/core/people/show-person.js';
import type { StatsResult } from '../../src/core/stats/collect-stats.js';
import type { Person } from '../../src/core/store/people-records.js';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { type TestDatabase, withStoreAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { githubPull, startGitHubApiServer, type GitHubApiServer } from '../helpers/github-api-server.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/people/', import.meta.url));
const PEOPLE = `${FIXTURES}people.mbox`;
const LATER = `${FIXTURES}later/later.mbox`;
/** A sender whose RFC 2047 name decodes to terminal escape sequences: clear the screen, retitle the window, colour. */
const ESCAPES = `${FIXTURES}escape-names.mbox`;
const MAILMAP = `${FIXTURES}mailmap`;
const KERNEL = fileURLToPath(new URL('../../examples/kernel-net.mbox', import.meta.url));
const REPO = 'https://github.com/acme/widget';
/** No token unless a test gives one: the chain stops before the GitHub API. */
const NO_TOKEN = { env: { GITHUB_TOKEN: '' } };

/** What a merge and its undoing touch, in a stable order. */
const PEOPLE_TABLES: Record<string, string> = {
  contributors: 'SELECT id, name, email, github_login, merged_into FROM contributors ORDER BY id',
  identities: 'SELECT id, person_id, kind, value, seen_with, origin_id, source FROM identities ORDER BY id',
  senders: 'SELECT id, sender_id FROM email_messages ORDER BY id',
  pulls: 'SELECT id, author_id FROM pull_requests ORDER BY id',
};

describeOnDialectDatabases('people behind the addresses on $dialect', (databases) => {
  let db: TestDatabase;
  let firstSync: Awaited<ReturnType<typeof runCliJson<SyncResult>>>;
  const cli = (args: string[], env = NO_TOKEN) => runCli([...args, '--db', db.url], env);
  const cliJson = <T>(args: string[], env = NO_TOKEN) => runCliJson<T>([...args, '--db', db.url], env);
  const rows = <T>(sql: string, params: string[] = []) => withStoreAt(db.url, (store) => store.db.all<T>(sql, params));
  const count = async (sql: string) => Number((await rows<{ n: number }>(sql))[0]!.n);
  const personOf = async (address: string) => {
    const found = await rows<{ sender_id: number }>(
      'SELECT DISTINCT sender_id FROM email_messages WHERE from_address = ?',
      [address],
    );
    expect(found, address).toHaveLength(1);
    return Number(found[0]!.sender_id);
  };
  const snapshot = () =>
    withStoreAt(db.url, async (store) => {
      const out: Record<string, unknown[]> = {};
      for (const [name, sql] of Object.entries(PEOPLE_TABLES)) out[name] = await store.db.all(sql);
      return out;
    });

  beforeAll(async () => {
    db = await databases.create();
    firstSync = await cliJson<SyncResult>(['sync', PEOPLE, '--rules', 'public_inbox', '--repo', REPO]);
    expect(firstSync.code, firstSync.stderr).toBe(0);
    expect(firstSync.json.drain).toMatchObject({ drained: 18, shunted: 0 });
  });

  it("joins a sender's two addresses when one message from the first signs off with the second, in the same name", async () => {
    expect(await personOf('ann@corp.example')).toBe(await personOf('ann@home.example'));
    const merges = await rows<{ rule: string; reason: string; undone_at: unknown }>(
      'SELECT rule, reason, undone_at FROM person_merges',
    );
    expect(merges).toHaveLength(1);
    expect(merges[0]).toMatchObject({ rule: 'trailer', undone_at: null });
    expect(merges[0]!.reason).toContain('Signed-off-by: Ann Example <ann@home.example>');
    expect(firstSync.json.people).toMatchObject({ messagesRead: 18, githubAsked: 0 });
  });

  it('people show finds a person by any of its addresses, with its identities and merges; people ls lists people, most mail first', async () => {
    const ann = await personOf('ann@corp.example');
    const shown = await cliJson<PersonView>(['people', 'show', 'ann@home.example']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json.person).toMatchObject({
      id: ann,
      messages: (await rows('SELECT id FROM email_messages WHERE sender_id = ?', [String(ann)])).length,
    });
    const identities = await rows<{ kind: string; value: string }>(
      'SELECT kind, value FROM identities WHERE person_id = ? ORDER BY kind, value, seen_with',
      [String(ann)],
    );
    expect(shown.json.identities.map(({ kind, value }) => ({ kind, value }))).toEqual(identities);
    expect(identities).toEqual(
      expect.arrayContaining([
        { kind: 'email', value: 'ann@corp.example' },
        { kind: 'email', value: 'ann@home.example' },
      ]),
    );
    expect(shown.json.merges).toMatchObject([{ rule: 'trailer', keptId: ann, undoneAt: null }]);

    const listed = await cliJson<{ people: Person[] }>(['people', 'ls']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json.people).toContainEqual(shown.json.person);
    const messages = listed.json.people.map((person) => person.messages);
    expect(messages).toEqual([...messages].sort((a, b) => b - a));
  });

  it('never joins two people whose only common trait is a generic name, nor two people who share only a name', async () => {
    expect(await personOf('root@build1.example')).not.toBe(await personOf('root@build2.example'));
    expect(await personOf('bob@one.example')).not.toBe(await personOf('bob@two.example'));
    expect(await personOf('lx@one.example')).not.toBe(await personOf('lx@two.example'));
  });

  it('keeps, of two people an automatic rule joins, the one with more mail (a merge rewrites the fewer rows), else the lower id', async () => {
    const [carl, fay] = [await personOf('carl@old.example'), await personOf('fay@private.example')];
    const [bobOne, bobTwo] = [await personOf('bob@one.example'), await personOf('bob@two.example')];
    expect(carl).toBeLessThan(fay); // Carl sent one message, Fay three.
    await withStoreAt(db.url, async (store) => {
      expect(await store.people.keptFirst(carl, fay)).toEqual([fay, carl]);
      expect(await store.people.keptFirst(fay, carl)).toEqual([fay, carl]);
      expect(await store.people.keptFirst(bobTwo, bobOne)).toEqual([
        Math.min(bobOne, bobTwo),
        Math.max(bobOne, bobTwo),
      ]);
    });
  });

  it('says once that without a token the chain stops before the GitHub API', async () => {
    const resolve = await cli(['people', 'resolve']);
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(resolve.stderr.match(/no GitHub token/g)).toHaveLength(1);
    expect(firstSync.json.people!.githubSkipped).toContain('no GitHub token');
  });

  it('records a noreply sign-off as an address of its sender, and the GitHub login it names', async () => {
    const dora = await personOf('dora@mail.example');
    const identities = await rows<{ kind: string; value: string; source: string }>(
      'SELECT kind, value, source FROM identities WHERE person_id = ? ORDER BY kind, value',
      [String(dora)],
    );
    expect(identities).toEqual(
      expect.arrayContaining([
        { kind: 'email', value: '12345+dora-gh@users.noreply.github.com', source: 'trailer' },
        { kind: 'github_login', value: 'dora-gh', source: 'noreply' },
        { kind: 'github_id', value: '12345', source: 'noreply' },
      ]),
    );
  });

  it('counts a person once among the participants of a series (pr_equivalents)', async () => {
    const series = await rows<{ participants: number }>(
      "SELECT participants FROM pr_equivalents WHERE title LIKE '%start in reset%'",
    );
    expect(series.map((s) => Number(s.participants))).toEqual([1]);
  });

  it('gives in stats --json people and addresses, equal to the counts the tables hold', async () => {
    const { code, json, stderr } = await cliJson<StatsResult>(['stats']);
    expect(code, stderr).toBe(0);
    const people = await count(
      'SELECT COUNT(DISTINCT sender_id) AS n FROM email_messages WHERE is_bot = FALSE AND sender_id IS NOT NULL',
    );
    const addresses = await count(
      'SELECT COUNT(DISTINCT from_address) AS n FROM email_messages WHERE is_bot = FALSE AND sender_id IS NOT NULL',
    );
    expect(json.people).toEqual({
      people,
      addresses,
      identities: await count('SELECT COUNT(*) AS n FROM identities'),
      merges: await count("SELECT COUNT(*) AS n FROM person_merges WHERE undone_at IS NULL AND rule <> 'split'"),
    });
    expect(people).toBe(addresses - 1);
  });

  it('people merge and people split round-trip to the same tables; so do merge and unmerge', async () => {
    const before = await snapshot();
    const merged = await cliJson<MergeOutcome>(['people', 'merge', 'bob@one.example', 'bob@two.example']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(await personOf('bob@two.example')).toBe(await personOf('bob@one.example'));
    expect(await personOf('bob@one.example')).toBe(merged.json.personId);
    const split = await cliJson<SplitOutcome>(['people', 'split', 'bob@one.example', 'bob@two.example']);
    expect(split.code, split.stderr).toBe(0);
    expect(split.json.undoneMergeId).toBe(merged.json.mergeId);
    expect(await snapshot()).toEqual(before);

    const again = await cliJson<MergeOutcome>(['people', 'merge', 'bob@one.example', 'bob@two.example']);
    expect(again.json.mergeId).not.toBe(merged.json.mergeId);
    const undone = await cli(['people', 'unmerge', String(again.json.mergeId)]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(await snapshot()).toEqual(before);
    const twice = await cli(['people', 'unmerge', String(again.json.mergeId)]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('was undone already');
  });

  it('a person split by hand is never joined again by the automatic rule', async () => {
    const ann = await personOf('ann@corp.example');
    const split = await cliJson<SplitOutcome>(['people', 'split', String(ann), 'ann@home.example']);
    expect(split.code, split.stderr).toBe(0);
    expect(await personOf('ann@home.example')).not.toBe(await personOf('ann@corp.example'));
    const resolve = await cliJson<ResolveResult>(['people', 'resolve']);
    expect(resolve.json.merges).toEqual([]);
    expect(await personOf('ann@home.example')).not.toBe(await personOf('ann@corp.example'));
    // Joined again by hand for the tests after this one.
    expect((await cli(['people', 'merge', 'ann@corp.example', 'ann@home.example'])).code).toBe(0);
  });

  it('a mailmap merges the addresses it names and nothing else, and importing it again changes nothing', async () => {
    const addresses = await rows<{ from_address: string; sender_id: number | null }>(
      'SELECT DISTINCT from_address, sender_id FROM email_messages ORDER BY from_address',
    );
    const imported = await cliJson<MailmapOutcome>(['people', 'import-mailmap', MAILMAP]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.json).toMatchObject({ entries: 3, merges: 1 });
    expect(imported.json.errors).toHaveLength(1);
    expect(imported.json.errors[0]).toContain('line 6');
    const carl = await personOf('carl@old.example');
    expect(await personOf('carl@new.example')).toBe(carl);
    for (const { from_address, sender_id } of addresses) {
      if (from_address === 'carl@new.example') continue;
      expect(await personOf(from_address).catch(() => null), from_address).toBe(
        sender_id === null ? null : Number(sender_id),
      );
    }
    const names = await rows<{ name: string }>('SELECT name FROM contributors WHERE id = ?', [
      String(await personOf('ann@home.example')),
    ]);
    expect(names[0]!.name).toBe('Ann Q. Example');
    const after = await snapshot();
    const again = await cliJson<MailmapOutcome>(['people', 'import-mailmap', MAILMAP]);
    expect(again.json).toMatchObject({ merges: 0, namesSet: 0 });
    expect(await snapshot()).toEqual(after);
  });

  it('a mailmap line for a commit address an earlier line maps replaces that line, as git reads it', async () => {
    const own = await databases.create();
    const ownCli = <T>(args: string[]) => runCliJson<T>([...args, '--db', own.url], NO_TOKEN);
    expect((await ownCli(['sync', PEOPLE, '--rules', 'public_inbox', '--repo', REPO])).code).toBe(0);
    const imported = await ownCli<MailmapOutcome>(['people', 'import-mailmap', `${FIXTURES}remapped.mailmap`]);
    expect(imported.code).toBe(0);
    expect(imported.json).toMatchObject({ merges: 1, errors: [] });
    const senders = await withStoreAt(own.url, (store) =>
      store.db.all<{ from_address: string; sender_id: number }>(
        'SELECT DISTINCT from_address, sender_id FROM email_messages WHERE from_address IN (?, ?, ?)',
        ['eve@often.example', 'fay@private.example', 'gus@rare.example'],
      ),
    );
    const personOfSender = (address: string) => Number(senders.find((row) => row.from_address === address)!.sender_id);
    expect(personOfSender('gus@rare.example')).toBe(personOfSender('fay@private.example'));
    expect(personOfSender('eve@often.example')).not.toBe(personOfSender('fay@private.example'));
  });

  it('mail that comes after the mailmap lands on the person it names, and resolving again changes nothing', async () => {
    const later = await cliJson<SyncResult>(['sync', LATER, '--rules', 'public_inbox', '--repo', REPO]);
    expect(later.code, later.stderr).toBe(0);
    const hana = await personOf('hana@a.example');
    expect(await personOf('hana@b.example')).toBe(hana);
    expect((await rows<{ name: string }>('SELECT name FROM contributors WHERE id = ?', [String(hana)]))[0]!.name).toBe(
      'Hana Unseen',
    );
    const before = await snapshot();
    const again = await cliJson<ResolveResult>(['people', 'resolve']);
    expect(again.json).toMatchObject({ messagesRead: 0, merges: [] });
    expect(await snapshot()).toEqual(before);
  });

  it("joins an imported pull request's author to the sender whose noreply address names that login", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'listminer-people-'));
    try {
      const pulls = join(dir, 'pulls.json');
      await writeFile(pulls, JSON.stringify([githubPull(1, { user: { login: 'Dora-GH', id: 12345 } })]));
      const imported = await cli(['repos', 'import', 'acme/widget', '--pulls', pulls]);
      expect(imported.code, imported.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const resolved = await cliJson<ResolveResult>(['people', 'resolve']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.json.merges.map((m) => m.rule)).toEqual(['github-import']);
    const dora = await personOf('dora@mail.example');
    const authors = await rows<{ author_id: number }>('SELECT author_id FROM pull_requests');
    expect(authors.map((a) => Number(a.author_id))).toEqual([dora]);
    const again = await cliJson<ResolveResult>(['people', 'resolve']);
    expect(again.json.merges).toEqual([]);
  });

  describeGitHub();

  function describeGitHub(): void {
    let github: GitHubApiServer;
    beforeAll(async () => {
      github = await startGitHubApiServer({
        owner: 'acme',
        name: 'widget',
        issues: [],
        pulls: [],
        search: { users: { 'eve@often.example': { login: 'Eve-GH', id: 777 } }, private: ['fay@private.example'] },
      });
    });
    afterAll(() => github?.close());

    it('asks GitHub about senders with enough mail, keeps the answers, and asks no more when run again', async () => {
      const env = { env: { GITHUB_TOKEN: 'test-token' } };
      const first = await cliJson<ResolveResult>(['people', 'resolve', '--api-url', github.url], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.json.githubSkipped).toBeNull();
      expect(github.searches.filter((s) => s.startsWith('/search/users')).sort()).toEqual([
        '/search/users?q=eve@often.example in:email',
        '/search/users?q=fay@private.example in:email',
      ]);
      expect(github.searches).toContain('/search/commits?q=author-email:fay@private.example');
      expect(github.searches.some((s) => s.includes('gus@rare.example'))).toBe(false);
      const eve = await personOf('eve@often.example');
      const login = await rows<{ value: string; source: string }>(
        "SELECT value, source FROM identities WHERE person_id = ? AND kind = 'github_login'",
        [String(eve)],
      );
      expect(login).toEqual([{ value: 'eve-gh', source: 'github-api' }]);
      const fay = await rows<{ login: string | null; retry_after: unknown }>(
        "SELECT login, retry_after FROM github_lookups WHERE address = 'fay@private.example'",
      );
      expect(fay).toHaveLength(1);
      expect(fay[0]!.login).toBeNull();
      expect(
        new Date(
          String(fay[0]!.retry_after instanceof Date ? fay[0]!.retry_after.toISOString() : fay[0]!.retry_after),
        ).getTime(),
      ).toBeGreaterThan(Date.now());

      const asked = github.searches.length;
      const again = await cliJson<ResolveResult>(['people', 'resolve', '--api-url', github.url], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json.githubAsked).toBe(0);
      expect(github.searches).toHaveLength(asked);
    });
  }
});

describeOnDialectDatabases('people of the kernel sample on $dialect', (databases) => {
  it('resolves trailers and mail of one person, sent from two addresses, to one person', async () => {
    const db = await databases.create();
    const sync = await runCliJson<SyncResult>(
      ['sync', KERNEL, '--rules', 'public_inbox', '--repo', 'https://github.com/torvalds/linux', '--db', db.url],
      NO_TOKEN,
    );
    expect(sync.code, sync.stderr).toBe(0);
    await withStoreAt(db.url, async (store) => {
      const senders = await store.db.all<{ from_name: string; people: number }>(
        'SELECT from_name, COUNT(DISTINCT sender_id) AS people FROM email_messages WHERE sender_id IS NOT NULL GROUP BY from_name ORDER BY from_name',
      );
      for (const row of senders) expect(Number(row.people), row.from_name).toBe(1);
      const tomasz = await store.db.all<{ from_address: string }>(
        "SELECT DISTINCT from_address FROM email_messages WHERE from_name = 'Tomasz Zielinski' ORDER BY from_address",
      );
      expect(tomasz.map((r) => r.from_address)).toEqual(['tomasz.zielinski@vendor.example', 'tz@example.net']);
      // Every trailer names an address of the person who sent mail under that name.
      const mail = await store.db.all<{ trailers: unknown }>(
        'SELECT trailers FROM email_messages WHERE trailers IS NOT NULL',
      );
      const trailers = mail.flatMap(
        (m) =>
          (typeof m.trailers === 'string' ? JSON.parse(m.trailers) : m.trailers) as Array<{
            name: string;
            address: string;
          }>,
      );
      expect(trailers.length).toBeGreaterThan(10);
      for (const trailer of trailers) {
        const owner = await store.db.get<{ person_id: number }>(
          "SELECT person_id FROM identities WHERE kind = 'email' AND value = ?",
          [trailer.address],
        );
        const sender = await store.db.get<{ sender_id: number }>(
          'SELECT DISTINCT sender_id FROM email_messages WHERE from_name = ? AND sender_id IS NOT NULL',
          [trailer.name],
        );
        expect(Number(owner?.person_id), `${trailer.name} <${trailer.address}>`).toBe(Number(sender?.sender_id));
      }
    });
    const stats = await runCliJson<StatsResult>(['stats', '--db', db.url]);
    expect(stats.json.people).toMatchObject({ people: 7, addresses: 8, merges: 1 });
  });
});

describeOnDialectDatabases('people of mail whose names carry terminal escapes on $dialect', (databases) => {
  it('people ls and people show print their control characters as escapes, and --json keeps the name as stored', async () => {
    const db = await databases.create();
    const sync = await runCli(['sync', ESCAPES, '--rules', 'public_inbox', '--repo', REPO, '--db', db.url], NO_TOKEN);
    expect(sync.code, sync.stderr).toBe(0);
    for (const args of [
      ['people', 'ls'],
      ['people', 'show', 'esc@x.example'],
    ]) {
      const run = await runCli([...args, '--db', db.url]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(run.stdout).toContain('\\x1b[2J\\x1b]0;PWNED\\x07Evil\\x1b[31m');
    }
    const shown = await runCliJson<PersonView>(['people', 'show', 'esc@x.example', '--db', db.url]);
    expect(shown.json.person.name).toBe('\u001b[2J\u001b]0;PWNED\u0007Evil\u001b[31m');
  });
});
