import { beforeAll, expect, it } from 'vitest';
import { runCli, runCliJson } from '../helpers/cli.js';
import { type TestDatabase, withStoreAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

const KAFKA = 'https://github.com/apache/kafka';
const SITE = 'https://github.com/apache/kafka-site';

interface DrainJson {
  lists: Array<{
    name: string;
    status: string;
    drained: number;
    deferred: number;
    shunted: number;
    threadsRepaired: number;
  }>;
  drained: number;
  deferred: number;
}

describeOnDialectDatabases('drain command on $dialect', (databases) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await databases.create();
    // A list whose repo URL is known but not registered yet, with mail already fetched and classified.
    await withStoreAt(db.url, async (store) => {
      await store.db.run(
        "INSERT INTO lists (system, name, list_address, repo_url, created_at) VALUES ('apache_ponymail', 'dev@kafka.apache.org', 'dev@kafka.apache.org', ?, ?)",
        [KAFKA, new Date().toISOString()],
      );
      const listId = (await store.lists.byName('apache_ponymail', 'dev@kafka.apache.org'))!.id;
      const headers = (id: string, extra: Record<string, string> = {}) => ({
        From: 'Jane <jane@example.org>',
        Date: 'Mon, 1 Jan 2024 10:00:00 +0000',
        'Message-ID': `<${id}>`,
        Subject: 's',
        ...extra,
      });
      await stageClassified(store, listId, mail(headers('root@x')), { captures: { repo: 'kafka' } });
      await stageClassified(
        store,
        listId,
        mail(headers('reply@x', { 'In-Reply-To': '<root@x>' }), `see ${SITE}/pull/7\n`),
      );
      await stageClassified(
        store,
        listId,
        mail(headers('ci@x', { From: 'Apache Jenkins Server <jenkins@builds.apache.org>' })),
      );
    });
  });

  it('defers the mail of a list with no repo, then drains it after repos add without fetching again', async () => {
    const first = await runCliJson<DrainJson>(['drain', '--db', db.url]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({
      drained: 0,
      deferred: 3,
      lists: [{ name: 'dev@kafka.apache.org', status: 'deferred', deferred: 3 }],
    });

    const add = await runCliJson<{ listsAttached: number; repos: Array<{ repo: { id: number } }> }>([
      'repos',
      'add',
      KAFKA,
      '--db',
      db.url,
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.json.listsAttached).toBe(1);

    const second = await runCliJson<DrainJson>([
      'drain',
      '--db',
      db.url,
      '--list',
      'dev@kafka.apache.org',
      '--workers',
      '2',
    ]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json).toMatchObject({
      drained: 3,
      deferred: 0,
      lists: [{ status: 'drained', drained: 3, deferred: 0, shunted: 0 }],
    });

    const rows = await withStoreAt(db.url, (store) =>
      store.db.all<Record<string, unknown>>(
        'SELECT message_key, thread_root_key, signaled_repo_url, signaled_repo_id, sender_id, is_bot FROM email_messages ORDER BY message_key',
      ),
    );
    expect(
      rows.map((r) => [
        r.message_key,
        r.thread_root_key,
        r.signaled_repo_url,
        r.signaled_repo_id === null ? null : Number(r.signaled_repo_id),
        Boolean(r.is_bot),
      ]),
    ).toEqual([
      ['ci@x', 'ci@x', null, null, true],
      ['reply@x', 'root@x', SITE, null, false],
      ['root@x', 'root@x', KAFKA, add.json.repos[0]!.repo.id, false],
    ]);

    const site = await runCliJson<{ signaledMessagesResolved: number; repos: Array<{ repo: { id: number } }> }>([
      'repos',
      'add',
      SITE,
      '--db',
      db.url,
    ]);
    expect(site.code, site.stderr).toBe(0);
    expect(site.json.signaledMessagesResolved).toBe(1);
    const reply = await withStoreAt(db.url, (store) =>
      store.db.get<{ signaled_repo_id: number }>(
        "SELECT signaled_repo_id FROM email_messages WHERE message_key = 'reply@x'",
      ),
    );
    expect(Number(reply!.signaled_repo_id)).toBe(site.json.repos[0]!.repo.id);

    const again = await runCliJson<DrainJson>(['drain', '--db', db.url]);
    expect(again.json).toMatchObject({ drained: 0, lists: [] });
  });

  it('refuses an unknown --list with exit code 2', async () => {
    const result = await runCli(['drain', '--db', db.url, '--list', 'nope@example.org']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No list "nope@example.org" is registered');
  });

  it('two drain processes at once share the lists out and write each message once', async () => {
    const other = await databases.create();
    await withStoreAt(other.url, async (store) => {
      for (const name of ['a', 'b', 'c', 'd']) {
        const repoId = (await store.repos.ensure({ url: KAFKA, host: 'github.com', owner: 'apache', name: 'kafka' }))
          .repo.id;
        const listId = (
          await store.lists.register({
            system: 'apache_ponymail',
            name: `${name}@kafka.apache.org`,
            repoUrl: KAFKA,
            repoId,
          })
        ).list.id;
        for (let i = 0; i < 40; i++) {
          await stageClassified(
            store,
            listId,
            mail({
              From: `P${i} <p${i}@example.org>`,
              'Message-ID': `<${name}-${i}@x>`,
              Subject: 's',
              Date: 'Mon, 1 Jan 2024 10:00:00 +0000',
            }),
          );
        }
      }
    });
    const [one, two] = await Promise.all([
      runCliJson<DrainJson>(['drain', '--db', other.url]),
      runCliJson<DrainJson>(['drain', '--db', other.url]),
    ]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);
    expect(one.json.drained + two.json.drained).toBe(160);
    const drainedBy = [...one.json.lists, ...two.json.lists].filter((l) => l.drained > 0).map((l) => l.name);
    expect(drainedBy.sort()).toEqual(['a', 'b', 'c', 'd'].map((n) => `${n}@kafka.apache.org`));
    const counts = await withStoreAt(other.url, async (store) => ({
      messages: Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM email_messages'))!.n),
      people: Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contributors'))!.n),
      drained: Number(
        (await store.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM staged_messages WHERE status = 'drained'"))!.n,
      ),
    }));
    expect(counts).toEqual({ messages: 160, people: 40, drained: 160 });
  });
});
