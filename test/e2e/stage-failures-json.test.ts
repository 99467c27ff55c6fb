import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-stage-failures-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two threads of one message each; the second is the one a trigger refuses. */
function writeMbox(name: string): string {
  const path = join(dir, `${name}.mbox`);
  const mail = ['Hello', 'poison pill'].map((subject, n) =>
    [
      `From jane@example.org Mon Jan  1 00:00:0${n} 2024`,
      `From: Jane <jane${n}@example.org>`,
      `Subject: ${subject}`,
      `Message-ID: <${name}-${n}@example.org>`,
      `Date: Mon, 1 Jan 2024 00:00:0${n} +0000`,
      '',
      `Body ${n}.`,
      '',
    ].join('\n'),
  );
  writeFileSync(path, mail.join('\n'));
  return path;
}

interface StageJson {
  lists: Array<{ name: string; status: string; error?: string }>;
}

describeOnDialectDatabases('a stage whose list failed prints its result under --json on $dialect', (databases) => {
  const exec = async (db: TestDatabase, statements: readonly string[]) => {
    const store = await openStore(db.url);
    try {
      for (const sql of statements) await store.db.run(sql);
    } finally {
      await store.close();
    }
  };
  /** A trigger that refuses what `when` matches on `table`, on either engine. */
  const refuse = (db: TestDatabase, table: string, event: string, when: string) =>
    exec(
      db,
      databases.dialect === 'sqlite'
        ? [
            `CREATE TRIGGER refuse_${table} BEFORE ${event} ON ${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END`,
          ]
        : [
            `CREATE FUNCTION refuse_${table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF ${when} THEN RAISE EXCEPTION 'refused by a test trigger'; END IF; RETURN NEW; END $$`,
            `CREATE TRIGGER refuse_${table} BEFORE ${event} ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_${table}()`,
          ],
    );
  const prepare = async (stages: readonly string[], repo: boolean) => {
    const db = await databases.create();
    const add = [
      'lists',
      'add',
      '--system',
      'mbox',
      ...(repo ? ['--repo', 'https://github.com/example/threads'] : []),
      writeMbox(`list-${Math.random().toString(36).slice(2)}`),
    ];
    for (const args of [add, ['fetch', '--full'], ...stages.map((stage) => [stage])]) {
      const step = await runCli([...args, '--db', db.url]);
      expect(step.code, step.stderr).toBe(0);
    }
    return db;
  };

  /** The stage under --json: its result on stdout names the failed list, its sentence is on stderr, exit 4. */
  const expectFailedListInJson = async (db: TestDatabase, stage: string, done: string) => {
    const run = await runCliJson<StageJson>([stage, '--db', db.url]);
    expect(run.code).toBe(4);
    expect(run.json.lists).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.stringMatching(/refused by a test trigger/) }),
    ]);
    expect(run.stderr).toContain(`Error: 1 of 1 lists failed to ${stage}; the rest ${done}.`);
  };

  it('drain: the JSON result names the failed list, the sentence goes to stderr, exit 4', async () => {
    // A list without a repo defers its mail; refusing that fails the whole list.
    const db = await prepare(['classify'], false);
    await refuse(db, 'staged_messages', 'UPDATE', "NEW.status = 'deferred'");
    await expectFailedListInJson(db, 'drain', 'drained');

    const human = await runCli(['drain', '--db', db.url]);
    expect(human.code).toBe(4);
    expect(human.stderr).toMatch(/: drain failed: .*refused by a test trigger/);
    expect(human.stderr).toContain('Error: 1 of 1 lists failed to drain; the rest drained.');
  });

  it('project: the JSON result names the failed list, the sentence goes to stderr, exit 4', async () => {
    // A thread the database refuses is recorded in project_failures; refusing that too fails the whole list.
    const db = await prepare(['classify', 'drain'], true);
    await refuse(db, 'email_messages', 'UPDATE', "NEW.subject LIKE 'poison%'");
    await refuse(db, 'project_failures', 'INSERT', 'TRUE');
    await expectFailedListInJson(db, 'project', 'projected');
  });
});
