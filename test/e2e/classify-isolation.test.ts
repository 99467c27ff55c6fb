import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { BUNDLED_SYSTEMS } from '../../src/core/systems/load-systems.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { startCli } from '../helpers/start-cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-classify-isolation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function mail(n: number, subject: string): string {
  return [
    `From jane@example.org Mon Jan  1 00:00:0${n} 2024`,
    `From: Jane Doe <jane${n}@example.org>`,
    'To: dev@example.org',
    `Subject: ${subject}`,
    `Message-ID: <isolation-${n}@example.org>`,
    `Date: Mon, 1 Jan 2024 00:00:0${n} +0000`,
    '',
    `Message ${n}.`,
    '',
  ].join('\n');
}

/** An mbox of ordinary mail with the given hostile subjects among it. */
function writeMbox(name: string, hostile: readonly string[]): { path: string; count: number } {
  const subjects = ['Hello', ...hostile, 'Re: [PATCH] fix a leak', '[VOTE] Release 1.0'];
  const path = join(dir, name);
  writeFileSync(path, subjects.map((subject, i) => mail(i, subject)).join('\n'));
  return { path, count: subjects.length };
}

/** The bundled systems file with rules of the user's own before the generic ones. */
function writeSystems(name: string, rules: string): string {
  const text = readFileSync(BUNDLED_SYSTEMS, 'utf8').replace(
    '      # ---- Issue trackers.',
    () => `${rules}      # ---- Issue trackers.`,
  );
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describeOnDialectDatabases('classify isolates one message on $dialect', (databases) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await databases.create();
  });
  const statuses = async () => {
    const store = await openStore(db.url);
    try {
      return await store.db.all<{ status: string; error: string | null; subject: string }>(
        `SELECT status, error FROM staged_messages ORDER BY id`,
      );
    } finally {
      await store.close();
    }
  };

  it('syncs mail whose subject repeats reply prefixes (RE : ×40, AW: ×40, [x] ×40) to the end', async () => {
    const mbox = writeMbox('prefixes.mbox', [
      `${'RE : '.repeat(40)}hello`,
      `${'AW:'.repeat(40)}x`,
      `${'[x]'.repeat(40)}x`,
      `${'Re : [dev] AW [2] : '.repeat(20)}x`,
    ]);
    // Before the bundled reply prefix was unambiguous this never ended: the CLI's timeout fails it.
    const run = await runCliJson<{ classify?: { classified: number; shunted: number } }>(
      ['sync', mbox.path, '--db', db.url],
      { timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.classify?.classified).toBe(mbox.count);
    const rows = await statuses();
    expect(rows).toHaveLength(mbox.count);
    for (const row of rows) expect(['drained', 'deferred']).toContain(row.status);
  });

  it("shunts the one message a user's backtracking rule cannot finish, naming the rule, and syncs the rest", async () => {
    const systems = writeSystems(
      'backtracking.yaml',
      `      - name: nested-plus\n        class: vote\n        subject: '^(a+)+$'\n`,
    );
    const mbox = writeMbox('backtracking.mbox', [`${'a'.repeat(64)}!`]);
    const run = await runCliJson<{ classify?: { classified: number; shunted: number } }>(
      ['sync', mbox.path, '--systems', systems, '--db', db.url],
      { timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.classify).toMatchObject({ classified: mbox.count - 1, shunted: 1 });
    const rows = await statuses();
    expect(rows.filter((r) => r.status === 'shunted')).toEqual([
      { status: 'shunted', error: expect.stringMatching(/more than 2000 ms .*rule "nested-plus"/) },
    ]);
    expect(rows.filter((r) => r.status === 'deferred')).toHaveLength(mbox.count - 1);
  });

  it('shunts the one message whose row the database refuses, with the reason, and labels the rest of its batch', async () => {
    // A trigger refuses the row of the message the rule `refused` labels, on either engine (a lone surrogate
    // in a capture was such a row on PostgreSQL until text became storable at the envelope's boundary),
    // whether sync stages it labelled or classify labels it after.
    const systems = writeSystems(
      'refused.yaml',
      `      - name: refused\n        class: discuss\n        subject: '^refuse me'\n`,
    );
    const mbox = writeMbox('refused.mbox', ['refuse me']);
    const store = await openStore(db.url);
    if (databases.dialect === 'sqlite') {
      for (const [name, event] of [
        ['refuse_row', 'UPDATE OF msg_class'],
        ['refuse_new_row', 'INSERT'],
      ])
        await store.db.run(
          `CREATE TRIGGER ${name} BEFORE ${event} ON staged_messages WHEN NEW.class_source LIKE 'refused:%' BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END`,
        );
    } else {
      await store.db.run(
        `CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.class_source LIKE 'refused:%' THEN RAISE EXCEPTION 'refused by a test trigger'; END IF; RETURN NEW; END $$`,
      );
      await store.db.run(
        'CREATE TRIGGER refuse_row BEFORE INSERT OR UPDATE OF msg_class ON staged_messages FOR EACH ROW EXECUTE FUNCTION refuse_row()',
      );
    }
    await store.close();
    // Before, every run failed with an unexpected error and left the list's mail staged.
    const run = await runCliJson<{ classify?: { classified: number; shunted: number } }>([
      'sync',
      mbox.path,
      '--systems',
      systems,
      '--db',
      db.url,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.classify).toMatchObject({ classified: mbox.count - 1, shunted: 1 });
    const rows = await statuses();
    expect(rows.filter((r) => r.status === 'shunted')).toEqual([
      { status: 'shunted', error: expect.stringMatching(/^classify: the database refused the message's row: /) },
    ]);
    expect(rows.filter((r) => r.status === 'deferred')).toHaveLength(mbox.count - 1);
    // The shunted message is kept, and the next run has nothing left to do.
    const again = await runCliJson<{ classified: number; shunted: number }>([
      'classify',
      '--systems',
      systems,
      '--db',
      db.url,
    ]);
    expect(again.json).toMatchObject({ classified: 0, shunted: 0 });
  });

  for (const workers of [1, 2]) {
    it(`stops on SIGTERM while a rule backtracks over message after message (--workers ${workers}), exit 130, the rest left staged`, async () => {
      const systems = writeSystems(
        `slow-${workers}.yaml`,
        `      - name: nested-plus\n        class: vote\n        subject: '^(a+)+$'\n`,
      );
      const mbox = writeMbox(
        `slow-${workers}.mbox`,
        Array.from({ length: 8 }, () => `${'a'.repeat(64)}!`),
      );
      for (const args of [
        ['lists', 'add', '--system', 'mbox', mbox.path],
        ['fetch', '--full'],
      ]) {
        const step = await runCli([...args, '--db', db.url]);
        expect(step.code, step.stderr).toBe(0);
      }
      // Eight messages at a 5 s budget each: the stop comes long before the run could end by itself.
      const running = startCli([
        'classify',
        '--systems',
        systems,
        '--workers',
        String(workers),
        '--match-budget',
        '5000',
        '--db',
        db.url,
      ]);
      // Once the list's work has begun (its progress line), the rules are busy on the first message.
      await new Promise<void>((resolve) => {
        let seen = '';
        running.child.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('(started)')) resolve();
        });
      });
      running.child.kill('SIGTERM');
      const stopped = await running.exited;
      expect(stopped.code, stopped.stderr).toBe(130);
      const rows = await statuses();
      expect(rows.filter((r) => r.status === 'staged').length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.status === 'shunted')).toEqual([]);
    });
  }
});
