import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { digestWrittenTables, dumpDerivedTables } from '../helpers/derived-tables.js';

const QUARRY = fileURLToPath(new URL('../../examples/quarry-dev.mbox', import.meta.url));
const SYSTEMS = fileURLToPath(new URL('../../systems.yaml', import.meta.url));
const REPO = 'https://github.com/apache/quarry';
const ADD = [QUARRY, '--rules', 'apache_ponymail', '--repo', REPO];
/** Each test runs the CLI a dozen times. */
const LONG = 600_000;

interface InvariantJson {
  invariants: Array<{ name: string; ok: boolean; violations: number; details: string[] }>;
}

let dir: string;
let noJira: string;
const config = (handling: string) => {
  const path = join(dir, `${handling}.yaml`);
  writeFileSync(path, `mirror_handling: ${handling}\n`);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'listminer-derived-'));
  // The shipped rules without Jira's: its notifications are labelled discuss.
  const systems = parse(readFileSync(SYSTEMS, 'utf8')) as {
    systems: Record<string, { rules?: Array<{ name?: string }> }>;
  };
  for (const system of Object.values(systems.systems))
    if (system.rules) system.rules = system.rules.filter((rule) => !rule.name?.startsWith('jira'));
  noJira = join(dir, 'no-jira.yaml');
  writeFileSync(noJira, stringify(systems));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], url: string, configFile?: string): Promise<void> {
  const run = await runCli([...args, '--db', url, ...(configFile ? ['--config', configFile] : [])]);
  expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
}

async function invariant(url: string, name: string): Promise<InvariantJson['invariants'][number]> {
  const run = await runCliJson<InvariantJson>(['verify', '--db', url]);
  return run.json.invariants.find((i) => i.name === name)!;
}

/** label_history's rows, and the stored messages whose provenance is not their staged row's (or is missing). */
async function provenance(
  url: string,
): Promise<{ history: number; historyToIssueEvent: number; disagreeing: number; unproven: number }> {
  const store = await openStore(url);
  try {
    const count = async (sql: string) => Number((await store.db.get<{ n: number }>(sql))?.n ?? 0);
    return {
      history: await count('SELECT COUNT(*) AS n FROM label_history'),
      historyToIssueEvent: await count(
        "SELECT COUNT(*) AS n FROM label_history WHERE old_class = 'discuss' AND new_class = 'issue_event'",
      ),
      disagreeing: await count(
        `SELECT COUNT(*) AS n FROM email_messages e JOIN staged_messages s ON s.list_id = e.list_id AND s.message_key = e.message_key
         WHERE e.rules_hash IS DISTINCT FROM s.rules_hash OR e.listminer_version IS DISTINCT FROM s.listminer_version`,
      ),
      unproven: await count('SELECT COUNT(*) AS n FROM email_messages WHERE rules_hash IS NULL'),
    };
  } finally {
    await store.close();
  }
}

/** drain and project once more: neither may write anything when nothing changed. */
async function expectRerunWritesNothing(url: string, configFile?: string): Promise<void> {
  const before = await digestWrittenTables(url);
  const extra = configFile ? ['--config', configFile] : [];
  const drain = await runCliJson<{ drained: number; lists: unknown[] }>(['drain', '--db', url, ...extra]);
  expect(drain.json).toMatchObject({ drained: 0, lists: [] });
  // project re-examines the threads of mirror mail that found nothing to link to (docs/project.md); it changes no row.
  const project = await runCliJson<{
    linked: number;
    created: number;
    inherited: number;
    mirror: number;
    none: number;
  }>(['project', '--db', url, ...extra]);
  expect(project.json).toMatchObject({ linked: 0, created: 0, inherited: 0, mirror: 0, none: 0 });
  expect(await digestWrittenTables(url)).toBe(before);
}

/**
 * What drain and project derived follows what it was derived from: mail
 * relabelled by new rules, or drained under another mirror handling, ends
 * with the very tables a store made right the first time holds, and verify
 * tells a store that did not catch up. The tests that start from a synced
 * sample start from copies of the one made right.
 */
