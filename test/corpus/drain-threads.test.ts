import { readFileSync } from 'node:fs';
import { beforeEach, expect, it } from 'vitest';
import { corpusFiles, corpusMissing, corpusPath } from '../helpers/corpus.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import {
  addTestList,
  drain,
  expectReusedIdThreaded,
  expectSameRootsInAnyOrder,
  threadRoots,
} from '../helpers/drain-fixtures.js';
import { readMbox, stageClassified } from '../helpers/stage-classified.js';

const GHOST = 'notmuch/test/corpora/threading/ghost-root';
const REAL_ROOT = '000-real-root@example.org';
const RT_FIRST = '87bmc6lp3h.fsf@len.workgroup';
const RT_AUTOREPLY = 'rt-4.2.8-22046-1529425595-591.33575-211-0@xxxxxxx-xxxxxxxxxxxxxxxxx-xxxxxxxxx-xxxxxxxxx.de';
const RT_RESOLVED = 'rt-4.2.8-6644-1530017064-1465.33575-215-0@xxxxxxx-xxxxxxxxxxxxxxxxx-xxxxxxxxx-xxxxxxxxx.de';
const COVER = '20221025-test1-v1-0-e4f28f57990c@linuxfoundation.org';
const patch = (n: number) => `20221025-test1-v1-${n}-e4f28f57990c@linuxfoundation.org`;

const raw = (file: string) => readFileSync(corpusPath(file));

