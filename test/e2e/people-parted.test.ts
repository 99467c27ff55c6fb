import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type TestDatabase, queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

/** One message of a generated list, dated on the given day of January 2024. */
function message(from: string, subject: string, day: number, id: string, body: string): string {
  return `From x@y Mon Jan  1 00:00:00 2024\nFrom: ${from}\nTo: dev@list.example.org\nSubject: ${subject}\nDate: Mon, ${day} Jan 2024 10:00:00 +0000\nMessage-ID: <${id}@gen.example>\n\n${body}\n\n`;
}

const signedOff = (name: string, address: string) => `fix\n\nSigned-off-by: ${name} <${address}>\n---\n a | 1 +\n`;

describeOnDialectDatabases('people kept apart, and mail after a list is removed, on $dialect', (databases) => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-people-parted-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = async (db: TestDatabase, args: string[]) => {
    const ran = await runCli([...args, '--db', db.url], {
      env: { GITHUB_TOKEN: '', LISTMINER_CACHE: join(dir, 'cache') },
    });
    expect(ran.code, `${args.join(' ')}: ${ran.stderr}`).toBe(0);
    return ran;
  };
  /** Writes a list's mbox of these messages and syncs it into the store; its path. */
  const syncList = async (db: TestDatabase, name: string, messages: string[]) => {
    const mbox = join(dir, `${name}.mbox`);
    writeFileSync(mbox, messages.join(''));
    await cli(db, ['sync', mbox, '--rules', 'public_inbox', '--repo', `https://github.com/example/${name}`]);
    return mbox;
  };
  const personOf = async (db: TestDatabase, address: string) =>
    Number(
      (
        await queryAt<{ person_id: number }>(
          db.url,
          `SELECT person_id FROM identities WHERE kind = 'email' AND value = ?`,
          [address],
        )
      )[0]!.person_id,
    );

  it('never joins again, on later evidence, two people whose merge by hand was undone', async () => {
    const db = await databases.create();
    const mbox = await syncList(db, 'eve', [
      message('Eve Writer <eve@a.example>', 'hi', 1, 'e1', 'body'),
      message('Eve Writer <eve@b.example>', 'hi', 2, 'e2', 'body'),
    ]);
    await cli(db, ['people', 'merge', 'eve@a.example', 'eve@b.example']);
    await cli(db, ['people', 'unmerge', '1']);
    appendFileSync(
      mbox,
      message('Eve Writer <eve@a.example>', '[PATCH] x', 3, 'e3', signedOff('Eve Writer', 'eve@b.example')),
    );
    await cli(db, ['sync']);
    expect(await personOf(db, 'eve@a.example')).not.toBe(await personOf(db, 'eve@b.example'));
    const merges = await queryAt<{ rule: string }>(db.url, 'SELECT rule FROM person_merges ORDER BY id');
    expect(merges.map((m) => m.rule)).toEqual(['manual']);
  });

  it('gives back, with an unmerged address, the names it was seen with while the merge stood', async () => {
    const db = await databases.create();
    const mbox = await syncList(db, 'alice', [
      message('Alice Example <alice@one.example>', 'hi', 1, 'a1', 'body'),
      message('Bob B <bob@b.example>', 'hey', 2, 'b1', 'body'),
    ]);
    await cli(db, ['people', 'merge', 'bob@b.example', 'alice@one.example']);
    appendFileSync(mbox, message('Alice New <alice@one.example>', 'again', 3, 'a2', 'body'));
    await cli(db, ['sync']);
    await cli(db, ['people', 'unmerge', '1']);
    const alice = await personOf(db, 'alice@one.example');
    expect(alice).not.toBe(await personOf(db, 'bob@b.example'));
    const names = await queryAt<{ person_id: number }>(
      db.url,
      "SELECT person_id FROM identities WHERE kind = 'name' AND value = 'Alice New'",
    );
    expect(names.map((n) => Number(n.person_id))).toEqual([alice]);
  });

  it('reads the new mail of a store whose last list was removed, as a store without that list reads it', async () => {
    const db = await databases.create();
    const fresh = await databases.create();
    const a = await syncList(db, 'a', [message('Ann A <ann@a.example>', 'hi', 1, 'a1', 'body')]);
    const b = await syncList(
      db,
      'b',
      [1, 2, 3, 4, 5, 6].map((i) => message(`B${i} Person <b${i}@b.example>`, 'hi', i, `b${i}`, 'body')),
    );
    await cli(db, ['lists', 'rm', b, '--force']);
    appendFileSync(
      a,
      message(
        'Carol Kernel <carol@work.example>',
        '[PATCH] fix',
        9,
        'c1',
        signedOff('Carol Kernel', 'carol@home.example'),
      ) + message('Carol Kernel <carol@home.example>', 'Re: [PATCH] fix', 10, 'c2', 'ok'),
    );
    await cli(db, ['sync']);
    await cli(fresh, ['sync', a, '--rules', 'public_inbox', '--repo', 'https://github.com/example/a']);
    const trailerMerges = (url: string) =>
      queryAt<{ reason: string }>(url, "SELECT reason FROM person_merges WHERE rule = 'trailer' ORDER BY id");
    expect((await trailerMerges(db.url)).length).toBe(1);
    expect(await personOf(db, 'carol@work.example')).toBe(await personOf(db, 'carol@home.example'));
    expect((await trailerMerges(db.url)).length).toBe((await trailerMerges(fresh.url)).length);
  });
});
