import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../../../../src/core/archive/month.js';
import { createPipermailSource } from '../../../../../src/core/archive/sources/pipermail.js';
import { HttpClient } from '../../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../../src/core/net/pacer.js';
import { fakeClock, type ArchiveServer } from '../../../../helpers/archive-server.js';
import { collectMessages, sourceContext } from '../../../../helpers/archive-context.js';
import { serveFolder } from '../../../../helpers/folder-server.js';
import {
  countMessagePages,
  Mailman2Archive,
  samplePosts,
  volumeName,
  volumeOfMonth,
} from '../../../../helpers/mailman2-archive.js';

const THIS_MONTH = monthOf(new Date());
const OLD = '2004-05';

describe('pipermail source on a tree as Mailman 2.1 writes it', () => {
  let dir: string;
  let server: ArchiveServer;
  let archive: Mailman2Archive;
  const source = () =>
    createPipermailSource({ client: new HttpClient({ pacer: new Pacer({ clock: fakeClock() }), retries: 1 }) });
  const context = () => sourceContext('pipermail', 'dev@lists.example.org', { baseUrl: `${server.url}/pipermail/dev` });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-pipermail-'));
    archive = new Mailman2Archive(join(dir, 'dev'), 'dev', '2.1.5');
    for (const post of samplePosts(OLD, 10)) archive.post(post);
    for (const post of samplePosts(THIS_MONTH, 6)) archive.post(post);
    archive.nightlyGzip();
    // Mail after the nightly gzip: only the current month's .txt has it.
    for (const post of samplePosts(THIS_MONTH, 9, 'late').slice(6)) archive.post(post);
    archive.writeIndex();
    server = await serveFolder(dir, '/pipermail');
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores every message of a month whose attachments Mailman 2.1.5 scrubbed', async () => {
    expect(await collectMessages(source().fetchMonth(context(), OLD))).toHaveLength(10);
  });

  it('reads the .txt of a month that may still grow, not the stale .txt.gz the index links', async () => {
    const before = server.requests.length;
    const messages = await collectMessages(source().fetchMonth(context(), THIS_MONTH));
    expect(messages).toHaveLength(9);
    expect(server.requests.slice(before)).toEqual([
      '/pipermail/dev/',
      `/pipermail/dev/${volumeName(new Date(`${THIS_MONTH}-15T00:00:00Z`))}.txt`,
    ]);
  });

  it('keeps >From body lines as pipermail wrote them (it escapes nothing)', async () => {
    const messages = await collectMessages(source().fetchMonth(context(), OLD));
    expect(messages[3]!.raw.toString()).toMatch(/^>From the log/m);
  });

  it('fingerprints each month by its index link and stated size, which change when the month does', async () => {
    const first = await source().monthFingerprints!(context());
    expect(first.get(OLD)).toMatch(/^2004-May\.txt\.gz \[ Gzip'd Text \d+ (bytes|KB) \]$/);
    appendFileSync(
      join(archive.dir, '2004-May.txt'),
      archive.asText({ ...samplePosts(OLD, 1, 'added')[0]!, body: 'x'.repeat(3000) }, new Date('2004-05-20T00:00:00Z')),
    );
    archive.nightlyGzip();
    archive.writeIndex();
    const second = await source().monthFingerprints!(context());
    expect(second.get(OLD)).not.toBe(first.get(OLD));
    expect(second.get(addMonths(OLD, 1))).toBeUndefined();
  });
});

describe('pipermail source on an index older than the last gzip', () => {
  it('reads a month whatever size the index states for it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-pipermail-stale-'));
    const archive = new Mailman2Archive(join(dir, 'dev'), 'dev', '2.1.9');
    for (const post of samplePosts(OLD, 4)) archive.post(post);
    archive.nightlyGzip();
    archive.writeIndex();
    // Mail archived after the index was written: the .txt.gz grew, the stated size did not.
    archive.post({ ...samplePosts(OLD, 1, 'unindexed')[0]!, body: 'y'.repeat(5000) });
    archive.nightlyGzip();
    const server = await serveFolder(dir, '/pipermail');
    try {
      const source = createPipermailSource({
        client: new HttpClient({ pacer: new Pacer({ clock: fakeClock() }), retries: 1 }),
      });
      const context = sourceContext('pipermail', 'dev@lists.example.org', { baseUrl: `${server.url}/pipermail/dev` });
      expect((await source.monthFingerprints!(context)).get(OLD)).toMatch(
        /^2004-May\.txt\.gz \[ Gzip'd Text \d+ bytes \]$/,
      );
      expect(await collectMessages(source.fetchMonth(context, OLD))).toHaveLength(
        countMessagePages(archive.dir).get(volumeOfMonth(OLD))!,
      );
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
