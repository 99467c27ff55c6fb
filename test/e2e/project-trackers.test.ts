import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { syntheticIssueId } from '../../src/core/project/issue-key.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { withStoreAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { githubIssue, githubPull, startGitHubApiServer, type GitHubApiServer } from '../helpers/github-api-server.js';

const KAFKA = 'https://github.com/apache/kafka';
const WIDGET = 'https://github.com/acme/widget';
const FIXTURES = fileURLToPath(new URL('../fixtures/project/', import.meta.url));
const BUGZILLA = 'bugzilla:bz.apache.org/bugzilla#64321';
const RT = 'rt:rt.cpan.org#64321';
const DEBBUGS = 'debbugs:bugs.debian.org#510516';

interface ProjectJson {
  lists: Array<{
    status: string;
    linked: number;
    created: number;
    inherited: number;
    none: number;
    issuesCreated: number;
  }>;
}

/** The messages of a fixture, each as the bytes an mbox holds after its From line. */
function fixtureMessages(name: string): Buffer[] {
  return splitMboxBuffer(readFileSync(join(FIXTURES, name))).map((m) => Buffer.from(m));
}

function writeMbox(path: string, messages: Buffer[]): void {
  writeFileSync(
    path,
    Buffer.concat(
      messages.map((m) =>
        Buffer.concat([Buffer.from('From tracker-test Mon Jan  1 00:00:00 2024\n'), m, Buffer.from('\n')]),
      ),
    ),
  );
}

