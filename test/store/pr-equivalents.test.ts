import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { classifyStaged } from '../../src/core/classify/classify-staged.js';
import { projectLists } from '../../src/core/project/project-lists.js';
import type { Store } from '../../src/core/store/store.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { openStore } from '../../src/core/store/open-store.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { addTestList, drain } from '../helpers/drain-fixtures.js';
import { readMbox } from '../helpers/stage-classified.js';

const PATCHWORK = 'patchwork/patchwork/tests/data/series';
const B4 = 'b4/src/tests/samples';
const MERGED = fileURLToPath(new URL('../fixtures/project/kernel-merged.mbox', import.meta.url));
const SFIN = 'stephenfinucane@gmail.com';
const B4_TEST = 'test@example.com';
const KONSTANTIN = 'konstantin@linuxfoundation.org';

interface Row {
  list: string;
  title: string;
  author: string;
  version: number;
  versions: number;
  patches: number;
  cover: boolean;
  replies: number;
  reviewed: number;
  acked: number;
  tested: number;
  participants: number;
  merged: boolean;
}

type Expected = Omit<Row, 'list' | 'merged'> & { merged?: boolean };
const series = (title: string, author: string, counts: Partial<Expected> = {}): Expected => ({
  title,
  author,
  version: 1,
  versions: 1,
  patches: 1,
  cover: false,
  replies: 0,
  reviewed: 0,
  acked: 0,
  tested: 0,
  participants: 1,
  ...counts,
});

// Counted by hand from each mbox (every file is its own list): the series, the versions posted, the patches of the
// latest version, its cover letter, the replies and the Reviewed-by/Acked-by/Tested-by trailers the replies carry.
const TABLE: Array<[file: string, rows: Expected[]]> = [
  [`${PATCHWORK}/base-cover-letter.mbox`, [series('A sample series', SFIN, { patches: 2, cover: true })]],
  [`${PATCHWORK}/base-no-cover-letter.mbox`, [series('test: Add some lorem ipsum', SFIN, { patches: 2 })]],
  [`${PATCHWORK}/base-single-patch.mbox`, [series('test: Add some lorem ipsum', SFIN)]],
  // A v3 cover letter over unversioned patches: the patches are v3. Their Reviewed-by trailers are the author's, not replies.
  [`${PATCHWORK}/base-different-versions.mbox`, [series('net: dsa: Multi-CPU ground work (v3)', 'f.fainelli@gmail.com', { version: 3, patches: 4, cover: true })]],
  // v2 posted as a new thread: the same series as v1 (same author, same title).
  [`${PATCHWORK}/revision-basic.mbox`, [series('A sample series', SFIN, { version: 2, versions: 2, patches: 2, cover: true })]],
  // v2 posted in reply to v1's cover letter: one thread, one series.
  [`${PATCHWORK}/revision-threaded-to-cover.mbox`, [series('A sample series', SFIN, { version: 2, versions: 2, patches: 2, cover: true })]],
  // v2 without a cover letter has another title than v1's cover: two series (docs/project.md).
  [
    `${PATCHWORK}/revision-no-cover-letter.mbox`,
    [series('A sample series', SFIN, { patches: 2, cover: true }), series('test: Add some lorem ipsum', SFIN, { version: 2, patches: 2 })],
  ],
  [`${B4}/trailers-followup-with-cover.mbox`, [series('Simple cover', B4_TEST, { version: 2, patches: 2, cover: true, replies: 2, reviewed: 2, participants: 2 })]],
  [`${B4}/trailers-followup-single.mbox`, [series('Simple test', B4_TEST, { replies: 3, reviewed: 2, tested: 1, participants: 4 })]],
  [`${B4}/trailers-followup-name-parens.mbox`, [series('Simple test', B4_TEST, { replies: 5, reviewed: 2, tested: 3, participants: 6 })]],
  [
    `${B4}/trailers-thread-with-cover-followup.mbox`,
    [series('This is a cover for test series 1', KONSTANTIN, { patches: 4, cover: true, replies: 2, reviewed: 1, tested: 1, participants: 3 })],
  ],
  // v3 of patch 2 alone, in reply to v2's patch 2: the latest version has one patch and no cover letter.
  [`${B4}/trailers-followup-partial-reroll.mbox`, [series('Simple cover', B4_TEST, { version: 3, versions: 2, patches: 1, replies: 2, reviewed: 2, participants: 2 })]],
];

