import { afterAll, beforeAll, it } from 'vitest';
import type { Store } from '../../src/core/store/store.js';
import { openStore } from '../../src/core/store/open-store.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { messagesOf } from '../helpers/mail-files.js';
import { expectSeries, projectedEquivalents, series, type Expected, type Row } from '../helpers/pr-equivalents.js';

const PATCHWORK = 'patchwork/patchwork/tests/data/series';
const B4 = 'b4/src/tests/samples';
const SFIN = 'stephenfinucane@gmail.com';
const B4_TEST = 'test@example.com';
const KONSTANTIN = 'konstantin@linuxfoundation.org';

// Counted by hand from each mbox (every file is its own list): the series, the versions posted, the patches of the
// latest version, its cover letter, the replies and the Reviewed-by/Acked-by/Tested-by trailers the replies carry.
const TABLE: Array<[file: string, rows: Expected[]]> = [
  [`${PATCHWORK}/base-cover-letter.mbox`, [series('A sample series', SFIN, { patches: 2, cover: true })]],
  [`${PATCHWORK}/base-no-cover-letter.mbox`, [series('test: Add some lorem ipsum', SFIN, { patches: 2 })]],
  [`${PATCHWORK}/base-single-patch.mbox`, [series('test: Add some lorem ipsum', SFIN)]],
  // A v3 cover letter over unversioned patches: the patches are v3. Their Reviewed-by trailers are the author's, not replies.
  [
    `${PATCHWORK}/base-different-versions.mbox`,
    [series('net: dsa: Multi-CPU ground work (v3)', 'f.fainelli@gmail.com', { version: 3, patches: 4, cover: true })],
  ],
  // v2 posted as a new thread: the same series as v1 (same author, same title).
  [
    `${PATCHWORK}/revision-basic.mbox`,
    [series('A sample series', SFIN, { version: 2, versions: 2, patches: 2, cover: true })],
  ],
  // v2 posted in reply to v1's cover letter: one thread, one series.
  [
    `${PATCHWORK}/revision-threaded-to-cover.mbox`,
    [series('A sample series', SFIN, { version: 2, versions: 2, patches: 2, cover: true })],
  ],
  // v2 without a cover letter has another title than v1's cover: two series (docs/project.md).
  [
    `${PATCHWORK}/revision-no-cover-letter.mbox`,
    [
      series('A sample series', SFIN, { patches: 2, cover: true }),
      series('test: Add some lorem ipsum', SFIN, { version: 2, patches: 2 }),
    ],
  ],
  [
    `${B4}/trailers-followup-with-cover.mbox`,
    [
      series('Simple cover', B4_TEST, {
        version: 2,
        patches: 2,
        cover: true,
        replies: 2,
        reviewed: 2,
        participants: 2,
      }),
    ],
  ],
  [
    `${B4}/trailers-followup-single.mbox`,
    [series('Simple test', B4_TEST, { replies: 3, reviewed: 2, tested: 1, participants: 4 })],
  ],
  [
    `${B4}/trailers-followup-name-parens.mbox`,
    [series('Simple test', B4_TEST, { replies: 5, reviewed: 2, tested: 3, participants: 6 })],
  ],
  [
    `${B4}/trailers-thread-with-cover-followup.mbox`,
    [
      series('This is a cover for test series 1', KONSTANTIN, {
        patches: 4,
        cover: true,
        replies: 2,
        reviewed: 1,
        tested: 1,
        participants: 3,
      }),
    ],
  ],
  // v3 of patch 2 alone, in reply to v2's patch 2: the latest version has one patch and no cover letter.
  [
    `${B4}/trailers-followup-partial-reroll.mbox`,
    [
      series('Simple cover', B4_TEST, {
        version: 3,
        versions: 2,
        patches: 1,
        replies: 2,
        reviewed: 2,
        participants: 2,
      }),
    ],
  ],
];

describeOnDialectDatabases(
  'pr_equivalents of the patchwork and b4 samples on $dialect',
  (databases) => {
    let store: Store;
    let rows: Row[];
    beforeAll(async () => {
      store = await openStore((await databases.create()).url);
      rows = await projectedEquivalents(
        store,
        TABLE.map(([file]) => [file, messagesOf(corpusPath(file))]),
      );
    });
    afterAll(async () => {
      await store.close();
    });

    it.each(TABLE)('counts the series of %s as counted by hand', (file, expected) => {
      expectSeries(rows, file, expected);
    });
  },
  { skip: corpusMissing },
);
