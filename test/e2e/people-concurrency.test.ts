import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type TestDatabase, withStoreAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

/**
 * Mail of 800 people, each writing from up to four addresses; half of it
 * patches signed off from one of the sender's addresses, some reviewed by
 * someone else: the trailer rule merges many pairs, in every batch of mail
 * people resolve reads.
 */
function trailerMbox(messages: number): string {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed % n;
  };
  const address = (person: number) => {
    const host = next(4);
    return `p${person}.${host}@host${host}.example`;
  };
  const parts: string[] = [];
  for (let i = 0; i < messages; i++) {
    const person = next(800);
    const name = `Person Number${person} Tester`;
    const from = address(person);
    let body = 'text\n';
    if (next(2) === 0) {
      body = `patch\n\nSigned-off-by: ${name} <${address(person)}>\n`;
      if (next(10) < 3) {
        const reviewer = next(800);
        body += `Reviewed-by: Person Number${reviewer} Tester <${address(reviewer)}>\n`;
      }
      body += '---\n a.c | 1 +\n';
    }
    parts.push(
      `From x@y Mon Jan  1 00:00:00 2024\nFrom: ${name} <${from}>\nTo: dev@list.example.org\n` +
        `Subject: ${body.startsWith('patch') ? `[PATCH] change ${i}` : `Re: talk ${i}`}\n` +
        `Date: Mon, ${1 + (i % 28)} Jan 2024 ${String(i % 24).padStart(2, '0')}:00:00 +0000\n` +
        `Message-ID: <t${i}@gen.example>\n\n${body}\n`,
    );
  }
  return parts.join('');
}

/** Which addresses are one person: each person's addresses, sorted, as one line; the lines sorted. */
const PEOPLE_SQL = `SELECT person_id, value FROM identities WHERE kind = 'email' ORDER BY value`;

describeOnDialectDatabases('two people resolve at once on $dialect', (databases) => {
  let dir: string;
  let alone: TestDatabase;
  let together: TestDatabase;
  const cli = (db: TestDatabase, args: string[]) =>
    runCli([...args, '--db', db.url], { env: { GITHUB_TOKEN: '', LISTMINER_CACHE: join(dir, 'cache') } });
  const grouping = (db: TestDatabase) =>
    withStoreAt(db.url, async (store) => {
      const people = new Map<number, string[]>();
      for (const row of await store.db.all<{ person_id: number; value: string }>(PEOPLE_SQL)) {
        const addresses = people.get(Number(row.person_id)) ?? [];
        addresses.push(row.value);
        people.set(Number(row.person_id), addresses);
      }
      return [...people.values()].map((addresses) => addresses.join(' ')).sort();
    });
  const merges = (db: TestDatabase) =>
    withStoreAt(db.url, (store) =>
      store.db.all<{ n: number; keys: number }>(
        'SELECT COUNT(*) AS n, COUNT(DISTINCT evidence) AS keys FROM person_merges',
      ),
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-people-race-'));
    const mbox = join(dir, 'trailers.mbox');
    writeFileSync(mbox, trailerMbox(6000));
    alone = await databases.create();
    together = await databases.create();
    for (const db of [alone, together]) {
      const added = await cli(db, [
        'lists',
        'add',
        '--system',
        'mbox',
        mbox,
        '--rules',
        'public_inbox',
        '--repo',
        'https://github.com/example/tr',
      ]);
      expect(added.code, added.stderr).toBe(0);
      for (const stage of ['fetch', 'classify', 'drain']) {
        const ran = await cli(db, [stage]);
        expect(ran.code, ran.stderr).toBe(0);
      }
    }
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('records each merge once and ends with the people one process makes', async () => {
    const one = await cli(alone, ['people', 'resolve']);
    expect(one.code, one.stderr).toBe(0);
    const [first, second] = await Promise.all([
      cli(together, ['people', 'resolve']),
      cli(together, ['people', 'resolve']),
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const [made] = await merges(together);
    expect(Number(made!.n), 'merge rows against distinct evidence keys').toBe(Number(made!.keys));
    expect(await merges(together)).toEqual(await merges(alone));
    expect(await grouping(together)).toEqual(await grouping(alone));
  }, 240_000);
});
