import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ClassifyResult } from '../../src/core/classify/classify-staged.js';
import type { MessageExplanation } from '../../src/core/classify/explain-message.js';
import type { ExportManifest } from '../../src/core/export/export-research-tables.js';
import type { StatsResult } from '../../src/core/stats/collect-stats.js';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { digestStore } from '../helpers/store-digest.js';
import { ADD_SAMPLE_LISTS, KERNEL, QUARRY } from '../helpers/sample-lists.js';

const root = (name: string) => fileURLToPath(new URL(`../../${name}`, import.meta.url));
const BUNDLED = readFileSync(root('systems.yaml'), 'utf8');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const BUNDLED_HASH = sha256(BUNDLED);
const VERSION = (JSON.parse(readFileSync(root('package.json'), 'utf8')) as { version: string }).version;
/** The bundled rules with one rule put first: every mail Jira sends is discussion. */
const JIRA_AS_DISCUSS = BUNDLED.replace(
  '      - name: jira-created\n',
  "      - name: jira-as-discuss\n        class: discuss\n        sender: '<jira@'\n      - name: jira-created\n",
);

interface HistoryRow {
  message_key: string;
  old_class: string;
  new_class: string;
  old_class_source: string | null;
  new_class_source: string;
  old_rules_hash: string | null;
  new_rules_hash: string;
  listminer_version: string;
}

/**
 * Every label says which rules made it: the systems file's sha256, the rule
 * and listminer's version, on staged and stored mail, in stats and in the
 * export manifest; --reclassify keeps the labels it replaces; --explain shows
 * why a message got its class; --dry-run writes nothing.
 */
