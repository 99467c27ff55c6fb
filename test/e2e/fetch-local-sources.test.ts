import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { addListAt } from '../helpers/add-list-at.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { type TestDatabase, queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

interface ListJson {
  list: string;
  status: string;
  monthsPlanned: number;
  monthsFetched: number;
  seen: number;
  staged: number;
  duplicates: number;
  error?: { kind: string; message: string };
  skippedEntries?: Array<{ path: string; reason: string }>;
}
interface FetchJson {
  lists: ListJson[];
  totals: { staged: number; failed: number };
}
interface LsJson {
  lists: Array<{
    name: string;
    skippedEntries: Array<{ path: string; reason: string; firstSeenAt: string; lastSeenAt: string }>;
  }>;
}

const NOW_MONTH = monthOf(new Date());
/** A moment in the month `back` months before this one. */
const inMonth = (back: number, day = 10) =>
  new Date(`${addMonths(NOW_MONTH, -back)}-${String(day).padStart(2, '0')}T12:00:00Z`);
/** `From x@example.org Mon Mar 10 12:00:00 2025`, the From_ line of a message sent at `at`. */
const fromLine = (at: Date) => {
  const [weekday, day, month, year, time] = at.toUTCString().replace(',', '').split(' ');
  return `From x@example.org ${weekday} ${month} ${day} ${time} ${year}`;
};
const mail = (id: string, at: Date) =>
  `From: ${id}@example.org\nDate: ${at.toUTCString()}\nMessage-ID: <${id}@example.org>\nSubject: ${id}\n\nbody of ${id}\n`;
const mbox = (messages: Array<[string, Date]>) =>
  messages.map(([id, at]) => `${fromLine(at)}\n${mail(id, at)}\n`).join('');

const stagedKeys = async (url: string, list: string) =>
  (
    await queryAt<{ message_key: string }>(
      url,
      'SELECT s.message_key FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ? ORDER BY s.message_key',
      [list],
    )
  ).map((r) => r.message_key);
const listRow = async (url: string, list: string) =>
  (
    await queryAt<{ last_month: string | null; last_failure: string | null }>(
      url,
      'SELECT last_month, last_failure FROM lists WHERE name = ?',
      [list],
    )
  )[0]!;
const fetchedMonths = async (url: string, list: string) =>
  (
    await queryAt<{ month: string }>(
      url,
      'SELECT f.month FROM fetched_months f JOIN lists l ON l.id = f.list_id WHERE l.name = ? ORDER BY f.month',
      [list],
    )
  ).map((r) => r.month);

/**
 * `whole` (the gzip of `plainLength` bytes) cut short so that what can still
 * be unpacked ends past byte `from` of the plain text and 100 bytes or more
 * before its end.
 */
function cutGzip(whole: Buffer, plainLength: number, from: number): Buffer {
  for (let length = whole.length - 1; length > 0; length--) {
    let out: Buffer;
    try {
      out = gunzipSync(whole.subarray(0, length), { finishFlush: 2 });
    } catch {
      continue;
    }
    if (out.length > from && out.length < plainLength - 100) return whole.subarray(0, length);
  }
  throw new Error('no cut of the gzip data ends where asked');
}

/** A file replaced as a whole (a new inode), as a copy or a download does. */
function replaceFile(path: string, content: string | Buffer): void {
  writeFileSync(`${path}.new`, content);
  renameSync(`${path}.new`, path);
}

