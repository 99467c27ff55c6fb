import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import { runCliJson } from '../helpers/cli.js';
import {
  createTestDatabase,
  type Dialect,
  postgresSkipReason,
  queryAt,
  type TestDatabase,
} from '../helpers/databases.js';
import { seededRandom } from '../helpers/seeded-random.js';

/**
 * Text both engines store alike: a lone surrogate (what a UTF-7 word such as
 * `+2D0-` decodes to) becomes U+FFFD where text enters the envelope, and values
 * longer than a PostgreSQL index entry (addresses, series keys, repository
 * urls, message ids) are indexed through a bounded form, so the same mailbox
 * ends drained and projected with the same rows on SQLite and PostgreSQL.
 */
const random = seededRandom(Number(process.env.LISTMINER_SEED ?? 3015));
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const noise = (length: number) => Array.from({ length }, () => random.pick([...ALNUM])).join('');

const LONG_LOCAL = noise(3000).toLowerCase();
const LONG_TITLE = noise(3000);
// A repository URL of 3,000 characters, on a host that sets no bound (GitHub allows names of at most 100).
const LONG_REPO = noise(3000);
const LONGEST_GITHUB_NAME = noise(100);
const LONG_ID = `${noise(3000)}@example.org`;
// The widest Message-ID there is: 995 bytes, all 8-bit, each two bytes of UTF-8 once read as Latin-1.
const WIDE_ID = Buffer.concat([Buffer.alloc(981, 0x80), Buffer.from('@example.org')]);
// The rules read the first 2,048 characters of a subject (rule-set.ts), so a captured tracker key stays below that.
const LONG_TRACKER_KEY = `k${noise(2000).toLowerCase()}-1`;

function mail(n: number, headers: string, body: string): string {
  return `From sender@example.org Mon Jan  6 10:0${n}:00 2025\n${headers}\nDate: Mon, 6 Jan 2025 10:0${n}:00 +0000\nMIME-Version: 1.0\n\n${body}\n\n`;
}

const MBOX = [
  mail(
    1,
    'From: =?UTF-7?Q?+2D0-?= <surrogate@example.org>\nSubject: =?UTF-7?Q?+2D0-?=\nMessage-ID: <surrogate@example.org>\nContent-Type: text/plain; charset=utf-7',
    'lone +2D0- surrogate',
  ),
  mail(
    2,
    `From: Long <${LONG_LOCAL}@example.org>\nSubject: a long address\nMessage-ID: <long-address@example.org>`,
    'hello',
  ),
  mail(
    3,
    `From: Patcher <patcher@example.org>\nSubject: [PATCH 1/2] ${LONG_TITLE}\nMessage-ID: <long-series@example.org>`,
    'a patch',
  ),
  mail(
    4,
    'From: Linker <linker@example.org>\nSubject: a long repository\nMessage-ID: <long-repo@example.org>',
    `see https://github.com/apache/${LONGEST_GITHUB_NAME} for it`,
  ),
  mail(
    5,
    `From: Ider <ider@example.org>\nSubject: a long id\nMessage-ID: <${LONG_ID}>\nIn-Reply-To: <long-address@example.org>`,
    'a reply',
  ),
].join('');
const [beforeId, afterId] = mail(
  6,
  'From: Wide <wide@example.org>\nSubject: a wide id\nMessage-ID: <ID>',
  'wide',
).split('ID>');
const WIDE_MAIL = Buffer.concat([Buffer.from(beforeId!), WIDE_ID, Buffer.from(`>${afterId}`)]);

const TRACKER_MBOX = mail(
  1,
  `From: jira@apache.org\nSubject: [jira] Created: (${LONG_TRACKER_KEY}) a long key\nMessage-ID: <long-key@example.org>`,
  'an issue',
);

const DIALECTS: Dialect[] = postgresSkipReason ? ['sqlite'] : ['sqlite', 'postgres'];
if (postgresSkipReason) console.warn(`storable text: PostgreSQL half skipped: ${postgresSkipReason}`);

/** What the pipeline stored, without ids (they may differ between engines). */
async function readRows(url: string) {
  const messages = await queryAt<Record<string, unknown>>(
    url,
    `SELECT e.message_key, e.message_id, e.subject, e.from_name, e.from_address, e.signaled_repo_url, e.thread_root_key, e.projected_kind, b.body_text, c.email, s.series_key
       FROM email_messages e
       LEFT JOIN email_message_bodies eb ON eb.email_message_id = e.id LEFT JOIN message_bodies b ON b.id = eb.body_id
       LEFT JOIN contributors c ON c.id = e.sender_id LEFT JOIN patch_series s ON s.id = e.patch_series_id
`,
  );
  const staged = await queryAt<Record<string, unknown>>(
    url,
    'SELECT message_key, status, msg_class, captures FROM staged_messages',
  );
  const repos = await queryAt<{ url: string }>(url, 'SELECT url FROM repos');
  const issues = await queryAt<{ external_key: string }>(url, 'SELECT external_key FROM issues');
  // Sorted here: the engines' default collations order text differently. Captures come back as JSON text from SQLite.
  const byKey = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    String(a.message_key) < String(b.message_key) ? -1 : 1;
  const parsed: Array<Record<string, unknown>> = staged.map((s) => ({
    ...s,
    captures: typeof s.captures === 'string' ? JSON.parse(s.captures) : s.captures,
  }));
  return {
    messages: messages.sort(byKey),
    staged: parsed.sort(byKey),
    repos: repos.sort((a, b) => (a.url < b.url ? -1 : 1)),
    issues,
  };
}

