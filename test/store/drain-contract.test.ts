import { expect, it, vi } from 'vitest';
import { addRepo } from '../../src/core/registry/register-repo.js';
import { DrainRecords } from '../../src/core/store/drain-records.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { addTestList, drain, expectDrainAccountsForEveryMessage, statusCounts } from '../helpers/drain-fixtures.js';
import { fixtureMessages } from '../helpers/mail-files.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

const KAFKA = 'https://github.com/apache/kafka';

function from(sender: string, id: string, body = 'hello\n'): Buffer {
  return mail(
    { From: sender, Subject: 'a subject', Date: 'Mon, 1 Jan 2024 10:00:00 +0000', 'Message-ID': `<${id}>` },
    body,
  );
}

describeOnDialects('drain on $dialect', (getStore) => {
  it('accounts for every staged message per list, and a second drain changes nothing', async () => {
    await expectDrainAccountsForEveryMessage(getStore(), {
      withRepo: [
        'ponymail/users_ponymail_apache_org_2022-01.mbox',
        'pipermail/2015-November.txt',
        'hyperkitty-export/2016-04.mbox',
      ].flatMap(fixtureMessages),
      kernel: ['kernel/series.mbox', 'kernel/revisions.mbox'].flatMap(fixtureMessages),
      noRepo: ['threads/ghost-root.mbox', 'threads/parent-priority.mbox', 'threads/duplicate.mbox'].flatMap(
        fixtureMessages,
      ),
    });
  });

  it('drains deferred mail once the list has a repo, resolving signaled repos then', async () => {
    const store = getStore();
    await store.db.run(
      "INSERT INTO lists (system, name, repo_url, created_at) VALUES ('apache_ponymail', 'dev@kafka.apache.org', ?, ?)",
      [KAFKA, new Date().toISOString()],
    );
    const listId = (await store.lists.byName('apache_ponymail', 'dev@kafka.apache.org'))!.id;
    await stageClassified(store, listId, from('a@example.org', 'one@x'), { captures: { repo: 'kafka' } });
    await stageClassified(
      store,
      listId,
      from('b@example.org', 'two@x', 'see https://github.com/Apache/Kafka-Site/pull/4 please\n'),
    );
    expect((await drain(store)).deferred).toBe(2);
    expect(await statusCounts(store, listId)).toEqual({ deferred: 2 });

    const added = await addRepo(store, KAFKA);
    expect(added.listsAttached).toBe(1);
    const result = await drain(store);
    expect(result).toMatchObject({ drained: 2, deferred: 0 });
    const rows = await store.db.all<{
      message_key: string;
      signaled_repo_url: string;
      signaled_repo_id: number | null;
    }>('SELECT message_key, signaled_repo_url, signaled_repo_id FROM email_messages ORDER BY message_key');
    expect(
      rows.map((r) => [
        r.message_key,
        r.signaled_repo_url,
        r.signaled_repo_id === null ? null : Number(r.signaled_repo_id),
      ]),
    ).toEqual([
      ['one@x', KAFKA, added.repo.id],
      ['two@x', 'https://github.com/apache/kafka-site', null],
    ]);
    const site = await addRepo(store, 'https://github.com/apache/kafka-site');
    expect(site.signaledMessagesResolved).toBe(1);
    expect((await addRepo(store, 'https://github.com/apache/kafka-site')).signaledMessagesResolved).toBe(0);
    const resolved = await store.db.get<{ signaled_repo_id: number }>(
      "SELECT signaled_repo_id FROM email_messages WHERE message_key = 'two@x'",
    );
    expect(Number(resolved!.signaled_repo_id)).toBe(site.repo.id);
  });

  it('never makes bots and relays contributors, and makes one contributor per human address across lists', async () => {
    const store = getStore();
    const a = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    const b = await addTestList(store, 'dev@spark.apache.org', 'https://github.com/apache/spark');
    const bots = [
      '"Jane Doe (Jira)" <jira@apache.org>',
      '"Jane Doe (via GitHub)" <git@apache.org>',
      'GitBox <git@apache.org>',
      'Apache Jenkins Server <jenkins@builds.apache.org>',
      'buildbot@python.org',
      'Travis CI <builds@travis-ci.org>',
      'Jane Doe <notifications@github.com>',
      'Jane Doe <reply+ABC123@reply.github.com>',
      'Someone <noreply@example.org>',
      'Someone <no-reply@example.org>',
      'kernel test robot <lkp@intel.com>',
    ];
    for (const [i, sender] of bots.entries()) await stageClassified(store, i % 2 ? a : b, from(sender, `bot-${i}@x`));
    for (const listId of [a, b]) {
      await stageClassified(store, listId, from('Jane Doe <Jane.Doe@Example.org>', `human-1-${listId}@x`));
      await stageClassified(store, listId, from('"Doe, Jane" <jane.doe@example.org>', `human-2-${listId}@x`));
    }
    await drain(store, { workers: 2 });

    const botRows = await store.db.all<{ is_bot: unknown; sender_id: unknown }>(
      "SELECT is_bot, sender_id FROM email_messages WHERE message_key LIKE 'bot-%'",
    );
    expect(botRows).toHaveLength(bots.length);
    expect(botRows.every((r) => Boolean(r.is_bot) && r.sender_id === null)).toBe(true);
    const people = await store.db.all<{ id: number; email: string; source: string }>(
      'SELECT id, email, source FROM contributors',
    );
    expect(people.map((p) => [p.email, p.source])).toEqual([['jane.doe@example.org', 'email']]);
    const humans = await store.db.all<{ sender_id: number; is_bot: unknown }>(
      "SELECT sender_id, is_bot FROM email_messages WHERE message_key LIKE 'human-%'",
    );
    expect(humans).toHaveLength(4);
    expect(humans.every((h) => Number(h.sender_id) === Number(people[0]!.id) && !h.is_bot)).toBe(true);
  });

  it('matches a sender to an existing contributor by address', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    await store.db.run(
      "INSERT INTO contributors (name, email, github_login, source, created_at) VALUES ('Jane', 'jane@example.org', 'jdoe', 'github', ?)",
      [new Date().toISOString()],
    );
    await stageClassified(store, listId, from('Jane <JANE@example.org>', 'm@x'));
    await drain(store);
    const row = await store.db.get<{ login: string }>(
      'SELECT c.github_login AS login FROM email_messages m JOIN contributors c ON c.id = m.sender_id',
    );
    expect(row?.login).toBe('jdoe');
    expect(Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contributors'))!.n)).toBe(1);
  });

  it('stores one body for a mail cross-posted to two lists', async () => {
    const store = getStore();
    const a = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    const b = await addTestList(store, 'users@kafka.apache.org', KAFKA);
    const raw = from('Jane <jane@example.org>', 'cross@x', 'the same words\n');
    await stageClassified(store, a, raw);
    await stageClassified(store, b, raw);
    expect((await drain(store)).drained).toBe(2);
    expect(Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM message_bodies'))!.n)).toBe(1);
    const bridges = await store.db.all<{ body_id: number }>('SELECT body_id FROM email_message_bodies');
    expect(bridges).toHaveLength(2);
    expect(new Set(bridges.map((r) => Number(r.body_id))).size).toBe(1);
    const text = await store.db.get<{ body_text: string }>('SELECT body_text FROM message_bodies');
    expect(text!.body_text).toBe('the same words\n');
  });

  it('keeps mirror mail as rows by mirror_handling: full with body, metadata_only without, skip without body or captures', async () => {
    const store = getStore();
    const expectations = { full: [true, true], metadata_only: [false, true], skip: [false, false] } as const;
    for (const [handling, [bodyStored, hasCaptures]] of Object.entries(expectations)) {
      const listId = await addTestList(store, `${handling.replace('_', '-')}@kafka.apache.org`, KAFKA);
      await stageClassified(
        store,
        listId,
        from(
          '"Jane (via GitHub)" <git@apache.org>',
          `mirror-${handling}@x`,
          'https://github.com/apache/kafka/pull/1\n',
        ),
        {
          msgClass: 'github_mirror',
          captures: { repo: 'kafka', number: '1' },
        },
      );
      await stageClassified(store, listId, from('Jane <jane@example.org>', `plain-${handling}@x`), {
        msgClass: 'discuss',
      });
      await drain(store, { mirrorHandling: handling as 'full' });
      const mirror = await store.db.get<Record<string, unknown>>('SELECT * FROM email_messages WHERE message_key = ?', [
        `mirror-${handling}@x`,
      ]);
      expect(Boolean(mirror!.body_stored), handling).toBe(bodyStored);
      expect(mirror!.captures !== null, handling).toBe(hasCaptures);
      expect(mirror!.signaled_repo_url !== null, handling).toBe(hasCaptures);
      const bodies = await store.db.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM email_message_bodies WHERE email_message_id = ?',
        [mirror!.id as number],
      );
      expect(Number(bodies!.n), handling).toBe(bodyStored ? 1 : 0);
      const plain = await store.db.get<Record<string, unknown>>(
        'SELECT body_stored FROM email_messages WHERE message_key = ?',
        [`plain-${handling}@x`],
      );
      expect(Boolean(plain!.body_stored)).toBe(true);
      expect(await statusCounts(store, listId)).toEqual({ drained: 2 });
    }
  });

  it('leaves a list alone while a live process holds its drain lock, and takes over a stale or dead one', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    await stageClassified(store, listId, from('Jane <jane@example.org>', 'm@x'));
    const { currentLockOwner } = await import('../../src/core/locks/lock-owner.js');
    const me = currentLockOwner();
    const hold = (at: string, pid: number) =>
      store.db.run(
        "INSERT INTO stage_locks (list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host) VALUES (?, 'drain', ?, ?, ?, ?) ON CONFLICT (list_id, stage) DO UPDATE SET locked_at = excluded.locked_at, locked_pid = excluded.locked_pid, locked_boot_id = excluded.locked_boot_id, locked_host = excluded.locked_host",
        [listId, at, pid, me.bootId, me.host],
      );
    // The parent of this test process is alive for as long as the test runs.
    await hold(new Date().toISOString(), process.ppid);
    expect((await drain(store)).lists).toMatchObject([{ listId, status: 'busy', drained: 0 }]);
    expect(await statusCounts(store, listId)).toEqual({ classified: 1 });

    await hold(new Date(Date.now() - 3 * 60 * 60 * 1000).toISOString(), process.ppid);
    expect((await drain(store)).lists).toMatchObject([{ listId, status: 'drained', drained: 1 }]);

    await stageClassified(store, listId, from('Jane <jane@example.org>', 'm2@x'));
    await hold(new Date().toISOString(), 2 ** 22 + 12345); // beyond pid_max: no such process
    expect((await drain(store)).lists).toMatchObject([{ listId, status: 'drained', drained: 1 }]);
    const lock = await store.db.get<{ locked_at: unknown }>(
      "SELECT locked_at FROM stage_locks WHERE list_id = ? AND stage = 'drain'",
      [listId],
    );
    expect(lock!.locked_at).toBeNull();
  });

  it('two drains at once in one process never write a message twice nor a list from both', async () => {
    const store = getStore();
    const lists = [
      await addTestList(store, 'a@kafka.apache.org', KAFKA),
      await addTestList(store, 'b@kafka.apache.org', KAFKA),
      await addTestList(store, 'c@kafka.apache.org', KAFKA),
    ];
    for (const listId of lists)
      for (let i = 0; i < 30; i++) await stageClassified(store, listId, from(`P${i} <p${i}@example.org>`, `m${i}@x`));
    // Separate processes are the e2e suite's; here two runs share one connection, as --workers does.
    const [one, two] = await Promise.all([drain(store, { workers: 2 }), drain(store, { workers: 2 })]);
    expect(one.drained + two.drained).toBe(90);
    const drainedBy = [...one.lists, ...two.lists].filter((l) => l.drained > 0).map((l) => l.listId);
    expect(drainedBy.sort()).toEqual([...lists].sort());
    expect(Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM email_messages'))!.n)).toBe(90);
    expect(Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM contributors'))!.n)).toBe(30);
  });

  it('writes a batch again message by message when one of its messages was stored after drain gave it an id', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    await stageClassified(store, listId, from('Jane <jane@example.org>', 'root@x'));
    await stageClassified(
      store,
      listId,
      mail({
        From: 'Joe <joe@example.org>',
        Subject: 'Re: a subject',
        Date: 'Mon, 1 Jan 2024 11:00:00 +0000',
        'Message-ID': '<reply@x>',
        'In-Reply-To': '<root@x>',
      }),
      { msgClass: 'github_mirror' },
    );
    // Mirror mail keeps no body, so no body row refuses the id either. What only a second writer on the list could do, which the drain lock keeps out: store a message between placing and writing it.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called with .apply(this) in its place
    const place = DrainRecords.prototype.placeMessages;
    const spy = vi.spyOn(DrainRecords.prototype, 'placeMessages').mockImplementationOnce(async function (
      this: DrainRecords,
      ...args
    ) {
      const placed = await place.apply(this, args);
      // The records' own session: inside the transaction drain is writing the batch in.
      const session = (this as unknown as { db: { run(sql: string, params: unknown[]): Promise<unknown> } }).db;
      await session.run(
        "INSERT INTO email_messages (list_id, message_key, msg_class, subject, drained_at) VALUES (?, 'reply@x', 'discuss', 'intruder', ?)",
        [listId, new Date().toISOString()],
      );
      return placed;
    });
    try {
      expect(await drain(store)).toMatchObject({ drained: 2, shunted: 0 });
    } finally {
      spy.mockRestore();
    }
    const rows = await store.db.all<{ id: number; message_key: string; subject: string; thread_root_id: number }>(
      'SELECT id, message_key, subject, thread_root_id FROM email_messages ORDER BY message_key',
    );
    const root = rows.find((r) => r.message_key === 'root@x')!;
    expect(rows.map((r) => [r.message_key, r.subject, Number(r.thread_root_id)])).toEqual([
      ['reply@x', 'Re: a subject', Number(root.id)],
      ['root@x', 'a subject', Number(root.id)],
    ]);
  });

  it('brings a drained message up to date when it comes back reclassified, without writing it again', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    const { stagedId } = await stageClassified(store, listId, from('Jane <jane@example.org>', 'vote@x'), {
      msgClass: 'discuss',
    });
    await drain(store);
    const before = await store.db.get<Record<string, unknown>>('SELECT id, drained_at FROM email_messages');
    await store.db.run(
      "UPDATE staged_messages SET status = 'classified', msg_class = 'vote', class_source = 'vote:subject', captures = ? WHERE id = ?",
      [JSON.stringify({ repo: 'kafka' }), stagedId],
    );
    const again = await drain(store);
    expect(again).toMatchObject({ drained: 0, shunted: 0 });
    const rows = await store.db.all<Record<string, unknown>>(
      'SELECT id, drained_at, msg_class, class_source, signaled_repo_url FROM email_messages',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      ...before,
      msg_class: 'vote',
      class_source: 'vote:subject',
      signaled_repo_url: KAFKA,
    });
    expect(await statusCounts(store, listId)).toEqual({ drained: 1 });
  });

  it('leaves for the next drain a message relabelled between its read and its write, which drains it with its new label', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    const { stagedId } = await stageClassified(store, listId, from('Jane <jane@example.org>', 'vote@x'), {
      msgClass: 'discuss',
    });
    await stageClassified(store, listId, from('Joe <joe@example.org>', 'other@x'), { msgClass: 'discuss' });
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called with .apply(this) in its place
    const read = DrainRecords.prototype.nextBatch;
    let relabelled = false;
    const spy = vi.spyOn(DrainRecords.prototype, 'nextBatch').mockImplementation(async function (
      this: DrainRecords,
      ...args
    ) {
      const batch = await read.apply(this, args);
      if (!relabelled && batch.some((candidate) => candidate.id === stagedId)) {
        relabelled = true;
        // What `classify --reclassify` in another process commits meanwhile: new rules, a new label, still classified.
        await store.db.run(
          "UPDATE staged_messages SET msg_class = 'vote', class_source = 'vote:subject', rules_hash = 'new-rules' WHERE id = ?",
          [stagedId],
        );
      }
      return batch;
    });
    try {
      expect(await drain(store)).toMatchObject({ drained: 1, shunted: 0 });
    } finally {
      spy.mockRestore();
    }
    const labels = () =>
      store.db.all<{ message_key: string; staged: string; status: string; drained: string | null }>(
        `SELECT s.message_key, s.msg_class AS staged, s.status, e.msg_class AS drained
         FROM staged_messages s LEFT JOIN email_messages e ON e.list_id = s.list_id AND e.message_key = s.message_key
         ORDER BY s.message_key`,
      );
    expect(await labels()).toEqual([
      { message_key: 'other@x', staged: 'discuss', status: 'drained', drained: 'discuss' },
      { message_key: 'vote@x', staged: 'vote', status: 'classified', drained: null },
    ]);
    expect(await drain(store)).toMatchObject({ drained: 1, shunted: 0 });
    expect(await labels()).toEqual([
      { message_key: 'other@x', staged: 'discuss', status: 'drained', drained: 'discuss' },
      { message_key: 'vote@x', staged: 'vote', status: 'drained', drained: 'vote' },
    ]);
  });

  it('drains only the lists asked for', async () => {
    const store = getStore();
    const a = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    const b = await addTestList(store, 'users@kafka.apache.org', KAFKA);
    await stageClassified(store, a, from('Jane <jane@example.org>', 'a@x'));
    await stageClassified(store, b, from('Jane <jane@example.org>', 'b@x'));
    const result = await drain(store, { listIds: [b] });
    expect(result.lists.map((l) => l.listId)).toEqual([b]);
    expect(await statusCounts(store, a)).toEqual({ classified: 1 });
  });
});
