import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import { runCliJson } from '../helpers/cli.js';
import { queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

/** Dates that name no zone, each within a day of a month's edge; the From_ lines give no better date. */
const DATES = [
  'Sun, 1 Jan 2023 00:30:00',
  'Tue, 31 Jan 2023 23:30:00',
  'Wed, 1 Mar 2023 05:00:00',
  '2023-04-30 22:15:00',
  'Sat, 1 Jul 2023 00:00:00 +0200',
];
const mail = (id: string, date: string) =>
  `From: Jane <${id}@example.org>\nDate: ${date}\nMessage-ID: <${id}@example.org>\nSubject: ${id}\n\nbody of ${id}\n`;
const MBOX = DATES.map((date, i) => `From m${i}@example.org Thu Jan  1 00:00:00 1970\n${mail(`m${i}`, date)}\n`).join(
  '',
);

interface Row {
  message_id: string;
  archive_month: string;
  sent_at: string | null;
  sent_at_offset: number | null;
}

describeOnDialectDatabases('sync of zone-less dates on machines in different zones on $dialect', (databases) => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-tz-'));
    writeFileSync(join(dir, 'zoneless.mbox'), MBOX);
    // A Maildir whose file names carry no delivery time: months come from the Date headers.
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(dir, 'maildir', folder), { recursive: true });
    DATES.forEach((date, i) => writeFileSync(join(dir, 'maildir', 'cur', `msg-${i}:2,S`), mail(`d${i}`, date)));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A sync of the mbox by a machine in `zone`, into its own database, with its own cache. */
  async function syncIn(zone: string): Promise<Row[]> {
    const db = await databases.create();
    const env = { TZ: zone, LISTMINER_CACHE: mkdtempSync(join(dir, 'cache-')) };
    for (const path of [join(dir, 'zoneless.mbox'), join(dir, 'maildir')]) {
      const { code, json, stderr } = await runCliJson<SyncResult>(
        ['sync', path, '--rules', 'public_inbox', '--repo', 'https://github.com/example/tz', '--db', db.url],
        { env },
      );
      expect(code, stderr).toBe(0);
      expect(json.drain).toMatchObject({ drained: DATES.length, shunted: 0 });
    }
    const rows = await queryAt<Row>(
      db.url,
      `SELECT s.message_id, s.archive_month, e.sent_at, e.sent_at_offset FROM staged_messages s JOIN email_messages e ON e.list_id = s.list_id AND e.message_key = s.message_key ORDER BY s.message_id`,
    );
    // PostgreSQL hands back timestamps as Date objects, SQLite as text.
    return rows.map((r) => ({ ...r, sent_at: r.sent_at === null ? null : new Date(r.sent_at).toISOString() }));
  }

  it('stores the same sent_at and archive months under TZ=Pacific/Chatham and TZ=UTC, mbox and Maildir alike, reading a date without a zone as UTC', async () => {
    const chatham = await syncIn('Pacific/Chatham');
    const utc = await syncIn('UTC');
    expect(chatham).toEqual(utc);
    const expected = [
      ['2023-01', '2023-01-01T00:30:00.000Z', null],
      ['2023-01', '2023-01-31T23:30:00.000Z', null],
      ['2023-03', '2023-03-01T05:00:00.000Z', null],
      ['2023-04', '2023-04-30T22:15:00.000Z', null],
      ['2023-06', '2023-06-30T22:00:00.000Z', 120],
    ];
    expect(
      utc.filter((r) => r.message_id.startsWith('m')).map((r) => [r.archive_month, r.sent_at, r.sent_at_offset]),
    ).toEqual(expected);
    expect(
      utc.filter((r) => r.message_id.startsWith('d')).map((r) => [r.archive_month, r.sent_at, r.sent_at_offset]),
    ).toEqual(expected);
  });
});