describeOnDialectDatabases('project of Bugzilla, debbugs, RT and GH-N mail on $dialect', (databases) => {
  let dir: string;
  let server: GitHubApiServer;
  const cli = (db: TestDatabase, args: string[]) => runCliJson<ProjectJson>([...args, '--db', db.url]);
  const pipeline = async (db: TestDatabase) => {
    for (const stage of [['fetch', '--full', '--now'], ['classify'], ['drain']]) {
      const run = await runCli([...stage, '--db', db.url]);
      expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
    }
  };
  const issueRows = (db: TestDatabase) =>
    withStoreAt(db.url, (store) =>
      store.db.all<Record<string, unknown>>(
        'SELECT id, external_key, title, state, is_synthetic, comment_count FROM issues WHERE is_synthetic = ? ORDER BY external_key',
        [true],
      ),
    );
  // verify's derived-current takes tracker issues, their thread's mail and GitHub references for what project derives.
  const derivedCurrent = async (db: TestDatabase) => {
    const run = await runCliJson<{
      invariants: Array<{ name: string; ok: boolean; violations: number; details: string[] }>;
    }>(['verify', '--db', db.url]);
    return run.json.invariants.find((i) => i.name === 'derived-current');
  };
  const kinds = (db: TestDatabase) =>
    withStoreAt(db.url, (store) =>
      store.db.all<{ message_key: string; projected_kind: string }>(
        'SELECT message_key, projected_kind FROM email_messages ORDER BY message_key',
      ),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-trackers-'));
    server = await startGitHubApiServer({
      owner: 'acme',
      name: 'widget',
      issues: [githubIssue(3)],
      pulls: [githubPull(6)],
      pageSize: 10,
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates one issue per tracker and number, and later mail of each bug updates it', async () => {
    const db = await databases.create();
    const folder = join(dir, `trackers-${db.dialect}`);
    mkdirSync(folder);
    const [bugzilla, rt, debbugs] = [
      fixtureMessages('bugzilla.mbox'),
      fixtureMessages('rt.mbox'),
      fixtureMessages('debbugs.mbox'),
    ];
    // First each bug's opening mail (and the debbugs follow-up of a person, which names no tracker host).
    writeMbox(join(folder, 'first.mbox'), [bugzilla[0]!, rt[0]!, debbugs[0]!, debbugs[1]!]);
    const add = await runCli([
      'lists',
      'add',
      '--system',
      'mbox',
      '--rules',
      'apache_ponymail',
      folder,
      '--repo',
      KAFKA,
      '--db',
      db.url,
    ]);
    expect(add.code, add.stderr).toBe(0);
    await pipeline(db);
    const first = await cli(db, ['project']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.lists).toMatchObject([
      { status: 'projected', created: 3, inherited: 1, none: 0, issuesCreated: 3 },
    ]);
    const ids = Object.fromEntries([BUGZILLA, RT, DEBBUGS].map((key) => [key, syntheticIssueId(KAFKA, key)]));
    expect(
      (await issueRows(db)).map((i) => ({
        ...i,
        id: Number(i.id),
        is_synthetic: Boolean(i.is_synthetic),
        comment_count: Number(i.comment_count),
      })),
    ).toEqual([
      {
        id: ids[BUGZILLA],
        external_key: BUGZILLA,
        title: 'Connector leaks file handles on restart',
        state: 'open',
        is_synthetic: true,
        comment_count: 1,
      },
      {
        id: ids[DEBBUGS],
        external_key: DEBBUGS,
        title: 'kafka: is not a native package',
        state: 'open',
        is_synthetic: true,
        comment_count: 2,
      },
      // Bugzilla's bug 64321 and RT's ticket 64321 are two issues.
      {
        id: ids[RT],
        external_key: RT,
        title: 'Producer drops messages over 1 MB',
        state: 'open',
        is_synthetic: true,
        comment_count: 1,
      },
    ]);

    // Then the mail that resolves or closes each: the same issues, their state and counts follow.
    writeMbox(join(folder, 'later.mbox'), [bugzilla[1]!, rt[1]!, debbugs[2]!]);
    await withStoreAt(db.url, async (store) => {
      await store.db.run('DELETE FROM fetched_months');
      await store.db.run('UPDATE lists SET last_month = NULL, first_month = NULL, scan_complete = ?', [false]);
    });
    await pipeline(db);
    const second = await cli(db, ['project']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.lists).toMatchObject([{ status: 'projected', created: 3, issuesCreated: 0 }]);
    expect((await issueRows(db)).map((i) => [i.external_key, i.state, Number(i.comment_count), i.title])).toEqual([
      [BUGZILLA, 'resolved', 2, 'Connector leaks file handles on restart'],
      [DEBBUGS, 'closed', 3, 'kafka: is not a native package'],
      [RT, 'closed', 2, 'Producer drops messages over 1 MB'],
    ]);
    const links = await withStoreAt(db.url, (store) =>
      store.db.all<{ external_key: string; message_key: string; role: string }>(
        `SELECT i.external_key, m.message_key, l.role FROM issue_email_messages l JOIN issues i ON i.id = l.issue_id
         JOIN email_messages m ON m.id = l.email_message_id ORDER BY i.external_key, m.sent_at`,
      ),
    );
    expect(links).toEqual([
      { external_key: BUGZILLA, message_key: 'bug-64321-9727@https.bz.apache.org/bugzilla/', role: 'event' },
      { external_key: BUGZILLA, message_key: 'bug-64321-9727-Xh2kLq0wQv@https.bz.apache.org/bugzilla/', role: 'event' },
      { external_key: DEBBUGS, message_key: 'handler.510516.B.123092083210412.ack@bugs.debian.org', role: 'event' },
      // A person's mail that names the bug but no tracker host belongs to the issue through its thread.
      { external_key: DEBBUGS, message_key: 'd99ff6bb9a3f9f1774358e10a61f8717@phys.ethz.ch', role: 'comment' },
      {
        external_key: DEBBUGS,
        message_key: 'handler.510516.D510516.123218137011064.notifdone@bugs.debian.org',
        role: 'event',
      },
      { external_key: RT, message_key: 'rt-4.0.18-31025-1591092165-1113.64321-4-0@rt.cpan.org', role: 'event' },
      { external_key: RT, message_key: 'rt-4.0.18-8812-1591259400-377.64321-5-0@rt.cpan.org', role: 'event' },
    ]);
    // A third run finds nothing to do and changes nothing.
    const third = await cli(db, ['project']);
    expect(third.json.lists).toEqual([]);
    expect(await derivedCurrent(db)).toMatchObject({ ok: true, violations: 0, details: [] });
  });

  it('links a GH-N or #N subject of a GitHub-backed list to the imported issue or pull request, and invents nothing for an unknown number', async () => {
    const db = await databases.create();
    const folder = join(dir, `widget-${db.dialect}`);
    mkdirSync(folder);
    writeMbox(join(folder, 'widget.mbox'), fixtureMessages('github-refs.mbox'));
    const add = await runCli(['lists', 'add', '--system', 'mbox', folder, '--repo', WIDGET, '--db', db.url]);
    expect(add.code, add.stderr).toBe(0);
    await pipeline(db);
    // Before the import nothing is known: nothing is linked, and nothing is made up.
    const before = await cli(db, ['project']);
    expect(before.code, before.stderr).toBe(0);
    expect(before.json.lists).toMatchObject([{ status: 'projected', linked: 0, none: 3, issuesCreated: 0 }]);
    // The import brings issue 3 and pull request 6; the next run links the mail that names them.
    const imported = await runCli([
      'repos',
      'import',
      'acme/widget',
      '--github',
      '--api-url',
      server.url,
      '--db',
      db.url,
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const run = await cli(db, ['project']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.lists).toMatchObject([{ status: 'projected', linked: 2, none: 0, issuesCreated: 0 }]);
    expect(await kinds(db)).toEqual([
      { message_key: 'gh4242@example.org', projected_kind: 'none' },
      { message_key: 'gh6-question@example.org', projected_kind: 'linked' },
      { message_key: 'issue3-note@example.org', projected_kind: 'linked' },
    ]);
    const linked = await withStoreAt(db.url, async (store) => ({
      issues: await store.db.all(
        'SELECT i.number, m.message_key, l.role FROM issue_email_messages l JOIN issues i ON i.id = l.issue_id JOIN email_messages m ON m.id = l.email_message_id',
      ),
      pulls: await store.db.all(
        'SELECT p.number, m.message_key, l.role FROM pull_request_email_messages l JOIN pull_requests p ON p.id = l.pull_request_id JOIN email_messages m ON m.id = l.email_message_id',
      ),
      synthetic: await store.db.all('SELECT id FROM issues WHERE is_synthetic = ?', [true]),
    }));
    expect(linked.issues.map((r) => ({ ...(r as object), number: Number((r as { number: number }).number) }))).toEqual([
      { number: 3, message_key: 'issue3-note@example.org', role: 'reference' },
    ]);
    expect(linked.pulls.map((r) => ({ ...(r as object), number: Number((r as { number: number }).number) }))).toEqual([
      { number: 6, message_key: 'gh6-question@example.org', role: 'reference' },
    ]);
    expect(linked.synthetic).toEqual([]);
    expect(await derivedCurrent(db)).toMatchObject({ ok: true, violations: 0, details: [] });
  });
});
