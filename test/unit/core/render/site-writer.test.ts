import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idShard, idShardName, readIdShard } from '../../../../src/core/render/pages.js';
import { RENDER_MANIFEST, SiteWriter, type RenderManifest } from '../../../../src/core/render/site-writer.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, RENDER_MANIFEST), 'utf8')) as RenderManifest;

describe('site writer', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-site-writer-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes new files and keeps the manifest in path order when a later render adds paths', async () => {
    const first = await SiteWriter.open(dir);
    first.write('t/bb/b.html', 'b');
    first.write('index.html', 'front');
    first.write('m/aa/a.html', 'a');
    await first.close();
    expect(Object.keys(manifestOf(dir).files)).toEqual(['index.html', 'm/aa/a.html', 't/bb/b.html']);

    const second = await SiteWriter.open(dir);
    second.write('m/aa/a.html', 'a');
    second.write('t/cc/c.html', 'c');
    second.write('a.css', 'style');
    second.write('m/zz/z.html', 'z');
    await second.close();
    const manifest = manifestOf(dir);
    expect(Object.keys(manifest.files)).toEqual([
      'a.css',
      'index.html',
      'm/aa/a.html',
      'm/zz/z.html',
      't/bb/b.html',
      't/cc/c.html',
    ]);
    expect(manifest.files['t/cc/c.html']).toBe(sha256('c'));
    expect([second.written, second.skipped]).toEqual([3, 1]);
    expect(readFileSync(join(dir, 't', 'cc', 'c.html'), 'utf8')).toBe('c');
  });

  it('replaces a file a stopped render left behind, and a changed page, leaving no temporary file', async () => {
    mkdirSync(join(dir, 'm', 'aa'), { recursive: true });
    writeFileSync(join(dir, 'm', 'aa', 'a.html'), 'half a pa');
    const writer = await SiteWriter.open(dir);
    writer.write('m/aa/a.html', 'a whole page');
    writer.write('index.html', 'front');
    await writer.close();
    expect(readFileSync(join(dir, 'm', 'aa', 'a.html'), 'utf8')).toBe('a whole page');

    const again = await SiteWriter.open(dir);
    again.write('index.html', 'front, changed');
    again.write('m/aa/a.html', Buffer.from('a whole page'));
    await again.close();
    expect(readFileSync(join(dir, 'index.html'), 'utf8')).toBe('front, changed');
    expect([again.written, again.skipped]).toEqual([1, 1]);
    expect(readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.partial'))).toEqual([]);
    expect(existsSync(join(dir, 'm', 'aa', 'a.html'))).toBe(true);
  });

  it('keeps the manifest as JSON.stringify writes it sorted, through changes, additions at either end, and renders that change nothing', async () => {
    const manifestText = () => readFileSync(join(dir, RENDER_MANIFEST), 'utf8');
    const expectSortedJson = () => {
      const manifest = manifestOf(dir);
      expect(Object.keys(manifest.files)).toEqual(Object.keys(manifest.files).sort());
      expect(manifestText()).toBe(`${JSON.stringify(manifest, null, 1)}\n`);
    };
    const first = await SiteWriter.open(dir);
    for (const name of ['m', 'c', 'x', 'f']) first.write(`p/${name}.html`, name);
    first.setList({
      slug: 'b',
      system: 's',
      name: 'b',
      repoUrl: null,
      firstMonth: null,
      lastMonth: null,
      messages: 0,
      monthly: [],
    });
    await first.close();
    expectSortedJson();

    const second = await SiteWriter.open(dir);
    second.write('p/m.html', 'm, changed');
    second.write('p/x.html', 'x');
    second.write('a.html', 'first of all');
    second.write('p/g.html', 'between');
    second.write('z.html', 'last of all');
    second.setList({
      slug: 'a',
      system: 's',
      name: 'a',
      repoUrl: 'https://example.org',
      firstMonth: '2024-01',
      lastMonth: '2024-01',
      messages: 1,
      monthly: [{ month: '2024-01', count: 1 }],
    });
    await second.close();
    expectSortedJson();
    expect([second.written, second.skipped]).toEqual([4, 1]);
    const manifest = manifestOf(dir);
    expect(Object.keys(manifest.files)).toEqual([
      'a.html',
      'p/c.html',
      'p/f.html',
      'p/g.html',
      'p/m.html',
      'p/x.html',
      'z.html',
    ]);
    expect(manifest.files['p/m.html']).toBe(sha256('m, changed'));
    expect(manifest.files['p/c.html']).toBe(sha256('c'));
    expect(Object.keys(manifest.lists)).toEqual(['a', 'b']);

    const before = statSync(join(dir, RENDER_MANIFEST)).mtimeMs;
    const third = await SiteWriter.open(dir);
    for (const name of ['a.html', 'z.html']) third.write(name, name === 'a.html' ? 'first of all' : 'last of all');
    await third.close();
    expect([third.written, third.skipped]).toEqual([0, 2]);
    expect(statSync(join(dir, RENDER_MANIFEST)).mtimeMs).toBe(before);
  });

  it('finds a few paths of a large manifest, and many, alike', async () => {
    const names = Array.from({ length: 200 }, (_, i) => `m/${String(i).padStart(3, '0')}.html`);
    const first = await SiteWriter.open(dir);
    for (const name of names) first.write(name, name);
    await first.close();

    const few = await SiteWriter.open(dir);
    for (const name of ['m/000.html', 'm/137.html', 'm/199.html']) few.write(name, name);
    few.write('m/100.html', 'changed');
    few.write('m/1000.html', 'new');
    await few.close();
    expect([few.written, few.skipped]).toEqual([2, 3]);

    const many = await SiteWriter.open(dir);
    for (const name of names) many.write(name, name === 'm/100.html' ? 'changed' : name);
    many.write('m/1000.html', 'new');
    await many.close();
    expect([many.written, many.skipped]).toEqual([0, 201]);
    expect(Object.keys(manifestOf(dir).files)).toHaveLength(201);
  });

  it('reads a manifest written in another form, and writes it again in path order', async () => {
    mkdirSync(join(dir, 'p'));
    writeFileSync(join(dir, 'p', 'b.html'), 'b');
    writeFileSync(join(dir, 'p', 'a.html'), 'a');
    writeFileSync(
      join(dir, RENDER_MANIFEST),
      JSON.stringify({ format: 1, files: { 'p/b.html': sha256('b'), 'p/a.html': sha256('a') }, lists: {} }),
    );
    const writer = await SiteWriter.open(dir);
    writer.write('p/a.html', 'a');
    writer.write('p/b.html', 'b');
    await writer.close();
    expect([writer.written, writer.skipped]).toEqual([0, 2]);
    expect(readFileSync(join(dir, RENDER_MANIFEST), 'utf8')).toBe(
      `${JSON.stringify({ format: 1, files: { 'p/a.html': sha256('a'), 'p/b.html': sha256('b') }, lists: {} }, null, 1)}\n`,
    );
  });

  /** Message-IDs that JSON, objects and scripts treat each in their own way. */
  const awkwardIds = new Map<string, string[]>([
    ['a@x', ['m/aa/a.html', 'm/bb/b.html']],
    ['__proto__', ['m/cc/c.html']],
    ['12', ['m/dd/d.html']],
    ['</script><b>@x', ['m/ee/e.html']],
    ['4294967295', ['m/ff/f.html']],
    ['2', ['m/gg/g.html']],
    ['01', ['m/hh/h.html']],
    ['line\u2028break\u2029@ü', ['m/ii/i.html']],
  ]);

  it('writes a shard of the Message-ID map as JSON.stringify writes the object of its entries, safe in a script', () => {
    const map = awkwardIds;
    const shard = idShard(map);
    const json = JSON.stringify(Object.fromEntries(map))
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029');
    expect(shard).toBe(`listminerIds(${json});\n`);
    expect(shard).not.toContain('</script>');
    expect(shard.indexOf('"2"')).toBeLessThan(shard.indexOf('"12"'));
  });

  it('reads a shard back as idShard() wrote it, and nothing else', () => {
    const read = readIdShard(idShard(awkwardIds));
    expect(read && new Map([...read].sort(([a], [b]) => (a < b ? -1 : 1)))).toEqual(
      new Map([...awkwardIds].sort(([a], [b]) => (a < b ? -1 : 1))),
    );
    for (const text of [
      '',
      'listminerIds({"a@x": ["m/aa/a.html"]})',
      'listminerIds({"a@x": "m/aa/a.html"});\n',
      'listminerIds({"a@x": [1]});\n',
      'listminerIds(["m/aa/a.html"]);\n',
      'listminerIds({"a@x": [});\n',
    ])
      expect(readIdShard(text), text).toBeUndefined();
  });

  it("names a Message-ID's shard by FNV-1a of its UTF-8 bytes, ASCII or not", () => {
    const fnv = (id: string) => {
      let hash = 0x811c9dc5;
      for (const byte of Buffer.from(id, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
      return (hash & 0xff).toString(16).padStart(2, '0');
    };
    for (const id of ['<a@example.org>', '<20240201.1234@mail.example>', '<ünïcode@例え.jp>', '', '<\u007f@x>'])
      expect(idShardName(id)).toBe(fnv(id));
  });
});
