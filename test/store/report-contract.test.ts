import { beforeEach, expect, it } from 'vitest';
import { recordListFailure } from '../../src/core/fetch/fetch-policy.js';
import type { TestStore } from '../helpers/databases.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { addTestList, drain } from '../helpers/drain-fixtures.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

const KAFKA = 'https://github.com/apache/kafka';

function message(id: string, extra: Record<string, string> = {}, body = 'hello\n'): Buffer {
  return mail(
    {
      From: 'Jane <jane@example.org>',
      Subject: 'a subject',
      Date: 'Mon, 1 Jan 2024 10:00:00 +0000',
      'Message-ID': `<${id}>`,
      ...extra,
    },
    body,
  );
}

describeOnDialects('report records on $dialect', (getStore) => {
  let store: TestStore;
  let kafka: number;
  let noRepo: number;
  const count = async (sql: string, params: unknown[] = []) =>
    Number((await store.db.get<{ n: number }>(sql, params as never[]))!.n);

  beforeEach(async () => {
    store = getStore();
    kafka = await addTestList(store, 'dev@kafka.apache.org', KAFKA);
    noRepo = await addTestList(store, 'users@kafka.apache.org');
    await stageClassified(store, kafka, message('root@x', { Subject: '[jira] [Created] (KAFKA-1) broken' }), {
      msgClass: 'issue_event',
      captures: { external_key: 'KAFKA-1', repo: 'kafka' },
    });
    await stageClassified(store, kafka, message('nokey@x', { Subject: '[jira] odd' }), { msgClass: 'issue_event' });
    await stageClassified(
      store,
      kafka,
      message(
        'reply@x',
        { 'In-Reply-To': '<root@x>', Date: 'Thu, 15 Feb 2024 10:00:00 +0000' },
        `see ${KAFKA}/pull/3\n`,
      ),
      { msgClass: 'review' },
    );
    await stageClassified(store, kafka, message('patch@x', { Subject: '[PATCH] fix', From: 'Joe <joe@example.org>' }), {
      msgClass: 'patch_submission',
    });
    await stageClassified(
      store,
      kafka,
      message('bot@x', {
        From: 'Apache Jenkins Server <jenkins@builds.apache.org>',
        Date: 'Fri, 1 Mar 2024 10:00:00 +0000',
      }),
      { msgClass: 'unclassified' },
    );
    await stageClassified(store, kafka, message('waiting@x'), { msgClass: null }); // no class: drain shunts it
    await stageClassified(store, noRepo, message('deferred@x'), { msgClass: 'support' });
    await drain(store);
  });

  it('counts each list by status exactly as the tables hold them', async () => {
    const lists = await store.reports.lists(undefined);
    expect(lists.map((l) => l.name).sort()).toEqual(['dev@kafka.apache.org', 'users@kafka.apache.org']);
    for (const list of lists) {
      for (const status of ['staged', 'classified', 'drained', 'deferred', 'shunted'] as const) {
        expect(list.statuses[status], `${list.name} ${status}`).toBe(
          await count('SELECT COUNT(*) AS n FROM staged_messages WHERE list_id = ? AND status = ?', [list.id, status]),
        );
      }
      expect(list.total).toBe(await count('SELECT COUNT(*) AS n FROM staged_messages WHERE list_id = ?', [list.id]));
      expect(list.stored).toBe(await count('SELECT COUNT(*) AS n FROM email_messages WHERE list_id = ?', [list.id]));
    }
    const dev = lists.find((l) => l.id === kafka)!;
    expect(dev.statuses).toMatchObject({ drained: 5, shunted: 1, other: 0 });
    expect(lists.find((l) => l.id === noRepo)!.statuses.deferred).toBe(1);
    expect((await store.reports.lists([noRepo])).map((l) => l.id)).toEqual([noRepo]);
    expect(await store.reports.lists([])).toEqual([]);
  });

  it('counts stored mail per class, replies, signaled repos, senders and external keys as the tables hold them', async () => {
    const classes = await store.reports.classCounts(undefined);
    const direct = await store.db.all<{ msg_class: string; n: number }>(
      'SELECT msg_class, COUNT(*) AS n FROM email_messages GROUP BY msg_class',
    );
    expect(Object.fromEntries(classes)).toEqual(Object.fromEntries(direct.map((r) => [r.msg_class, Number(r.n)])));
    expect(Object.fromEntries(classes)).toEqual({ issue_event: 2, review: 1, patch_submission: 1, unclassified: 1 });

    const mail = await store.reports.mail(undefined);
    expect(mail).toEqual({
      total: await count('SELECT COUNT(*) AS n FROM email_messages'),
      replies: await count(
        'SELECT COUNT(*) AS n FROM email_messages WHERE thread_root_id IS NOT NULL AND thread_root_id <> id',
      ),
      signaledCaptured: await count('SELECT COUNT(*) AS n FROM email_messages WHERE signaled_repo_url IS NOT NULL'),
      signaledResolved: await count('SELECT COUNT(*) AS n FROM email_messages WHERE signaled_repo_id IS NOT NULL'),
      bots: await count('SELECT COUNT(*) AS n FROM email_messages WHERE is_bot = TRUE'),
      humans: await count('SELECT COUNT(*) AS n FROM email_messages WHERE is_bot = FALSE'),
      humansResolved: await count(
        'SELECT COUNT(*) AS n FROM email_messages WHERE is_bot = FALSE AND sender_id IS NOT NULL',
      ),
      issueEvents: 2,
      issueEventsWithKey: 1,
    });
    expect(mail).toMatchObject({ total: 5, replies: 1, bots: 1, humans: 4, humansResolved: 4 });
    expect(mail.signaledCaptured).toBeGreaterThanOrEqual(2);
    expect((await store.reports.mail([noRepo])).total).toBe(0);
  });

  it('counts routing outcomes by projected_kind, unprojected mail under null', async () => {
    await store.db.run("UPDATE email_messages SET projected_kind = 'none' WHERE message_key = 'patch@x'");
    const routing = await store.reports.routingCounts(undefined);
    expect(routing.get('none')).toBe(1);
    expect(routing.get(null)).toBe(4);
  });

  it('finds no offenders in a store the pipeline wrote', async () => {
    for (const check of [
      'drainedWithoutRow',
      'storedWithoutStaged',
      'duplicateContent',
      'nearDuplicates',
      'missingBodies',
      'unprojectedInProjectedLists',
    ] as const) {
      expect(await store.reports[check](undefined), check).toEqual({ count: 0, examples: [] });
    }
  });

  it('names the stored message whose staged row was deleted by hand, and the drained row whose stored message was', async () => {
    await store.db.run("DELETE FROM staged_messages WHERE message_key = 'reply@x'");
    expect(await store.reports.storedWithoutStaged(undefined)).toEqual({ count: 1, examples: [`${kafka} reply@x`] });
    await store.db.run("DELETE FROM email_messages WHERE message_key = 'patch@x'");
    expect(await store.reports.drainedWithoutRow(undefined)).toEqual({ count: 1, examples: [`${kafka} patch@x`] });
    expect(await store.reports.drainedWithoutRow([noRepo])).toEqual({ count: 0, examples: [] });
  });

  it('finds a stored message copied by hand under another key as duplicate content', async () => {
    const columns =
      'list_id, staged_message_id, repo_id, sender_id, from_address, is_bot, subject, sent_at, msg_class, body_stored, drained_at';
    await store.db.run(
      `INSERT INTO email_messages (message_key, ${columns}) SELECT 'copy-of-patch@x', ${columns} FROM email_messages WHERE message_key = 'patch@x'`,
    );
    expect(await store.reports.duplicateContent(undefined)).toEqual({
      count: 1,
      examples: [`${kafka} copy-of-patch@x`],
    });
  });

  it('finds the same mail stored under its Message-ID and a variant key as a near-duplicate, but not a different mail under that id', async () => {
    const columns =
      'list_id, message_id, repo_id, sender_id, from_name, from_address, is_bot, subject, in_reply_to, references_ids, sent_at, msg_class, body_stored, drained_at';
    const copy = async (key: string, subject: string, inReplyTo?: string) => {
      await store.db.run(
        `INSERT INTO email_messages (message_key, ${columns}) SELECT ?, list_id, message_id, repo_id, sender_id, from_name, from_address, is_bot, ?, COALESCE(?, in_reply_to), references_ids, sent_at, msg_class, body_stored, drained_at FROM email_messages WHERE message_key = 'patch@x'`,
        [key, subject, inReplyTo ?? null],
      );
      await store.db.run(
        `INSERT INTO email_message_bodies (email_message_id, body_id) SELECT c.id, b.body_id FROM email_messages c, email_messages o JOIN email_message_bodies b ON b.email_message_id = o.id
         WHERE c.message_key = ? AND o.message_key = 'patch@x'`,
        [key],
      );
    };
    const subject = (await store.db.get<{ subject: string }>(
      "SELECT subject FROM email_messages WHERE message_key = 'patch@x'",
    ))!.subject;
    await copy('patch@x#0123456789abcdef', subject);
    await copy('patch@x#fedcba9876543210', 'a different mail reusing the id');
    // The same text in reply to another message is another mail, as fetch judges it (isSameMail reads the ids).
    await copy('patch@x#00aa00aa00aa00aa', subject, 'another-parent@x');
    expect(await store.reports.nearDuplicates(undefined)).toEqual({
      count: 1,
      examples: [`${kafka} patch@x#0123456789abcdef`],
    });
    expect(await store.reports.nearDuplicates([noRepo])).toEqual({ count: 0, examples: [] });
  });

  it('finds a stored message that lost its body, but not mirror mail kept without one', async () => {
    await store.db.run("UPDATE email_messages SET body_stored = FALSE WHERE message_key = 'bot@x'");
    await store.db.run(
      "DELETE FROM email_message_bodies WHERE email_message_id IN (SELECT id FROM email_messages WHERE message_key IN ('bot@x', 'root@x'))",
    );
    expect(await store.reports.missingBodies(undefined)).toEqual({ count: 1, examples: [`${kafka} root@x`] });
  });

  it('finds unprojected mail only in lists project has worked on', async () => {
    expect((await store.reports.unprojectedInProjectedLists(undefined)).count).toBe(0);
    await store.db.run("UPDATE email_messages SET projected_kind = 'none' WHERE message_key = 'patch@x'");
    expect((await store.reports.unprojectedInProjectedLists(undefined)).count).toBe(4);
  });

  it('reads where a failed list stood at its failure and what was checkpointed after it', async () => {
    await store.db.run(
      'INSERT INTO fetched_months (list_id, month, messages_seen, messages_staged, fetched_at) VALUES (?, ?, 0, 0, ?), (?, ?, 0, 0, ?), (?, ?, 0, 0, ?)',
      [
        kafka,
        '2024-01',
        '2024-03-01T00:00:00.000Z',
        kafka,
        '2024-02',
        '2024-03-02T00:00:00.000Z',
        kafka,
        '2024-04',
        '2024-03-09T00:00:00.000Z',
      ],
    );
    expect(await store.reports.failedListCheckpoints(undefined)).toEqual([]);
    await recordListFailure(store, kafka, 'GET … failed', new Date('2024-03-05T00:00:00.000Z'));
    expect(await store.reports.failedListCheckpoints(undefined)).toEqual([
      {
        listId: kafka,
        scanComplete: false,
        lastFailureAt: '2024-03-05T00:00:00.000Z',
        cursorAtFailure: '2024-02',
        firstMonthAfter: '2024-04',
      },
    ]);
  });

  it('counts a synthetic issue whose key prefixes a native issue title of the same repo as a missed link', async () => {
    const repoId = (await store.lists.byId(kafka))!.repoId!;
    const other = (
      await store.repos.ensure({
        url: 'https://github.com/apache/flink',
        host: 'github.com',
        owner: 'apache',
        name: 'flink',
      })
    ).repo.id;
    expect(await store.reports.missedLinkShadows(undefined)).toBe(0);
    await store.db.run(
      `INSERT INTO issues (id, repo_id, number, external_key, title, is_synthetic) VALUES
        (-1, ?, NULL, 'KAFKA-1', 'broken', TRUE), (-2, ?, NULL, 'KAFKA-2', 'other', TRUE), (-3, ?, NULL, 'KAFKA_3-3', 'x', TRUE),
        (10, ?, 10, NULL, '[kafka-1] Broken thing', FALSE), (11, ?, 11, NULL, 'KAFKA-2 without brackets', FALSE),
        (12, ?, 12, NULL, '[KAFKA_3-3] in another repo', FALSE), (13, ?, 13, NULL, '[KAFKAx3-3] a LIKE wildcard must not match', FALSE)`,
      [repoId, repoId, repoId, repoId, repoId, other, repoId],
    );
    expect(await store.reports.missedLinkShadows(undefined)).toBe(1);
    expect(await store.reports.missedLinkShadows([other])).toBe(0);
  });

  it('counts the pr_equivalents rows of the given lists', async () => {
    expect(await store.reports.prEquivalents([kafka])).toBe(0);
    const series = await store.db.get<{ id: number }>(
      "INSERT INTO patch_series (list_id, series_key, title, author_address) VALUES (?, 'a', 't', 'a@x') RETURNING id",
      [kafka],
    );
    await store.db.run(
      "UPDATE email_messages SET patch_series_id = ? WHERE list_id = ? AND msg_class = 'patch_submission'",
      [series!.id, kafka],
    );
    expect(await store.reports.prEquivalents([kafka])).toBe(1);
    expect(await store.reports.prEquivalents([noRepo])).toBe(0);
  });

  it("counts a list's messages per month of their date, once each, falling back to the archive's month", async () => {
    await store.db.run("UPDATE staged_messages SET archive_month = '2024-01' WHERE list_id = ?", [kafka]);
    await store.db.run("UPDATE staged_messages SET archive_month = '2024-03' WHERE message_key = 'bot@x'");
    // A clock years off is counted where the archive filed the message.
    await store.db.run("UPDATE email_messages SET sent_at = '1999-01-01T00:00:00.000Z' WHERE message_key = 'nokey@x'");
    const months = await store.reports.monthlyCounts(kafka);
    expect(months).toEqual([
      { month: '2024-01', count: 4 }, // root, nokey (1999 → archive month), patch, and the shunted one
      { month: '2024-02', count: 1 },
      { month: '2024-03', count: 1 },
    ]);
    expect(months.reduce((sum, m) => sum + m.count, 0)).toBe(
      await count('SELECT COUNT(*) AS n FROM staged_messages WHERE list_id = ?', [kafka]),
    );
    expect(await store.reports.monthlyCounts(noRepo)).toEqual([{ month: null, count: 1 }]);
  });
});
