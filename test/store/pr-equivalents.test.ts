import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '../../src/core/store/store.js';
import { openStore } from '../../src/core/store/open-store.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { fixtureMessages } from '../helpers/mail-files.js';
import { expectSeries, projectedEquivalents, series, type Expected, type Row } from '../helpers/pr-equivalents.js';

const ANA = 'ana@example.org';

// Counted by hand from each mbox (every file is its own list): the series, the versions posted, the patches of the
// latest version, its cover letter, the replies and the Reviewed-by/Acked-by/Tested-by trailers the replies carry.
const TABLE: Array<[file: string, rows: Expected[]]> = [
  // b4: a v2 series with a cover letter, its review, and v3 of patch 2 alone in reply to v2's patch 2.
  [
    'kernel/series.mbox',
    [
      series('widget: fix probe error paths', ANA, {
        version: 3,
        versions: 2,
        patches: 1,
        replies: 3,
        reviewed: 1,
        acked: 1,
        tested: 1,
        participants: 3,
      }),
    ],
  ],
  // git send-email: v2 without a cover letter in reply to v1's first patch; a cover letter over two patches.
  [
    'kernel/revisions.mbox',
    [
      series('gadget: add the reset callback', 'sam@example.com', { version: 2, versions: 2, patches: 2 }),
      series('opp: drop the stale table', 'lee@example.com', { patches: 2, cover: true }),
    ],
  ],
];

describeOnDialectDatabases('pr_equivalents on $dialect', (databases) => {
  let store: Store;
  let rows: Row[];

  beforeAll(async () => {
    store = await openStore((await databases.create()).url);
    rows = await projectedEquivalents(store, [
      ...TABLE.map(([file]) => [file, fixtureMessages(file)] as [string, Buffer[]]),
      ['kernel-merged', fixtureMessages('project/kernel-merged.mbox')],
    ]);
  });
  afterAll(async () => {
    await store.close();
  });

  it.each(TABLE)('counts the series of %s as counted by hand', (file, expected) => {
    expectSeries(rows, file, expected);
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
    expect({
      issues: Number(counts!.issues),
      unprojected: Number(counts!.unprojected),
      linked: Number(counts!.linked),
    }).toEqual({ issues: 0, unprojected: 0, linked: 0 });
  });
});