describeOnDialectDatabases('label provenance, classify --explain and --dry-run on $dialect', (databases) => {
  let db: TestDatabase;
  let dir: string;
  let changedRules: string;
  const query = async <T>(sql: string): Promise<T[]> => {
    const store = await openStore(db.url);
    try {
      return await store.db.all<T>(sql);
    } finally {
      await store.close();
    }
  };
  const historyCount = async () =>
    Number((await query<{ n: number }>('SELECT COUNT(*) AS n FROM label_history'))[0]!.n);

  beforeAll(async () => {
    db = await databases.create();
    dir = await mkdtemp(join(tmpdir(), 'listminer-provenance-'));
    changedRules = join(dir, 'systems.yaml');
    expect(JIRA_AS_DISCUSS).not.toBe(BUNDLED);
    await writeFile(changedRules, JIRA_AS_DISCUSS);
    const stages = [...ADD_SAMPLE_LISTS, ['fetch', '--full', '--now'], ['classify'], ['drain']];
    for (const stage of stages) {
      const run = await runCli([...stage, '--db', db.url]);
      expect(run.code, `${stage.join(' ')}: ${run.stderr}`).toBe(0);
    }
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('records on every label the rules file hash, the rule and the listminer version, staged and drained alike', async () => {
    const staged = await query<{
      rules_hash: string | null;
      listminer_version: string | null;
      class_source: string | null;
      n: number;
    }>(
      'SELECT rules_hash, listminer_version, MIN(class_source) AS class_source, COUNT(*) AS n FROM staged_messages GROUP BY rules_hash, listminer_version',
    );
    expect(staged).toHaveLength(1);
    expect(staged[0]).toMatchObject({ rules_hash: BUNDLED_HASH, listminer_version: VERSION });
    const stored = await query<{ rules_hash: string | null; listminer_version: string | null; n: number }>(
      'SELECT rules_hash, listminer_version, COUNT(*) AS n FROM email_messages GROUP BY rules_hash, listminer_version',
    );
    expect(stored).toEqual([{ rules_hash: BUNDLED_HASH, listminer_version: VERSION, n: expect.anything() }]);
    expect(Number(stored[0]!.n)).toBe(294 + 49);
  });

  it('stats names the rules hash and listminer version of the stored labels, with their message counts', async () => {
    const json = await runCliJson<StatsResult>(['stats', '--db', db.url]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json.labelProvenance).toEqual([{ rulesHash: BUNDLED_HASH, listminerVersion: VERSION, messages: 343 }]);
    const text = await runCli(['stats', '--db', db.url]);
    expect(text.stdout).toContain(BUNDLED_HASH);
    expect(text.stdout).toMatch(new RegExp(`${VERSION.replaceAll('.', '\\.')}\\s*│\\s*343`));
  });

  it('the export manifest names the rules hash and version, and the messages table carries them per row', async () => {
    const out = join(dir, 'export');
    const run = await runCli(['export', '--db', db.url, '--format', 'jsonl', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as ExportManifest;
    expect(manifest.labelProvenance).toEqual([{ rulesHash: BUNDLED_HASH, listminerVersion: VERSION, messages: 343 }]);
    const messages = manifest.files.find((f) => f.table === 'email_messages')!;
    expect(messages.columns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['class_source', 'rules_hash', 'listminer_version']),
    );
    const first = JSON.parse((await readFile(join(out, 'email_messages.jsonl'), 'utf8')).split('\n')[0]!) as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({ rules_hash: BUNDLED_HASH, listminer_version: VERSION });
  });

  it('--explain names the winning rule of an Apache message, its captures, and the rules before it that did not match, and why', async () => {
    const run = await runCli(['classify', '--db', db.url, '--explain', '<gh-comment.6@quarry.example.org>']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`mbox ${QUARRY}: message gh-comment.6@quarry.example.org (drained)`);
    expect(run.stdout).toContain(
      `stored label: github_mirror by gitbox-pull-request:subject (rules ${BUNDLED_HASH.slice(0, 12)}, listminer ${VERSION})`,
    );
    expect(run.stdout).toMatch(
      / 1\. jira-created → issue_event: no match\n\s+subject \/.+\/i did not match "\[GitHub\] \[quarry\] emil commented on pull request #101: QUARRY-201: Scanner drops the last row of a split"/,
    );
    expect(run.stdout).toMatch(
      /\d+\. gitbox-pull-request → github_mirror: MATCHED\n\s+subject \/.+\/i matched "\[GitHub\] \[quarry\] emil commented on pull request #101: QUARRY-201"/,
    );
    expect(run.stdout).toContain(
      'captures: owner="apache", kind="pull_request", repo="quarry", actor="emil", action="commented", number="101", external_key="QUARRY-201"',
    );
    expect(run.stdout).toMatch(
      /\nwinner: github_mirror by gitbox-pull-request:subject \(\d+ later rule\(s\) not tried\)\n?$/,
    );
    // The Jira mail it answers: the first rule decides.
    const jira = await runCliJson<MessageExplanation>([
      'classify',
      '--db',
      db.url,
      '--explain',
      'jira.1@quarry.example.org',
    ]);
    expect(jira.json.trials).toHaveLength(1);
    expect(jira.json.winner).toEqual({
      msgClass: 'issue_event',
      source: 'jira-created:subject',
      captures: { action: 'created', external_key: 'QUARRY-201' },
    });
  });

  it('--explain on a kernel patch: the winner, and a rule that did not match with the field and pattern that failed', async () => {
    const run = await runCliJson<MessageExplanation>([
      'classify',
      '--db',
      db.url,
      '--explain',
      '2024020502.ravi@example.invalid',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { json } = run;
    expect(json.message).toMatchObject({ messageKey: '2024020502.ravi@example.invalid', status: 'drained' });
    expect(json.rulesHash).toBe(BUNDLED_HASH);
    expect(json.winner?.msgClass).toBe('patch_submission');
    const winner = json.trials.at(-1)!;
    expect(winner.matched).toBe(true);
    expect(json.winner?.source).toMatch(new RegExp(`^${winner.name}:`));
    const failed = json.trials[0]!;
    expect(failed).toMatchObject({ name: 'jira-created', matched: false });
    expect(failed.steps.at(-1)).toMatchObject({
      field: 'subject',
      matched: false,
      seen: '[PATCH net-next 1/3] net: foo: reset the MAC on probe',
    });
    expect(json.trials.slice(0, -1).every((t) => !t.matched)).toBe(true);
    const text = await runCli([
      'classify',
      '--db',
      db.url,
      '--explain',
      '<2024020502.ravi@example.invalid>',
      '--list',
      KERNEL,
    ]);
    expect(text.stdout).toMatch(
      /jira-created → issue_event: no match\n\s+subject \/.+\/i did not match "\[PATCH net-next 1\/3\] net: foo: reset the MAC on probe"/,
    );
  });

  it('--explain of a message the store does not hold says so and exits 2', async () => {
    const run = await runCli(['classify', '--db', db.url, '--explain', '<nobody@nowhere.invalid>']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No stored message has the Message-ID or message key "<nobody@nowhere.invalid>"');
    const elsewhere = await runCli([
      'classify',
      '--db',
      db.url,
      '--explain',
      'jira.1@quarry.example.org',
      '--list',
      KERNEL,
    ]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`on mbox ${KERNEL}`);
  });

  it('--reclassify --dry-run prints the changes of class the new rules would make and writes nothing', async () => {
    const before = await digestStore(db.url);
    const labels = await query(
      'SELECT message_key, msg_class, class_source, rules_hash FROM email_messages ORDER BY message_key',
    );
    const run = await runCli(['classify', '--db', db.url, '--reclassify', '--dry-run', '--systems', changedRules]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^dry run, nothing written: would have classified 343, shunted 0, changed class \d+/);
    expect(run.stdout).toMatch(/ {2}issue_event → discuss: \d+\n/);
    const json = await runCliJson<ClassifyResult>([
      'classify',
      '--db',
      db.url,
      '--reclassify',
      '--dry-run',
      '--systems',
      changedRules,
    ]);
    expect(json.json).toMatchObject({
      dryRun: true,
      provenance: { rulesHash: sha256(JIRA_AS_DISCUSS), listminerVersion: VERSION },
    });
    expect(json.json.changes.find((c) => c.from === 'issue_event' && c.to === 'discuss')?.count).toBeGreaterThan(0);
    expect(await digestStore(db.url)).toEqual(before);
    expect(
      await query('SELECT message_key, msg_class, class_source, rules_hash FROM email_messages ORDER BY message_key'),
    ).toEqual(labels);
    expect(await historyCount()).toBe(0);
  });

  it('--reclassify after a rule change keeps each replaced label in label_history with both hashes; the same rules again add none', async () => {
    const run = await runCliJson<ClassifyResult>([
      'classify',
      '--db',
      db.url,
      '--reclassify',
      '--systems',
      changedRules,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const toDiscuss = run.json.changes.find((c) => c.from === 'issue_event' && c.to === 'discuss')!.count;
    const history = await query<HistoryRow>(
      'SELECT message_key, old_class, new_class, old_class_source, new_class_source, old_rules_hash, new_rules_hash, listminer_version FROM label_history ORDER BY message_key',
    );
    expect(history.length).toBeGreaterThanOrEqual(run.json.changed);
    expect(history.filter((h) => h.old_class === 'issue_event')).toHaveLength(toDiscuss);
    for (const row of history) {
      expect(row).toMatchObject({
        new_class: 'discuss',
        new_class_source: 'jira-as-discuss:sender',
        old_rules_hash: BUNDLED_HASH,
        new_rules_hash: sha256(JIRA_AS_DISCUSS),
        listminer_version: VERSION,
      });
    }
    expect(history.find((h) => h.message_key === 'jira.1@quarry.example.org')).toMatchObject({
      old_class: 'issue_event',
      old_class_source: 'jira-created:subject',
    });
    // Relabelled mail goes back to drain, which brings its research row the new label with its provenance; drain adds no history.
    const drain = await runCli(['drain', '--db', db.url]);
    expect(drain.code, drain.stderr).toBe(0);
    const stored = await query<{ rules_hash: string; n: number }>(
      'SELECT rules_hash, COUNT(*) AS n FROM email_messages GROUP BY rules_hash',
    );
    expect(stored.map((r) => r.rules_hash)).toEqual([sha256(JIRA_AS_DISCUSS)]);
    expect(await historyCount()).toBe(history.length);

    const again = await runCliJson<ClassifyResult>([
      'classify',
      '--db',
      db.url,
      '--reclassify',
      '--systems',
      changedRules,
    ]);
    expect(again.json.changed).toBe(0);
    expect(await historyCount()).toBe(history.length);

    const stats = await runCliJson<StatsResult>(['stats', '--db', db.url]);
    expect(stats.json.labelProvenance).toEqual([
      { rulesHash: sha256(JIRA_AS_DISCUSS), listminerVersion: VERSION, messages: 343 },
    ]);
  });
});
