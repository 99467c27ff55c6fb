import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import {
  countMessagePages,
  Mailman2Archive,
  monthOfVolume,
  samplePosts,
  volumeName,
  volumeOfMonth,
} from '../helpers/mailman2-archive.js';
import { serveArchives, stagedByMonth, total, type FetchJson, type Served } from '../helpers/pipermail-fetch.js';

const THIS_MONTH = monthOf(new Date());

describeOnDialectDatabases(
  'fetch of pipermail archives written as Mailman 2.1 writes them on $dialect',
  (databases) => {
    let dir: string;
    let env: NodeJS.ProcessEnv;
    let served: Served;
    let archive: Mailman2Archive;
    let pages: Map<string, number>;

    const fetchList = async (db: TestDatabase, list: string, ...flags: string[]) => {
      const run = await runCliJson<FetchJson>(['fetch', '--list', list, ...flags, '--db', db.url], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.json.lists[0]).toMatchObject({ status: 'done' });
      return run.json.lists[0]!;
    };
    const add = async (db: TestDatabase, args: string[]) => {
      const added = await runCli(['lists', 'add', ...args, '--db', db.url], { env });
      expect(added.code, added.stderr).toBe(0);
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'listminer-pipermail-e2e-'));
      env = { LISTMINER_CACHE: join(dir, 'cache') };
      archive = new Mailman2Archive(join(dir, 'tree', 'dev'), 'dev', '2.1.5');
      for (const back of [4, 3, 2])
        for (const post of samplePosts(addMonths(THIS_MONTH, -back), 14)) archive.post(post);
      for (const post of samplePosts(THIS_MONTH, 5)) archive.post(post);
      archive.nightlyGzip();
      // After the nightly gzip: the current month's .txt grows past its .txt.gz.
      for (const post of samplePosts(THIS_MONTH, 8, 'today').slice(5)) archive.post(post);
      archive.writeIndex();
      pages = countMessagePages(archive.dir);
      served = await serveArchives(join(dir, 'served'), { dev: archive.dir });
    });
    afterAll(async () => {
      await served.http11.close();
      served.http10.process.kill();
      rmSync(dir, { recursive: true, force: true });
    });

    const expected = () => new Map([...pages].map(([volume, n]) => [monthOfVolume(volume), n]));

    it('stores one message per page Mailman wrote, over HTTP/1.1', async () => {
      const db = await databases.create();
      await add(db, ['--system', 'pipermail', 'dev@lists.example.org', '--base-url', served.http11.url]);
      await fetchList(db, 'dev@lists.example.org', '--full');
      expect(await stagedByMonth(db.url, 'dev@lists.example.org')).toEqual(expected());
      expect(total(expected())).toBe(14 * 3 + 8);
    });

    it('stores one message per page Mailman wrote, over HTTP/1.0 from python3 -m http.server', async () => {
      const db = await databases.create();
      await add(db, ['--system', 'pipermail', 'dev@lists.example.org', '--base-url', served.http10.url]);
      await fetchList(db, 'dev@lists.example.org', '--full');
      expect(await stagedByMonth(db.url, 'dev@lists.example.org')).toEqual(expected());
    });

    it('stores the same messages from the .txt and .txt.gz files read locally as mbox', async () => {
      const db = await databases.create();
      await add(db, ['--system', 'mbox', archive.dir]);
      await fetchList(db, archive.dir, '--full');
      expect(total(await stagedByMonth(db.url, archive.dir))).toBe(total(expected()));
    });

    it('stages nothing of a message the month text ends inside, and that message once when the text is whole', async () => {
      const db = await databases.create();
      await add(db, ['--system', 'pipermail', 'dev@lists.example.org', '--base-url', served.http10.url]);
      // The current month's text read while Mailman appends to it: it stops 40 bytes before its last message ends.
      const text = join(archive.dir, `${volumeOfMonth(THIS_MONTH)}.txt`);
      const whole = readFileSync(text);
      writeFileSync(text, whole.subarray(0, whole.length - 40));
      try {
        const cut = await runCliJson<FetchJson>(['fetch', '--list', 'dev@lists.example.org', '--db', db.url], { env });
        expect(cut.code).toBe(4);
        expect(cut.json.lists[0]!.error?.message).toMatch(/ends inside a line of its last message: the text was cut/);
        const staged = await stagedByMonth(db.url, 'dev@lists.example.org');
        expect(staged.get(THIS_MONTH)).toBe(expected().get(THIS_MONTH)! - 1);
      } finally {
        writeFileSync(text, whole);
      }
      await fetchList(db, 'dev@lists.example.org', '--now');
      expect(await stagedByMonth(db.url, 'dev@lists.example.org')).toEqual(expected());
      const [rows] = await queryAt<{ n: number; ids: number }>(
        db.url,
        'SELECT COUNT(*) AS n, COUNT(DISTINCT message_id) AS ids FROM staged_messages',
      );
      expect(Number(rows!.n)).toBe(Number(rows!.ids));
    });

    it('stores mail added later to a past month on a plain fetch, downloading only the months that changed', async () => {
      const db = await databases.create();
      await add(db, ['--system', 'pipermail', 'dev@lists.example.org', '--base-url', served.http11.url]);
      await fetchList(db, 'dev@lists.example.org');
      const changed = addMonths(THIS_MONTH, -3);
      const volume = volumeName(new Date(`${changed}-15T00:00:00Z`));
      // A message filed under a month long over, as `bin/arch` or an admin's import adds it; the index is regenerated.
      archive.post({ ...samplePosts(changed, 1, 'added')[0]!, body: `${'a long message, '.repeat(200)}\n` });
      archive.nightlyGzip();
      archive.writeIndex();
      const before = served.http11.requests.length;
      const again = await fetchList(db, 'dev@lists.example.org', '--now');
      expect(again.staged).toBe(1);
      const asked = served.http11.requests.slice(before);
      expect(asked).toContain(`/pipermail/dev/${volume}.txt.gz`);
      for (const back of [4, 2])
        expect(asked.join(' ')).not.toContain(volumeName(new Date(`${addMonths(THIS_MONTH, -back)}-15T00:00:00Z`)));
      expect(await stagedByMonth(db.url, 'dev@lists.example.org')).toEqual(
        new Map([...expected()].map(([m, n]) => [m, m === changed ? n + 1 : n])),
      );
    });
  },
);
