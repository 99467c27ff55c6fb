import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { BUNDLED_SYSTEMS } from '../../src/core/systems/load-systems.js';
import { runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-sync-mime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (name: string) => readFileSync(new URL(`../fixtures/mime/${name}`, import.meta.url));

/** The fixtures as one mbox, each behind its From_ line. */
function writeMbox(name: string, files: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    Buffer.concat(
      files.flatMap((file) => [
        Buffer.from('From sender@example.org Mon Jan  1 00:00:00 2024\n'),
        fixture(file),
        Buffer.from('\n'),
      ]),
    ),
  );
  return path;
}

describeOnDialectDatabases('sync on MIME shapes on $dialect', (databases) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await databases.create();
  });
  const storedMail = async () => {
    const store = await openStore(db.url);
    try {
      return await store.db.all<{ subject: string; body: string | null }>(
        'SELECT e.subject, b.body_text AS body FROM email_messages e LEFT JOIN email_message_bodies eb ON eb.email_message_id = e.id LEFT JOIN message_bodies b ON b.id = eb.body_id ORDER BY e.subject',
      );
    } finally {
      await store.close();
    }
  };

  it("stores a forward sent as a top-level message/rfc822 with the inner message's text as its body, and a raw ISO-2022-JP subject decoded", async () => {
    const mbox = writeMbox('mime.mbox', [
      'forward-as-rfc822.eml',
      'iso-2022-jp-raw-subject.eml',
      'iso-2022-jp-raw-subject-multipart.eml',
    ]);
    const run = await runCliJson<{ drain?: { drained: number } }>([
      'sync',
      mbox,
      '--repo',
      'https://github.com/apache/kafka',
      '--db',
      db.url,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const mail = await storedMail();
    expect(mail.map((m) => m.subject)).toEqual(['Fwd: build broken on trunk', 'テスト: 日本語', 'テスト: 日本語']);
    expect(mail[0]!.body).toContain('> From: Bob Builder <bob@example.org>');
    expect(mail[0]!.body).toContain('The nightly build fails in the jünit step.');
  });

  it('passes --match-budget to classify: a rule over the budget shunts its message with the budget named', async () => {
    const systems = join(dir, 'backtracking.yaml');
    writeFileSync(
      systems,
      readFileSync(BUNDLED_SYSTEMS, 'utf8').replace(
        '      # ---- Issue trackers.',
        () =>
          `      - name: nested-plus\n        class: vote\n        subject: '^(a+)+$'\n      # ---- Issue trackers.`,
      ),
    );
    const path = join(dir, 'budget.mbox');
    writeFileSync(
      path,
      `From a@example.org Mon Jan  1 00:00:00 2024\nFrom: A <a@example.org>\nSubject: ${'a'.repeat(40)}!\nMessage-ID: <budget-1@example.org>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\nbody\n`,
    );
    const run = await runCliJson<{ classify?: { shunted: number } }>(
      ['sync', path, '--systems', systems, '--match-budget', '50', '--db', db.url],
      { timeoutMs: 90_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.classify).toMatchObject({ shunted: 1 });
    const store = await openStore(db.url);
    try {
      const rows = await store.db.all<{ error: string }>("SELECT error FROM staged_messages WHERE status = 'shunted'");
      expect(rows).toEqual([{ error: expect.stringMatching(/more than 50 ms .*rule "nested-plus"/) }]);
    } finally {
      await store.close();
    }
  });
});