describeOnDialectDatabases('fetch of local sources on $dialect', (databases) => {
  let dir: string;
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const add = (system: 'mbox' | 'maildir', path: string) => addListAt(db.url, { system, name: path });
  const fetch = async (path: string, ...flags: string[]) => {
    const run = await runCliJson<FetchJson>(['fetch', '--list', path, ...flags, '--db', db.url], { env });
    return { code: run.code, stderr: run.stderr, list: run.json.lists[0]! };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-local-'));
    db = await databases.create();
    env = { LISTMINER_CACHE: join(dir, 'cache') };
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores each of several header-less messages and lone transport headers once, and nothing more on a re-run', async () => {
    const path = join(dir, 'headerless.mbox');
    const at = (day: number) => fromLine(inMonth(1, day));
    const texts = [
      'hello there\nhow are you',
      'a second note\non two lines',
      'third',
      'fourth one',
      'the fifth:\nwith a colon',
    ];
    writeFileSync(
      path,
      [
        ...texts.map((text, i) => `${at(i + 1)}\n${text}\n`),
        `${at(8)}\nReceived: from relay1.example.org\n`,
        `${at(9)}\nReceived: from relay2.example.org\n`,
      ].join('\n'),
    );
    await add('mbox', path);
    const first = await fetch(path);
    expect(first.code, first.stderr).toBe(0);
    expect(first.list).toMatchObject({ status: 'done', seen: 7, staged: 7, duplicates: 0 });
    expect(await stagedKeys(db.url, path)).toHaveLength(7);
    const again = await fetch(path, '--now', '--full');
    expect(again.list).toMatchObject({ status: 'done', seen: 7, staged: 0, duplicates: 7 });
    expect(await stagedKeys(db.url, path)).toHaveLength(7);
  });

  it('reads again the checkpointed months of an mbox file that was replaced by a larger one, and follows its history back', async () => {
    const path = join(dir, 'growing.mbox');
    writeFileSync(
      path,
      mbox([
        ['a1', inMonth(3)],
        ['b1', inMonth(1)],
      ]),
    );
    await add('mbox', path);
    const first = await fetch(path);
    expect(first.list).toMatchObject({ status: 'done', staged: 2 });
    expect(await fetchedMonths(db.url, path)).toEqual([3, 2, 1, 0].map((back) => addMonths(NOW_MONTH, -back)));

    replaceFile(
      path,
      mbox([
        ['old', inMonth(5)],
        ['a0', inMonth(3, 2)],
        ['a1', inMonth(3)],
        ['c1', inMonth(2)],
        ['b1', inMonth(1)],
        ['b2', inMonth(1, 20)],
      ]),
    );
    const grown = await fetch(path, '--now');
    expect(grown.code, grown.stderr).toBe(0);
    expect(grown.list).toMatchObject({ status: 'done', staged: 4 });
    expect(await stagedKeys(db.url, path)).toEqual(
      ['a0', 'a1', 'b1', 'b2', 'c1', 'old'].map((id) => `${id}@example.org`),
    );

    const same = await fetch(path, '--now');
    expect(same.list).toMatchObject({ status: 'done', monthsPlanned: 0, staged: 0 });
    const full = await fetch(path, '--now', '--full');
    expect(full.list).toMatchObject({ status: 'done', monthsPlanned: 6, seen: 6, staged: 0, duplicates: 6 });
    expect(await stagedKeys(db.url, path)).toHaveLength(6);
  });

  it('holds back the last message of an mbox a writer is appending to, and stores it once when whole', async () => {
    const path = join(dir, 'appending.mbox');
    const whole = mbox([
      ['w1', inMonth(2)],
      ['w2', inMonth(1)],
      ['w3', inMonth(1, 12)],
    ]);
    // The writer is two thirds through the last message, inside a line of its header.
    const lastStart = whole.lastIndexOf('From x@example.org');
    const cutAt = lastStart + Math.floor(((whole.length - lastStart) * 2) / 3);
    expect(whole[cutAt - 1]).not.toBe('\n');
    writeFileSync(path, whole.slice(0, cutAt));
    await add('mbox', path);
    const early = await fetch(path);
    expect(early.code, early.stderr).toBe(0);
    expect(early.list).toMatchObject({ status: 'done', staged: 2 });
    expect(early.list.skippedEntries).toEqual([{ path, reason: expect.stringMatching(/taken to be half written/) }]);
    expect(await stagedKeys(db.url, path)).toEqual(['w1@example.org', 'w2@example.org']);

    appendFileSync(path, whole.slice(cutAt));
    const done = await fetch(path, '--now');
    expect(done.list).toMatchObject({ status: 'done', staged: 1 });
    expect(done.list.skippedEntries).toBeUndefined();
    const full = await fetch(path, '--now', '--full');
    expect(full.list).toMatchObject({ status: 'done', staged: 0, duplicates: 3 });
    expect(await stagedKeys(db.url, path)).toEqual(['w1@example.org', 'w2@example.org', 'w3@example.org']);
  });

  it('stores as it is the last message of an mbox that ends inside a line and was last written minutes ago', async () => {
    const path = join(dir, 'abandoned.mbox');
    writeFileSync(path, `${mbox([['v1', inMonth(1)]])}${fromLine(inMonth(1, 14))}\nFrom: v2@example.org\nSubject: cut`);
    const minutesAgo = new Date(Date.now() - 5 * 60_000);
    utimesSync(path, minutesAgo, minutesAgo);
    await add('mbox', path);
    const run = await fetch(path);
    expect(run.list).toMatchObject({ status: 'done', staged: 2 });
  });

  it('--full reads months already checkpointed, on a folder that gained a file', async () => {
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.mbox'), mbox([['f1', inMonth(2)]]));
    await add('mbox', folder);
    expect((await fetch(folder)).list).toMatchObject({ status: 'done', staged: 1 });
    writeFileSync(
      join(folder, 'b.mbox.gz'),
      gzipSync(
        mbox([
          ['f2', inMonth(2, 3)],
          ['f3', inMonth(1)],
        ]),
      ),
    );
    const full = await fetch(folder, '--now', '--full');
    expect(full.list).toMatchObject({ status: 'done', staged: 2 });
    expect(await stagedKeys(db.url, folder)).toEqual(['f1@example.org', 'f2@example.org', 'f3@example.org']);
  });

  it('reads the new files of a Maildir in months already checkpointed', async () => {
    const root = join(dir, 'Maildir');
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, 'cur', '1000000001.1.host:2,S'), mail('m1', inMonth(2)));
    await add('maildir', root);
    expect((await fetch(root)).list).toMatchObject({ status: 'done', staged: 1 });
    writeFileSync(join(root, 'cur', '1000000002.2.host:2,S'), mail('m2', inMonth(2, 12)));
    writeFileSync(join(root, 'new', '1000000003.3.host'), mail('m3', inMonth(1)));
    const grown = await fetch(root, '--now');
    expect(grown.list).toMatchObject({ status: 'done', staged: 2 });
    expect(await stagedKeys(db.url, root)).toEqual(['m1@example.org', 'm2@example.org', 'm3@example.org']);
    // Unchanged, a local archive reads nothing, the current month included: its fingerprint says it did not grow.
    expect((await fetch(root, '--now')).list).toMatchObject({ staged: 0, monthsPlanned: 0 });
  });

  it('stages local mail dated ahead of the current month, under the current month, mbox and Maildir alike', async () => {
    // A sender's clock set wrong: months ahead, or a Maildir file whose name gives a delivery time years ahead.
    const ahead = new Date(`${addMonths(NOW_MONTH, 2)}-15T12:00:00Z`);
    const file = join(dir, 'ahead.mbox');
    writeFileSync(
      file,
      mbox([
        ['a1', inMonth(1)],
        ['a2', ahead],
      ]),
    );
    await add('mbox', file);
    expect((await fetch(file, '--now')).list).toMatchObject({ status: 'done', staged: 2 });
    expect(await stagedKeys(db.url, file)).toEqual(['a1@example.org', 'a2@example.org']);
    expect(await fetchedMonths(db.url, file)).toContain(NOW_MONTH);

    const root = join(dir, 'AheadMaildir');
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, 'cur', '1000000001.1.host:2,S'), mail('d1', ahead));
    const undated = 'From: d2@example.org\nMessage-ID: <d2@example.org>\nSubject: no date\n\nbody\n';
    writeFileSync(join(root, 'cur', '9999999999.2.host:2,S'), undated);
    await add('maildir', root);
    expect((await fetch(root, '--now')).list).toMatchObject({ status: 'done', staged: 2 });
    expect(await stagedKeys(db.url, root)).toEqual(['d1@example.org', 'd2@example.org']);
    // Read whole: the next run has nothing to read.
    expect((await fetch(root, '--now')).list).toMatchObject({ staged: 0, monthsPlanned: 0 });
  });

  it('skips a dangling symlink, a folder and a FIFO in a Maildir cur/, stages the rest, and lists ls shows them', async () => {
    const root = join(dir, 'BadMaildir');
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, 'cur', '1000000001.1.host:2,S'), mail('g1', inMonth(2)));
    writeFileSync(join(root, 'new', '1000000002.2.host'), mail('g2', inMonth(1)));
    const target = join(dir, 'missing-message');
    const link = join(root, 'cur', '1000000003.3.host:2,S');
    symlinkSync(target, link);
    mkdirSync(join(root, 'cur', '1000000004.4.host:2,S'));
    execFileSync('mkfifo', [join(root, 'cur', '1000000005.5.host:2,S')]);
    await add('maildir', root);

    const first = await fetch(root);
    expect(first.code, first.stderr).toBe(0);
    expect(first.list).toMatchObject({ status: 'done', staged: 2 });
    expect(first.list.skippedEntries).toHaveLength(3);
    const ls = await runCliJson<LsJson>(['lists', 'ls', '--db', db.url], { env });
    const entries = ls.json.lists.find((l) => l.name === root)!.skippedEntries;
    expect(entries.map((e) => [e.path, e.reason])).toEqual([
      [link, `is a symbolic link to ${target}, which does not exist`],
      [join(root, 'cur', '1000000004.4.host:2,S'), 'is a folder where a message file was expected'],
      [join(root, 'cur', '1000000005.5.host:2,S'), 'is a FIFO (named pipe), not a message file'],
    ]);
    const table = await runCli(['lists', 'ls', '--db', db.url], { env });
    expect(table.stdout).toMatch(/skipped/);

    const again = await fetch(root, '--now');
    expect(again.list).toMatchObject({ status: 'done', staged: 0 });
    const later = (await runCliJson<LsJson>(['lists', 'ls', '--db', db.url], { env })).json.lists.find(
      (l) => l.name === root,
    )!.skippedEntries;
    expect(later.map((e) => e.firstSeenAt)).toEqual(entries.map((e) => e.firstSeenAt));

    // Fixed: the link's message appears, the other two go. The message is read, and nothing is left skipped.
    writeFileSync(target, mail('g3', inMonth(2, 15)));
    rmdirSync(join(root, 'cur', '1000000004.4.host:2,S'));
    unlinkSync(join(root, 'cur', '1000000005.5.host:2,S'));
    const fixed = await fetch(root, '--now');
    expect(fixed.list).toMatchObject({ status: 'done', staged: 1 });
    expect(await stagedKeys(db.url, root)).toEqual(['g1@example.org', 'g2@example.org', 'g3@example.org']);
    expect(
      (await runCliJson<LsJson>(['lists', 'ls', '--db', db.url], { env })).json.lists.find((l) => l.name === root)!
        .skippedEntries,
    ).toEqual([]);
  });

  it('skips a dangling symlink and a FIFO in an mbox folder and stages the rest', async () => {
    const folder = join(dir, 'bad-folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'a.mbox'), mbox([['h1', inMonth(1)]]));
    symlinkSync(join(dir, 'nowhere.mbox'), join(folder, 'b.mbox'));
    execFileSync('mkfifo', [join(folder, 'c.mbox')]);
    await add('mbox', folder);
    const first = await fetch(folder);
    expect(first.code, first.stderr).toBe(0);
    expect(first.list).toMatchObject({ status: 'done', staged: 1 });
    expect(first.list.skippedEntries?.map((e) => e.path).sort()).toEqual([
      join(folder, 'b.mbox'),
      join(folder, 'c.mbox'),
    ]);
  });

  it('reads the mail of files with a byte-order mark or a banner above it, and names what it left out, every run', async () => {
    const folder = join(dir, 'exported');
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'bom.mbox'),
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(
          mbox([
            ['b1', inMonth(2)],
            ['b2', inMonth(1)],
          ]),
        ),
      ]),
    );
    const banner = 'Exported by a mail client, 3 messages\n';
    writeFileSync(
      join(folder, 'banner.mbox.gz'),
      gzipSync(
        banner +
          mbox([
            ['p1', inMonth(2)],
            ['p2', inMonth(1)],
            ['p3', inMonth(1, 12)],
          ]),
      ),
    );
    writeFileSync(join(folder, 'README'), 'These files hold the list.\n\nFrom the admins, with thanks.\n');
    // A banner whose first line reads like a header field, but names none a message has.
    const note = 'Note: exported by a mail client.\nKept for the record.\n\n';
    writeFileSync(join(folder, 'note.mbox'), note + mbox([['n1', inMonth(1, 20)]]));
    await add('mbox', folder);
    const leftOut = [
      {
        path: join(folder, 'README'),
        reason: 'it does not start like mail (with a From_ line or the header of a message), so none of it is read',
      },
      {
        path: join(folder, 'banner.mbox.gz'),
        reason: `its first ${banner.length} bytes, above its first From_ line, are not mail and are not read; the mail after them is`,
      },
      {
        path: join(folder, 'note.mbox'),
        reason: `its first ${note.length} bytes, above its first From_ line, are not mail and are not read; the mail after them is`,
      },
    ];
    const first = await fetch(folder);
    expect(first.code, first.stderr).toBe(0);
    expect(first.list).toMatchObject({ status: 'done', seen: 6, staged: 6 });
    expect(first.list.skippedEntries).toEqual(leftOut);
    expect(await stagedKeys(db.url, folder)).toEqual(
      ['b1', 'b2', 'n1', 'p1', 'p2', 'p3'].map((id) => `${id}@example.org`),
    );
    // The next run reads the files' cached month indexes, and still names what it leaves out.
    const again = await fetch(folder, '--now', '--full');
    expect(again.list).toMatchObject({ status: 'done', staged: 0, duplicates: 6 });
    expect(again.list.skippedEntries).toEqual(leftOut);
    const listed = (await runCliJson<LsJson>(['lists', 'ls', '--db', db.url], { env })).json.lists.find(
      (l) => l.name === folder,
    )!;
    expect(listed.skippedEntries.map(({ path, reason }) => ({ path, reason }))).toEqual(leftOut);
  });

  it('stages the intact part of a cut .mbox.gz, leaves its last month unfinished with one sentence, and reads it whole once mended', async () => {
    const path = join(dir, 'cut.mbox.gz');
    const ids: Array<[string, Date]> = [
      ['x1', inMonth(3)],
      ['x2', inMonth(3, 11)],
      ['y1', inMonth(2)],
      ['y2', inMonth(2, 11)],
      ['z1', inMonth(1)],
      ['z2', inMonth(1, 11)],
      ['z3', inMonth(1, 12)],
    ];
    const filler = 'a line of text that gzip cannot squeeze to nothing, 0123456789\n'.repeat(30);
    const plain = Buffer.from(
      ids.map(([id, at]) => `${fromLine(at)}\n${mail(id, at).replace('\n\n', `\n\n${filler}`)}\n`).join(''),
    );
    const whole = gzipSync(plain, { level: 1 });
    writeFileSync(path, cutGzip(whole, plain.length, plain.indexOf('From: z3@') + 100));
    await add('mbox', path);

    const failed = await fetch(path);
    expect(failed.code).toBe(4);
    expect(failed.list).toMatchObject({ status: 'failed', staged: 6, error: { kind: 'transient' } });
    const sentence = `${path} ends early (its gzip data is cut short): the messages before the damage were staged, the rest cannot be read, so ${addMonths(NOW_MONTH, -1)} stays unfinished and is read again on the next fetch.`;
    expect(failed.list.error!.message).toBe(sentence);
    expect(await listRow(db.url, path)).toMatchObject({
      last_month: addMonths(NOW_MONTH, -2),
      last_failure: `${addMonths(NOW_MONTH, -1)}: ${sentence}`,
    });
    expect(await fetchedMonths(db.url, path)).toEqual([addMonths(NOW_MONTH, -3), addMonths(NOW_MONTH, -2)]);

    const retried = await fetch(path, '--now');
    expect(retried.list).toMatchObject({ status: 'failed', staged: 0, duplicates: 2 });

    replaceFile(path, whole);
    const mended = await fetch(path, '--now');
    expect(mended.code, mended.stderr).toBe(0);
    expect(mended.list).toMatchObject({ status: 'done', staged: 1 });
    expect(await stagedKeys(db.url, path)).toEqual(ids.map(([id]) => `${id}@example.org`).sort());
    expect((await listRow(db.url, path)).last_month).toBe(NOW_MONTH);
  });
  it("stages the month's other files beside a cut .mbox.gz, before the cut fails the month", async () => {
    const folder = join(dir, 'cut-folder');
    mkdirSync(folder);
    const cutMail = Array.from({ length: 40 }, (_, i): [string, Date] => [`cf${i}`, inMonth(1, 1 + (i % 27))]);
    const plain = Buffer.from(mbox(cutMail));
    // The cut file sorts first: the files after it hold whole mail of the same month.
    writeFileSync(
      join(folder, 'a-cut.mbox.gz'),
      cutGzip(gzipSync(plain, { level: 1 }), plain.length, plain.indexOf('From: cf30@')),
    );
    writeFileSync(
      join(folder, 'b.mbox'),
      mbox([
        ['whole1', inMonth(1, 3)],
        ['whole2', inMonth(1, 4)],
      ]),
    );
    writeFileSync(join(folder, 'c.mbox.gz'), gzipSync(mbox([['whole3', inMonth(1, 5)]])));
    await add('mbox', folder);
    const failed = await fetch(folder);
    expect(failed.list).toMatchObject({ status: 'failed', error: { kind: 'transient' } });
    expect(failed.list.error!.message).toContain(join(folder, 'a-cut.mbox.gz'));
    const keys = await stagedKeys(db.url, folder);
    expect(keys).toEqual(expect.arrayContaining(['whole1@example.org', 'whole2@example.org', 'whole3@example.org']));
    expect(keys.filter((key) => key.startsWith('cf')).length).toBeGreaterThanOrEqual(30);
  });

  it('stages in sync every whole message of a cut .mbox.gz that fetch stages, across batches read ahead', async () => {
    // sync reads two batches ahead of its write: the read that meets the cut must not cost the batches before it.
    const messages = Array.from({ length: 1300 }, (_, i): [string, Date] => [`cut${i}`, inMonth(1, 1 + (i % 27))]);
    const plain = Buffer.from(mbox(messages));
    const whole = gzipSync(plain, { level: 1 });
    const cut = cutGzip(whole, plain.length, plain.indexOf('From: cut1200@'));
    const [fetched, synced] = [join(dir, 'cut-fetch.mbox.gz'), join(dir, 'cut-sync.mbox.gz')];
    for (const path of [fetched, synced]) {
      writeFileSync(path, cut);
      await add('mbox', path);
    }
    const byFetch = await fetch(fetched);
    expect(byFetch.list).toMatchObject({ status: 'failed', error: { kind: 'transient' } });
    expect(byFetch.list.staged).toBeGreaterThanOrEqual(1200);
    const bySync = await runCliJson<{ fetch: FetchJson }>(['sync', '--list', synced, '--db', db.url], { env });
    expect(bySync.json.fetch.lists[0]).toMatchObject({ status: 'failed', staged: byFetch.list.staged });
    expect((await stagedKeys(db.url, synced)).length).toBe(byFetch.list.staged);
  });
});
