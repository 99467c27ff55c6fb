import { beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { createDatabaseBefore } from '../helpers/databases.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import {
  addTestList,
  drain,
  expectReusedIdThreaded,
  expectSameRootsInAnyOrder,
  threadRoots,
} from '../helpers/drain-fixtures.js';
import { fixtureMessages } from '../helpers/mail-files.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

/** Threads as notmuch's threading corpora shape them, and kernel series as b4 and git send-email write them (test/fixtures). */
const GHOST = fixtureMessages('threads/ghost-root.mbox');
const [GHOST_ROOT, ...GHOST_WITHOUT_ROOT] = GHOST;
const PARENT_PRIORITY = fixtureMessages('threads/parent-priority.mbox');
const LOOP = (n: 12 | 21) => fixtureMessages(`threads/loop-${n}.eml`)[0]!;
const PROJECT = 'https://github.com/example/project';
const REAL_ROOT = '000-real-root@example.org';
const RT_FIRST = '87bmc6lp3h.fsf@len.workgroup';
const RT_AUTOREPLY = 'rt-4.2.8-22046-1529425595-591.4711-211-0@rt.example.org';
const RT_RESOLVED = 'rt-4.2.8-6644-1530017064-1465.4711-215-0@rt.example.org';
const COVER = '20240105-widget-v2-0-5e6f7a8b9c0d@example.org';
const patch = (n: number) => `20240105-widget-v2-${n}-5e6f7a8b9c0d@example.org`;