describeOnDialects('thread roots of the mail corpus on $dialect', (getStore) => {
  let listId: number;
  beforeEach(async () => {
    const store = getStore();
    listId = await addTestList(store, 'list@example.org', 'https://github.com/example/project', 'mbox');
  });

  const roots = () => threadRoots(getStore(), listId);
  const stageFiles = async (files: string[]) => {
    for (const file of files) await stageClassified(getStore(), listId, raw(file));
  };
  const skipCorpus = Boolean(corpusMissing);

  it.skipIf(skipCorpus)(
    'roots the ghost-root corpus at the real root, the RT ticket reply at the mail it answers',
    async () => {
      const store = getStore();
      await stageFiles(corpusFiles(GHOST));
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
    },
  );

  it.skipIf(skipCorpus)('makes the oldest stored ancestor the root when the true root is missing', async () => {
    const store = getStore();
    await stageFiles(corpusFiles(GHOST).filter((f) => !f.endsWith('/real-root')));
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

  it.skipIf(skipCorpus)('repairs the roots of children drained before their parent', async () => {
    const store = getStore();
    await stageFiles(corpusFiles(GHOST).filter((f) => !f.endsWith('/real-root')));
    expect((await drain(store)).threadsRepaired).toBe(0);
    await stageFiles([`${GHOST}/real-root`]);
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

  it.skipIf(skipCorpus)(
    'reaches the same roots whatever order the messages are drained in, one at a time',
    async () => {
      const files = [
        ...corpusFiles(GHOST),
        ...corpusFiles('notmuch/test/corpora/threading/parent-priority'),
        ...corpusFiles('notmuch/test/corpora/broken/loop'),
      ];
      await expectSameRootsInAnyOrder(getStore(), listId, files.map(raw), 1);
    },
  );

  it.skipIf(skipCorpus)(
    'threads real LKML mail the same when it arrives newest first in small drains as when it arrives at once',
    async () => {
      const together = await expectSameRootsInAnyOrder(
        getStore(),
        listId,
        corpusFiles('notmuch/test/corpora/lkml').map(raw),
        25,
        7,
      );
      // The corpus holds some mails twice (same content): those are one message.
      const staged = Number((await getStore().db.get<{ n: number }>('SELECT COUNT(*) AS n FROM staged_messages'))!.n);
      expect(Object.keys(together)).toHaveLength(staged);
      // Real threads: most replies share a root with other messages.
      expect(new Set(Object.values(together)).size).toBeLessThan(staged / 2);
    },
  );

  it.skipIf(skipCorpus)(
    'follows In-Reply-To when References name a root that does not exist (parent-priority)',
    async () => {
      const store = getStore();
      await stageFiles(corpusFiles('notmuch/test/corpora/threading/parent-priority'));
      await drain(store);
      expect(await roots()).toEqual({
        'B00-root@example.org': 'B00-root@example.org',
        'B01-child@example.org': 'B00-root@example.org',
        'B01-grand-child@example.org': 'B00-root@example.org',
      });
    },
  );

  it.skipIf(skipCorpus)('breaks an In-Reply-To loop at its earliest message, in either drain order', async () => {
    const store = getStore();
    await stageFiles([`notmuch/test/corpora/broken/loop/loop-21`]);
    await drain(store);
    expect(await roots()).toEqual({ 'mid-loop-21@example.org': 'mid-loop-21@example.org' });
    await stageFiles([`notmuch/test/corpora/broken/loop/loop-12`]);
    expect((await drain(store)).threadsRepaired).toBe(1);
    expect(await roots()).toEqual({
      'mid-loop-12@example.org': 'mid-loop-12@example.org',
      'mid-loop-21@example.org': 'mid-loop-12@example.org',
    });
  });

  it.skipIf(skipCorpus)(
    'stores every duplicate Message-ID and threads replies to the first holder of the id',
    async () => {
      await expectReusedIdThreaded(
        getStore(),
        listId,
        corpusFiles('notmuch/test/corpora/duplicate').map(raw),
        '87r2ecrr6x.fsf@zephyr.silentflame.com',
      );
    },
  );

  it.skipIf(skipCorpus)('roots a kernel patch series and its replies at the cover letter (b4 samples)', async () => {
    const store = getStore();
    for (const message of readMbox(corpusPath('b4/src/tests/samples/trailers-thread-with-cover-followup.mbox')))
      await stageClassified(store, listId, message);
    await drain(store);
    expect(await roots()).toEqual({
      [COVER]: COVER,
      [patch(1)]: COVER,
      [patch(2)]: COVER,
      [patch(3)]: COVER,
      [patch(4)]: COVER,
      'fwup1@example.org': COVER,
      'cover-fwup1@example.org': COVER,
    });
  });

  it.skipIf(skipCorpus)(
    'keeps a partial re-roll in the thread of the series it re-rolls, despite References out of order',
    async () => {
      const store = getStore();
      for (const message of readMbox(corpusPath('b4/src/tests/samples/trailers-followup-partial-reroll.mbox')))
        await stageClassified(store, listId, message);
      await drain(store);
      const cover = 'cover-message@example.com';
      expect(await roots()).toEqual({
        [cover]: cover,
        'patch-1-message@example.com': cover,
        'patch-2-message@example.com': cover,
        'fwup-message-1@example.com': cover,
        'fwup-message-2@example.com': cover,
        'patch-v3-2-message@example.com': cover,
      });
    },
  );

  it.skipIf(skipCorpus)(
    'roots patchwork series at the cover letter, a v2 threaded to v1 at the v1 cover, and survives two In-Reply-To headers',
    async () => {
      const store = getStore();
      const series = 'patchwork/patchwork/tests/data/series';
      for (const file of ['revision-threaded-to-cover.mbox', 'bugs-multiple-references.mbox']) {
        for (const message of readMbox(corpusPath(series, file))) await stageClassified(store, listId, message);
      }
      await drain(store);
      const v1 = '1473632524-8585-1-git-send-email-stephenfinucane@gmail.com';
      const opp = 'cover.1495511998.git.viresh.kumar@linaro.org';
      const oppPatch = (hash: string) => `${hash}.1495511998.git.viresh.kumar@linaro.org`;
      expect(await roots()).toEqual({
        [v1]: v1,
        '1473632524-8585-2-git-send-email-stephenfinucane@gmail.com': v1,
        '1473632524-8585-3-git-send-email-stephenfinucane@gmail.com': v1,
        // v2 answers the v1 cover letter: one conversation.
        '1473633055-10316-1-git-send-email-stephenfinucane@gmail.com': v1,
        '1473633055-10316-2-git-send-email-stephenfinucane@gmail.com': v1,
        '1473633055-10316-3-git-send-email-stephenfinucane@gmail.com': v1,
        [opp]: opp,
        [oppPatch('b9f67b2be37d5e9740a5e1ed85b0e8b4e5c0eb91')]: opp,
        [oppPatch('ed9beaec36649c862369a34ea209822c00d86f52')]: opp,
        [oppPatch('dcb9872771568fec4c7d8d11ba4939cd8da279c0')]: opp,
        [oppPatch('0381fc50b84535fcb7964eaa345d2501c5c903b3')]: opp,
      });
    },
  );
});