describeOnDialectDatabases('derived data follows its inputs on $dialect', (databases) => {
  let right: TestDatabase;
  let rightFull: TestDatabase;
  beforeAll(async () => {
    right = await databases.create();
    await cli(['sync', ...ADD], right.url);
    rightFull = await databases.create();
    await cli(['sync', ...ADD], rightFull.url, config('full'));
  }, LONG);

  it(
    'mail relabelled as Jira notifications is projected to its issues like mail labelled right the first time',
    async () => {
      const db = await databases.create();
      await cli(['sync', ...ADD, '--systems', noJira], db.url);
      const before = await dumpDerivedTables(db.url);
      expect(before.issues).toEqual([]);
      // With nothing new, project examines only the threads whose mail waits for a GitHub import (docs/project.md).
      const waiting = await runCliJson<{ examined: number }>(['project', '--db', db.url]);
      const reclassify = await runCliJson<{ changes: Array<{ from: string; to: string; count: number }> }>([
        'classify',
        '--reclassify',
        '--db',
        db.url,
      ]);
      expect(reclassify.json.changes).toEqual([{ from: 'discuss', to: 'issue_event', count: 164 }]);
      // The relabelled mail waits for drain: pending, not mail drain went past.
      expect(await invariant(db.url, 'no-stuck-mail')).toMatchObject({ ok: true });
      await cli(['drain'], db.url);
      // classify kept each replaced label once; drain brought the new labels' provenance to the research rows.
      expect(await provenance(db.url)).toEqual({ history: 164, historyToIssueEvent: 164, disagreeing: 0, unproven: 0 });
      const project = await runCliJson<{ examined: number; created: number; inherited: number; issuesCreated: number }>(
        ['project', '--db', db.url],
      );
      // Only the relabelled mail and its threads are examined again (besides those waiting for an import), not the whole list.
      expect(project.json).toMatchObject({
        examined: 164 + waiting.json.examined,
        created: 134,
        inherited: 30,
        issuesCreated: 30,
      });
      const after = await dumpDerivedTables(db.url);
      expect(after.issues.length).toBe(30);
      expect(after).toEqual(await dumpDerivedTables(right.url));
      expect(await invariant(db.url, 'derived-current')).toMatchObject({ ok: true, violations: 0 });
      await expectRerunWritesNothing(db.url);

      // And back: the rules without Jira's undo it all, synthetic issues included.
      await cli(['classify', '--reclassify', '--systems', noJira], db.url);
      await cli(['drain'], db.url);
      await cli(['project'], db.url);
      expect(await dumpDerivedTables(db.url)).toEqual(before);
      await expectRerunWritesNothing(db.url);
    },
    LONG,
  );

  it(
    "a list given another rules system is projected as that system's lists are, like one registered with it",
    async () => {
      const db = await databases.create();
      // Registered first with the generic rules, whose lists are not projected onto issues.
      await cli(['sync', QUARRY, '--rules', 'generic', '--repo', REPO], db.url);
      const add = await runCli([
        'lists',
        'add',
        '--system',
        'mbox',
        QUARRY,
        '--rules',
        'apache_ponymail',
        '--db',
        db.url,
      ]);
      expect(add.code, add.stderr).toBe(0);
      await cli(['classify', '--reclassify'], db.url);
      await cli(['drain'], db.url);
      await cli(['project'], db.url);
      expect(await dumpDerivedTables(db.url)).toEqual(await dumpDerivedTables(right.url));
      expect(await invariant(db.url, 'derived-current')).toMatchObject({ ok: true, violations: 0 });
      await expectRerunWritesNothing(db.url);

      // And back: the generic rules take the projection away again.
      await cli(['lists', 'add', '--system', 'mbox', QUARRY, '--rules', 'generic'], db.url);
      await cli(['classify', '--reclassify'], db.url);
      await cli(['drain'], db.url);
      await cli(['project'], db.url);
      const generic = await databases.create();
      await cli(['sync', QUARRY, '--rules', 'generic', '--repo', REPO], generic.url);
      expect(await dumpDerivedTables(db.url)).toEqual(await dumpDerivedTables(generic.url));
    },
    LONG,
  );

  it(
    'a switch of mirror handling brings the bodies of mirror mail back from the raw bytes, and takes them out again',
    async () => {
      const db = await databases.copy(right);
      const metadataOnly = await dumpDerivedTables(db.url);
      expect(metadataOnly.messages.filter((m) => / \| github_mirror \| .* \| 0 \| {2}\| /.test(m)).length).toBe(46);
      const full = config('full');
      await cli(['drain'], db.url, full);
      await cli(['project'], db.url, full);
      expect(await dumpDerivedTables(db.url)).toEqual(await dumpDerivedTables(rightFull.url));
      await expectRerunWritesNothing(db.url, full);

      const back = config('metadata_only');
      await cli(['drain'], db.url, back);
      await cli(['project'], db.url, back);
      expect(await dumpDerivedTables(db.url)).toEqual(await dumpDerivedTables(right.url));
      expect(await invariant(db.url, 'derived-current')).toMatchObject({ ok: true });
      await expectRerunWritesNothing(db.url, back);
    },
    LONG,
  );

  it(
    'verify fails on derived rows that disagree with their inputs',
    async () => {
      const db = await databases.copy(right);
      expect(await invariant(db.url, 'derived-current')).toMatchObject({ ok: true, violations: 0 });
      const store = await openStore(db.url);
      try {
        const created = await store.db.get<{ id: number; message_key: string }>(
          "SELECT id, message_key FROM email_messages WHERE projected_kind = 'created' ORDER BY message_key LIMIT 1",
        );
        const inherited = await store.db.get<{ id: number; message_key: string }>(
          "SELECT id, message_key FROM email_messages WHERE projected_kind = 'inherited' ORDER BY message_key LIMIT 1",
        );
        const discuss = await store.db.get<{ id: number; message_key: string }>(
          "SELECT id, message_key FROM email_messages WHERE msg_class = 'discuss' ORDER BY message_key LIMIT 1",
        );
        // A stale projection, a link gone, a body missing on mail that always keeps one, a synthetic issue with no mail.
        await store.db.run("UPDATE email_messages SET projected_kind = 'none' WHERE id = ?", [created!.id]);
        await store.db.run('DELETE FROM issue_email_messages WHERE email_message_id = ?', [inherited!.id]);
        await store.db.run('UPDATE email_messages SET body_stored = ? WHERE id = ?', [false, discuss!.id]);
        const repoId = (await store.repos.byUrl(REPO))!.id;
        await store.db.run(
          'INSERT INTO issues (id, repo_id, external_key, state, is_synthetic, comment_count) VALUES (?, ?, ?, ?, ?, ?)',
          [-7, repoId, 'QUARRY-9999', 'open', true, 0],
        );
        // --strict fails on them, and its --json result names them.
        const verify = await runCliJson<InvariantJson>(['verify', '--strict', '--db', db.url]);
        expect(verify.code).not.toBe(0);
        const result = verify.json.invariants.find((i) => i.name === 'derived-current')!;
        expect(result.ok).toBe(false);
        const text = result.details.join('\n');
        expect(text).toContain(`${created!.message_key}: tracker mail projected without its issue`);
        expect(text).toContain(`${inherited!.message_key}: links disagree`);
        expect(text).toContain(`${discuss!.message_key}: body kept or missing`);
        expect(text).toContain('synthetic issue QUARRY-9999 (id -7): no mail');
      } finally {
        await store.close();
      }
    },
    LONG,
  );

  it(
    'lists rm --force takes the synthetic issues only its mail held, and leaves imported ones',
    async () => {
      const db = await databases.copy(right);
      const store = await openStore(db.url);
      try {
        const repoId = (await store.repos.byUrl(REPO))!.id;
        await store.db.run(
          'INSERT INTO issues (id, repo_id, number, title, state, is_synthetic, comment_count) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [501, repoId, 5, 'imported', 'open', false, 0],
        );
        expect(
          Number(
            (await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM issues WHERE is_synthetic = ?', [true]))!.n,
          ),
        ).toBe(30);
      } finally {
        await store.close();
      }
      await cli(['lists', 'rm', QUARRY, '--force'], db.url);
      const after = await openStore(db.url);
      try {
        const issues = await after.db.all<{ id: number }>('SELECT id FROM issues');
        expect(issues.map((i) => Number(i.id))).toEqual([501]);
      } finally {
        await after.close();
      }
    },
    LONG,
  );
});