async function loadList(store: Store, name: string, messages: Buffer[]): Promise<void> {
  const listId = await addTestList(store, name, 'https://github.com/torvalds/linux', 'public_inbox');
  await store.staging.stageBatch(
    listId,
    null,
    messages.map((raw) => ({ raw, ...identifyMessage(raw) })),
  );
}

async function equivalents(store: Store): Promise<Row[]> {
  const rows = await store.db.all<Record<string, unknown>>(
    `SELECT l.name AS list, e.* FROM pr_equivalents e JOIN lists l ON l.id = e.list_id ORDER BY l.name, e.title, e.version`,
  );
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.map((r) => {
    expect(r.source).toBe('mailing_list');
    return {
      list: String(r.list),
      title: String(r.title),
      author: String(r.author_address),
      version: Number(r.version),
      versions: Number(r.versions),
      patches: Number(r.patch_count),
      cover: Boolean(r.has_cover_letter),
      replies: Number(r.reply_count),
      reviewed: Number(r.reviewed_by),
      acked: Number(r.acked_by),
      tested: Number(r.tested_by),
      participants: Number(r.participants),
      merged: Boolean(r.merged),
    };
  }).sort((a, b) => byName(a.list, b.list) || byTitle(a, b));
}

/** Titles in code-point order, then versions: the same order whatever the database's collation. */
function byTitle(a: { title: string; version: number }, b: { title: string; version: number }): number {
  return (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) || a.version - b.version;
}

describeOnDialectDatabases('pr_equivalents on $dialect', (databases) => {
  let store: Store;
  let rows: Row[];
  const systems = loadSystems();

  beforeAll(async () => {
    store = await openStore((await databases.create()).url);
    if (!corpusMissing) for (const [file] of TABLE) await loadList(store, file, readMbox(corpusPath(file)));
    await loadList(store, 'kernel-merged', readMbox(MERGED));
    await classifyStaged(store, systems, {}, () => {});
    await drain(store);
    const result = await projectLists(store, { systems }, () => {});
    expect(result.lists.every((l) => l.status === 'projected' && l.policy === 'none')).toBe(true);
    rows = await equivalents(store);
  });
  afterAll(async () => {
    await store.close();
  });

  it.skipIf(Boolean(corpusMissing)).each(TABLE)('counts the series of %s as counted by hand', (file, expected) => {
    const got = rows.filter((r) => r.list === file).map(({ list: _, ...rest }) => rest);
    expect(got).toEqual(expected.map((e) => ({ merged: false, ...e })).sort(byTitle));
  });

  it('marks a pull merged by pr-tracker-bot in its thread, and a patch merged by a patchwork-bot notice that names it from outside the thread', () => {
    const got = rows.filter((r) => r.list === 'kernel-merged').map(({ list: _, ...rest }) => rest);
    expect(got).toEqual([
      { ...series('Networking for 6.8-rc1', 'kuba@kernel.org'), merged: true },
      { ...series('net: fix foo', 'alice@example.org', { replies: 1, acked: 1, participants: 2 }), merged: true },
    ]);
  });

  it('synthesizes nothing and leaves no message without an outcome on a list whose policy is none', async () => {
    const counts = await store.db.get<{ issues: number; unprojected: number; linked: number }>(
      `SELECT (SELECT COUNT(*) FROM issues) AS issues,
              (SELECT COUNT(*) FROM email_messages WHERE projected_kind IS NULL) AS unprojected,
              (SELECT COUNT(*) FROM email_messages WHERE projected_kind <> 'none') AS linked`,
    );
    expect({ issues: Number(counts!.issues), unprojected: Number(counts!.unprojected), linked: Number(counts!.linked) }).toEqual({ issues: 0, unprojected: 0, linked: 0 });
  });
});