describeOnDialects('thread roots on $dialect', (getStore, dialect) => {
  let listId: number;
  beforeEach(async () => {
    const store = getStore();
    listId = await addTestList(store, 'list@example.org', PROJECT, 'mbox');
  });

  const roots = () => threadRoots(getStore(), listId);
  const stage = async (messages: Buffer[]) => {
    for (const raw of messages) await stageClassified(getStore(), listId, raw);
  };

  it('roots the ghost-root threads at the real root, the RT ticket reply at the mail it answers', async () => {
    const store = getStore();
    await stage(GHOST);
    await drain(store);
    expect(await roots()).toEqual({
      [REAL_ROOT]: REAL_ROOT,
      '001-child@example.org': REAL_ROOT,
      // It names a parent nobody has, but its References start at the real root.
      '001-fake-message-root@example.org': REAL_ROOT,
      '001-grand-child@example.org': REAL_ROOT,
      '001-grand-child2@example.org': REAL_ROOT,
      '001-great-grand-child@example.org': REAL_ROOT,
      [RT_FIRST]: RT_FIRST,
      [RT_AUTOREPLY]: RT_FIRST,
      // Its only reference is the RT ticket itself, which was never mailed.
      [RT_RESOLVED]: RT_RESOLVED,
    });
  });

  it('makes the oldest stored ancestor the root when the true root is missing', async () => {
    const store = getStore();
    await stage(GHOST_WITHOUT_ROOT);
    await drain(store);
    const r = await roots();
    expect(r).toMatchObject({
      '001-child@example.org': '001-child@example.org',
      '001-fake-message-root@example.org': '001-child@example.org',
      '001-grand-child@example.org': '001-child@example.org',
      '001-grand-child2@example.org': '001-child@example.org',
      // References skip the child; its grand-child parent leads there.
      '001-great-grand-child@example.org': '001-child@example.org',
    });
  });

  it('repairs the roots of children drained before their parent', async () => {
    const store = getStore();
    await stage(GHOST_WITHOUT_ROOT);
    expect((await drain(store)).threadsRepaired).toBe(0);
    await stage([GHOST_ROOT!]);
    const later = await drain(store);
    expect(later).toMatchObject({ drained: 1, threadsRepaired: 5 });
    const r = await roots();
    for (const key of [
      '001-child',
      '001-fake-message-root',
      '001-grand-child',
      '001-grand-child2',
      '001-great-grand-child',
    ]) {
      expect(r[`${key}@example.org`], key).toBe(REAL_ROOT);
    }
  });

  it('repairs, when their parent arrives, children whose links an earlier listminer keyed by message key', async () => {
    // A store at migration 024, as listminer left it: a reply and its reply drained, their root not yet arrived.
    const database = await createDatabaseBefore(
      dialect,
      '025',
      { system: 'mbox', name: 'list@example.org', repoUrl: PROJECT },
      async (driver, now) => {
        for (const key of ['child@example.org', 'grandchild@example.org'])
          await driver.run(
            `INSERT INTO email_messages (list_id, message_key, message_id, thread_root_key, thread_root_id, msg_class, drained_at)
             VALUES (1, ?, ?, 'child@example.org', 1, 'discuss', ?)`,
            [key, key, now],
          );
        const links: Array<[string, number, string]> = [
          ['child@example.org', 0, 'root@example.org'],
          ['grandchild@example.org', 0, 'root@example.org'],
          ['grandchild@example.org', 1, 'child@example.org'],
        ];
        for (const link of links)
          await driver.run(
            'INSERT INTO thread_links (list_id, message_key, position, ancestor_id) VALUES (1, ?, ?, ?)',
            link,
          );
      },
    );
    try {
      const store = await openStore(database.url);
      try {
        const links = await store.db.all<Record<string, unknown>>(
          'SELECT email_message_id, position, list_id, ancestor_id FROM thread_links ORDER BY email_message_id, position',
        );
        expect(links.map((row) => Object.values(row).map((v) => (typeof v === 'string' ? v : Number(v))))).toEqual([
          [1, 0, 1, 'root@example.org'],
          [2, 0, 1, 'root@example.org'],
          [2, 1, 1, 'child@example.org'],
        ]);
        await stageClassified(
          store,
          1,
          mail({
            From: 'Dana Lister <dana@example.org>',
            Date: 'Mon, 01 Jan 2018 10:00:00 +0000',
            Subject: 'root',
            'Message-ID': '<root@example.org>',
          }),
        );
        expect(await drain(store)).toMatchObject({ drained: 1, threadsRepaired: 2 });
        expect(await threadRoots(store, 1)).toEqual({
          'child@example.org': 'root@example.org',
          'grandchild@example.org': 'root@example.org',
          'root@example.org': 'root@example.org',
        });
        // The links go with their messages when the list goes.
        await store.lists.remove(1);
        expect(await store.db.all('SELECT * FROM thread_links')).toEqual([]);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('reaches the same roots whatever order the messages are drained in, one at a time', async () => {
    await expectSameRootsInAnyOrder(getStore(), listId, [...GHOST, ...PARENT_PRIORITY, LOOP(12), LOOP(21)], 1);
  });

  it('threads list mail the same when it arrives newest first in small drains as when it arrives at once', async () => {
    const messages = [
      'kernel/series.mbox',
      'kernel/revisions.mbox',
      'ponymail/users_ponymail_apache_org_2022-01.mbox',
      'hyperkitty-export/2016-04.mbox',
      'pipermail/2015-November.txt',
    ].flatMap(fixtureMessages);
    const together = await expectSameRootsInAnyOrder(getStore(), listId, messages, 5, 2);
    expect(Object.keys(together)).toHaveLength(messages.length);
    // Real threads: most replies share a root with other messages.
    expect(new Set(Object.values(together)).size).toBeLessThan(messages.length / 2);
  });

  it('follows In-Reply-To when References name a root that does not exist (parent-priority)', async () => {
    const store = getStore();
    await stage(PARENT_PRIORITY);
    await drain(store);
    expect(await roots()).toEqual({
      'B00-root@example.org': 'B00-root@example.org',
      'B01-child@example.org': 'B00-root@example.org',
      'B01-grand-child@example.org': 'B00-root@example.org',
    });
  });

  it('breaks an In-Reply-To loop at its earliest message, in either drain order', async () => {
    const store = getStore();
    await stage([LOOP(21)]);
    await drain(store);
    expect(await roots()).toEqual({ 'mid-loop-21@example.org': 'mid-loop-21@example.org' });
    await stage([LOOP(12)]);
    expect((await drain(store)).threadsRepaired).toBe(1);
    expect(await roots()).toEqual({
      'mid-loop-12@example.org': 'mid-loop-12@example.org',
      'mid-loop-21@example.org': 'mid-loop-12@example.org',
    });
  });

  it('stores every duplicate Message-ID and threads replies to the first holder of the id', async () => {
    await expectReusedIdThreaded(
      getStore(),
      listId,
      fixtureMessages('threads/duplicate.mbox'),
      '87r2ecrr6x.fsf@zephyr.example.com',
    );
  });

  it('roots a kernel patch series, its review and a partial re-roll sent in its thread at the cover letter, despite References out of order', async () => {
    const store = getStore();
    await stage(fixtureMessages('kernel/series.mbox'));
    await drain(store);
    expect(await roots()).toEqual({
      [COVER]: COVER,
      [patch(1)]: COVER,
      [patch(2)]: COVER,
      [patch(3)]: COVER,
      'ZZf1a2b3c4d5e6f7@kernel.example.org': COVER,
      '87v8a1b2c3.fsf@example.net': COVER,
      // v3 of patch 2 answers v2's patch 2; its References name the patch before the cover.
      '20240108-widget-v3-2-5e6f7a8b9c0d@example.org': COVER,
      'ZZf9e8d7c6b5a4f3@kernel.example.org': COVER,
    });
  });

  it('roots git send-email series at their first mail, a v2 threaded to v1 with it, and survives two In-Reply-To headers', async () => {
    const store = getStore();
    await stage(fixtureMessages('kernel/revisions.mbox'));
    await drain(store);
    const v1 = '1704800000-4242-1-git-send-email-sam@example.com';
    const opp = 'cover.1705000000.git.lee@example.com';
    expect(await roots()).toEqual({
      [v1]: v1,
      '1704800000-4242-2-git-send-email-sam@example.com': v1,
      // v2 answers the first mail of v1: one conversation.
      '1704900000-5151-1-git-send-email-sam@example.com': v1,
      '1704900000-5151-2-git-send-email-sam@example.com': v1,
      [opp]: opp,
      'b9f67b2be37d5e97.1705000000.git.lee@example.com': opp,
      'ed9beaec36649c86.1705000000.git.lee@example.com': opp,
    });
  });

  it('reads the parent out of an RFC 822 In-Reply-To phrase', async () => {
    const store = getStore();
    await stageClassified(
      store,
      listId,
      mail({ From: 'a@example.org', 'Message-ID': '<parent@x>', Date: 'Mon, 1 Jan 2024 10:00:00 +0000' }),
    );
    await stageClassified(
      store,
      listId,
      mail({ From: 'b@example.org', 'Message-ID': '<child@x>', Date: 'Mon, 1 Jan 2024 11:00:00 +0000' }),
      {
        envelope: { inReplyTo: 'Your message of "Mon, 1 Jan 2024 10:00:00 +0000" <parent@x>', references: [] },
      },
    );
    await stageClassified(
      store,
      listId,
      mail({ From: 'c@example.org', 'Message-ID': '<self@x>', 'In-Reply-To': '<self@x>' }),
    );
    await drain(store);
    expect(await roots()).toEqual({ 'parent@x': 'parent@x', 'child@x': 'parent@x', 'self@x': 'self@x' });
  });

  it('roots replies whose In-Reply-To phrase names the sender before the id at the message answered, not at the address', async () => {
    const store = getStore();
    await stage(fixtureMessages('threads/phrase-in-reply-to.mbox'));
    await drain(store);
    const root = '20090303.abc@example.org';
    expect(await roots()).toEqual({
      [root]: root,
      // `Message from John Doe <john@example.org> of "…" <id>` (exmh)
      '200903031200.exmh@example.net': root,
      // `<john@example.org>'s message of "…" <id>`
      '200903031300.emacs@example.com': root,
      // `Your message of "…" <id>` (MH)
      '200903031400.mh@example.com': root,
      // `<id> (message from Jane Roe <jane@example.net> on …)`: the address sits in a comment.
      '87r5.rmail@example.org': root,
      // A phrase with no id names no parent.
      '200903031600.noid@example.org': '200903031600.noid@example.org',
    });
  });
});