describe('text and long values through sync, on every engine alike', () => {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-storable-'));
  const mbox = join(dir, 'hostile.mbox');
  const trackerMbox = join(dir, 'tracker.mbox');
  const databases = new Map<Dialect, TestDatabase>();
  const results = new Map<Dialect, Awaited<ReturnType<typeof readRows>>>();

  beforeAll(async () => {
    writeFileSync(mbox, Buffer.concat([Buffer.from(MBOX), WIDE_MAIL]));
    writeFileSync(trackerMbox, TRACKER_MBOX);
    for (const dialect of DIALECTS) databases.set(dialect, await createTestDatabase(dialect));
  });
  afterAll(async () => {
    for (const database of databases.values()) await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const dialect of DIALECTS) {
    it(`drains and projects every message on ${dialect}`, async () => {
      const url = databases.get(dialect)!.url;
      const added = await runCliJson(['repos', 'add', `https://gitlab.com/apache/${LONG_REPO}`, '--db', url]);
      expect(added.code, added.stderr).toBe(0);
      const tracker = await runCliJson<SyncResult>([
        'sync',
        trackerMbox,
        '--rules',
        'apache_ponymail',
        '--repo',
        'https://github.com/apache/quarry',
        '--db',
        url,
      ]);
      expect(tracker.code, JSON.stringify(tracker.json)).toBe(0);
      expect(tracker.json.project).toMatchObject({ created: 1 });
      const { code, json, stderr } = await runCliJson<SyncResult>([
        'sync',
        mbox,
        '--rules',
        'public_inbox',
        '--repo',
        'https://github.com/apache/quarry',
        '--db',
        url,
      ]);
      expect(code, stderr || JSON.stringify(json)).toBe(0);
      expect(json.fetch.totals).toMatchObject({ staged: 6, failed: 0 });
      expect(json.classify).toMatchObject({ classified: 6, shunted: 0 });
      expect(json.drain).toMatchObject({ drained: 6, deferred: 0, shunted: 0 });
      const rows = await readRows(url);
      expect(rows.staged.map((s) => s.status)).toEqual(Array(7).fill('drained'));
      expect(rows.messages.every((m) => m.projected_kind !== null)).toBe(true);
      const byKey = new Map(rows.messages.map((m) => [m.message_key, m]));
      expect(byKey.get('surrogate@example.org')).toMatchObject({
        subject: '\uFFFD',
        from_name: '\uFFFD',
        body_text: expect.stringMatching(/^lone \uFFFD surrogate\s*$/),
      });
      expect(byKey.get('long-address@example.org')!.email).toBe(`${LONG_LOCAL}@example.org`);
      expect(byKey.get('long-series@example.org')!.series_key).toEqual(
        expect.stringContaining(LONG_TITLE.toLowerCase().slice(0, 100)),
      );
      expect(byKey.get('long-repo@example.org')!.signaled_repo_url).toBe(
        `https://github.com/apache/${LONGEST_GITHUB_NAME}`.toLowerCase(),
      );
      // A Message-ID over 995 characters is no Message-ID (message-key.ts): the message is kept under a key made from its content.
      expect(rows.messages.filter((m) => m.message_id === null)).toHaveLength(1);
      expect(
        rows.messages.map((m) => Buffer.byteLength(String(m.message_id))).sort((a, b) => b - a)[0],
      ).toBeGreaterThan(1950);
      expect(rows.issues).toEqual([expect.objectContaining({ external_key: LONG_TRACKER_KEY.toUpperCase() })]);
      expect(rows.repos.map((r) => r.url)).toContain(`https://gitlab.com/apache/${LONG_REPO}`.toLowerCase());
      results.set(dialect, rows);
    });
  }

  it('stores the subject as valid UTF-8 that Python reads back on SQLite', () => {
    const url = databases.get('sqlite')!.url;
    const script =
      'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nfor (s,) in c.execute("SELECT subject FROM email_messages ORDER BY message_key"): print(s.encode("unicode_escape").decode())\nc.execute("SELECT envelope FROM staged_envelopes").fetchall()';
    const out = execFileSync('python3', ['-c', script, url], { encoding: 'utf8' });
    expect(out).toContain('\\ufffd');
  });

  it.skipIf(DIALECTS.length < 2)('leaves the same rows on SQLite and PostgreSQL', () => {
    expect(results.get('sqlite')).toBeDefined();
    expect(results.get('postgres')).toEqual(results.get('sqlite'));
  });
});
