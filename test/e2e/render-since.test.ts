import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RenderResult } from '../../src/core/render/render-site.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeAcrossEngines } from '../helpers/describe-on-dialects.js';
import { siteDigest } from '../helpers/static-site.js';
import { ADD_SAMPLE_LISTS, KERNEL, QUARRY } from '../helpers/sample-lists.js';

/** The month that arrives after the first render: both samples have mail in it and after it, and threads across it. */
const SINCE = '2024-03';

/** The mbox up to its first message dated `month` or later (the samples are in date order), and the whole of it. */
async function heldBack(file: string, month: string): Promise<{ before: string; whole: string }> {
  const whole = await readFile(file, 'latin1');
  const starts = [...whole.matchAll(/^From /gm)].map((m) => m.index);
  for (const start of starts) {
    const date = /^Date: (.+)$/m.exec(whole.slice(start))![1]!;
    if (new Date(date).toISOString().slice(0, 7) >= month) return { before: whole.slice(0, start), whole };
  }
  throw new Error(`${file} has no mail from ${month} on`);
}

describeAcrossEngines('render --since after a sync on $dialect', (databases) => {
  let db: TestDatabase;
  let out: string;
  let archives: Array<{ path: string; whole: string }>;
  const render = async (dir: string, extra: string[] = []) => {
    const run = await runCliJson<RenderResult>(['render', '--db', db.url, '--out', dir, ...extra]);
    expect(run.code, run.stderr).toBe(0);
    return run.json;
  };
  const cli = async (args: string[]) => {
    const run = await runCli([...args, '--db', db.url]);
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  };

  beforeAll(async () => {
    db = await databases.create();
    out = await mkdtemp(join(tmpdir(), 'listminer-render-since-'));
    // A list's key is its file's name, so the copies keep the samples' names and give the samples' addresses.
    archives = [];
    for (const [sample, folder] of [
      [QUARRY, 'quarry'],
      [KERNEL, 'kernel'],
    ] as const) {
      const path = join(out, folder, basename(sample));
      const { before, whole } = await heldBack(sample, SINCE);
      await mkdir(join(out, folder));
      await writeFile(path, before, 'latin1');
      archives.push({ path, whole });
    }
    // The README's registration of the samples, pointed at the copies.
    const copies = new Map([
      [QUARRY, archives[0]!.path],
      [KERNEL, archives[1]!.path],
    ]);
    for (const add of ADD_SAMPLE_LISTS) await cli(add.map((arg) => copies.get(arg) ?? arg));
    await cli(['sync', '--full', '--now']);
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('writes, after a month arrives, the bytes a whole render of the final store writes, except month pages before it', async () => {
    const site = join(out, 'site');
    const before = await render(site);
    expect(before.written).toBeGreaterThan(500);
    for (const archive of archives) await writeFile(archive.path, archive.whole, 'latin1');
    await cli(['sync', '--now']);

    const update = await render(site, ['--since', SINCE]);
    const fresh = join(out, 'fresh');
    const whole = await render(fresh);
    expect(update.lists.map((l) => [l.name, l.messages, l.threads])).toEqual(
      whole.lists.map((l) => [l.name, l.messages, l.threads]),
    );

    const updated = siteDigest(site);
    const expected = siteDigest(fresh);
    // docs/render.md: --since leaves month pages before it as they are; a month page of a thread's later reply is not redone.
    const leftAlone = (path: string) => (/^lists\/[^/]+\/(\d{4}-\d{2})\.html$/.exec(path)?.[1] ?? SINCE) < SINCE;
    const differing = Object.keys(expected).filter(
      (path) => path !== 'render-manifest.json' && updated[path] !== expected[path] && !leftAlone(path),
    );
    expect(differing).toEqual([]);
    expect(Object.keys(updated).filter((path) => !(path in expected))).toEqual([]);
    const manifest = async (dir: string) =>
      JSON.parse(await readFile(join(dir, 'render-manifest.json'), 'utf8')) as {
        files: Record<string, string>;
        lists: unknown;
      };
    const [updatedManifest, expectedManifest] = [await manifest(site), await manifest(fresh)];
    expect(updatedManifest.lists).toEqual(expectedManifest.lists);
    expect(Object.keys(updatedManifest.files)).toEqual(Object.keys(expectedManifest.files));
    for (const [path, hash] of Object.entries(updatedManifest.files)) expect(hash, path).toBe(updated[path]);

    // Nothing new: nothing written (the manifest neither), and every file the update looked at counted as unchanged.
    const written = (await stat(join(site, 'render-manifest.json'))).mtimeMs;
    const again = await render(site, ['--since', SINCE]);
    expect(again.written).toBe(0);
    expect(again.skipped).toBe(update.written + update.skipped);
    expect((await stat(join(site, 'render-manifest.json'))).mtimeMs).toBe(written);
  });

  it('makes the Message-ID map again from the store when a shard the manifest holds is missing', async () => {
    // After the test above: site/ was updated with --since, fresh/ rendered whole from the same store.
    const site = join(out, 'site');
    const shards = (await readdir(join(site, 'ids'))).sort();
    expect(shards.length).toBeGreaterThan(1);
    await rm(join(site, 'ids', shards[0]!));
    const update = await render(site, ['--since', SINCE]);
    expect(update.written).toBe(1);
    const [updated, expected] = [siteDigest(site), siteDigest(join(out, 'fresh'))];
    for (const shard of shards) expect(updated[`ids/${shard}`], `ids/${shard}`).toBe(expected[`ids/${shard}`]);
  });
});
