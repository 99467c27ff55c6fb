import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import type { VerifyResult } from '../../src/core/verify/verify-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { withStoreAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

// Six messages over three months: a Jira event, a patch, its review, and a threaded discussion.
const MBOX = fileURLToPath(new URL('../fixtures/report/dev.mbox', import.meta.url));
const KAFKA = 'https://github.com/apache/kafka';

const invariant = (result: VerifyResult, name: string) => result.invariants.find((i) => i.name === name);

describeOnDialectDatabases('verify finds mail a finished stage left behind on $dialect', (databases) => {
  let db: TestDatabase;
  const cli = (args: string[]) => runCli([...args, '--db', db.url]);
  const verify = (args: string[] = []) => runCliJson<VerifyResult>(['verify', '--strict', ...args, '--db', db.url]);
  const run = (sql: string) => withStoreAt(db.url, async (store) => void (await store.db.run(sql)));

  beforeAll(async () => {
    db = await databases.create();
    for (const stage of [
      // An mbox list given Apache rules is projected as Apache lists are (clean_fit).
      ['lists', 'add', '--system', 'mbox', MBOX, '--rules', 'apache_ponymail', '--repo', KAFKA],
      ['fetch', '--full'],
      ['classify'],
      ['drain'],
    ]) {
      const result = await cli(stage);
      expect(result.code, `${stage[0]}: ${result.stderr}`).toBe(0);
    }
  });

  it('a clean_fit list drained but never projected fails --strict, and passes once project ran', async () => {
    const before = await verify();
    expect(before.code, before.stderr).toBe(3);
    expect(before.json.failing).toContain('projection-complete');
    expect(invariant(before.json, 'projection-complete')!.details.join('\n')).toContain(
      `mbox ${MBOX}: never projected`,
    );
    expect((await cli(['project'])).code).toBe(0);
    const after = await verify();
    expect(after.json.failing).not.toContain('projection-complete');
  });

  it('mail left staged or classified after classify and drain ran over the list fails --strict, naming it', async () => {
    // The list's first message goes back to `staged`, its second to `classified`, as a stage that skipped them would leave them.
    await run(`UPDATE staged_messages SET status = 'staged' WHERE id = (SELECT MIN(id) FROM staged_messages)`);
    await run(
      `UPDATE staged_messages SET status = 'classified' WHERE id = (SELECT MIN(id) FROM staged_messages WHERE status = 'drained')`,
    );
    const { code, json, stderr } = await verify();
    expect(code, stderr).toBe(3);
    expect(json.failing).toContain('no-stuck-mail');
    const stuck = invariant(json, 'no-stuck-mail')!;
    expect(stuck.violations).toBe(2);
    expect(stuck.details.join('\n')).toMatch(/left staged after classify ran over the list/);
    expect(stuck.details.join('\n')).toMatch(/left classified after drain ran over the list/);
    expect(stderr).toContain('no-stuck-mail');
  });

  it('mail fetched after the last classify and drain is pending, not stuck', async () => {
    // Every row drained again, then the newest made fresh: fetched after the stages last ran.
    await run(`UPDATE staged_messages SET status = 'drained'`);
    await run(
      `UPDATE staged_messages SET status = 'staged', updated_at = '2999-01-01T00:00:00.000Z' WHERE id = (SELECT MAX(id) FROM staged_messages)`,
    );
    const { json } = await verify();
    expect(json.failing).not.toContain('no-stuck-mail');
    expect(invariant(json, 'no-stuck-mail')!.ok).toBe(true);
    expect(invariant(json, 'staged-accounted')!.details.join('\n')).toContain('1 pending');
    await run(`UPDATE staged_messages SET status = 'drained'`);
  });

  it("verify runs the engine's own integrity check and says what it checked", async () => {
    const { json } = await verify();
    const integrity = invariant(json, 'engine-integrity')!;
    expect(integrity).toBeDefined();
    expect(integrity.ok).toBe(true);
    expect(integrity.details.join('\n')).toMatch(db.dialect === 'sqlite' ? /PRAGMA quick_check/ : /index/);
  });
});

describeOnDialectDatabases('lists add --repo correcting a list that holds mail on $dialect', (databases) => {
  it("moves the list's stored mail to the new repo, drops the synthetic issues made under the old one, and project links it again", async () => {
    const db = await databases.create();
    const cli = (args: string[]) => runCli([...args, '--db', db.url]);
    const WRONG = 'https://github.com/apache/kafka-site';
    for (const stage of [
      ['lists', 'add', '--system', 'mbox', MBOX, '--rules', 'apache_ponymail', '--repo', WRONG],
      ['fetch', '--full'],
      ['classify'],
      ['drain'],
      ['project'],
    ]) {
      const result = await cli(stage);
      expect(result.code, `${stage[0]}: ${result.stderr}`).toBe(0);
    }
    const underRepo = (url: string) =>
      withStoreAt(db.url, async (store) => ({
        messages: Number(
          (await store.db.get<{ n: number }>(
            'SELECT COUNT(*) AS n FROM email_messages e JOIN repos r ON r.id = e.repo_id WHERE r.url = ?',
            [url],
          ))!.n,
        ),
        synthetic: Number(
          (await store.db.get<{ n: number }>(
            'SELECT COUNT(*) AS n FROM issues i JOIN repos r ON r.id = i.repo_id WHERE r.url = ? AND i.id < 0',
            [url],
          ))!.n,
        ),
      }));
    // project made a synthetic issue of the list's tracker mail under the wrong repo.
    expect(await underRepo(WRONG)).toEqual({ messages: 6, synthetic: 1 });

    const add = await cli(['lists', 'add', '--system', 'mbox', MBOX, '--repo', KAFKA]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain(
      `moved its 6 stored message(s) from ${WRONG} to ${KAFKA} and dropped 1 synthetic issue(s) made under the old repo`,
    );
    expect(await underRepo(WRONG)).toEqual({ messages: 0, synthetic: 0 });
    expect((await underRepo(KAFKA)).messages).toBe(6);

    const unprojected = await withStoreAt(db.url, async (store) =>
      Number(
        (await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM email_messages WHERE projected_kind IS NULL'))!.n,
      ),
    );
    expect(unprojected).toBe(6);
    expect((await cli(['project'])).code).toBe(0);
    const { json } = await runCliJson<VerifyResult>(['verify', '--db', db.url]);
    expect(invariant(json, 'projection-complete')!.ok).toBe(true);
  });
});
