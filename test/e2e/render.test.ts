import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callNumber, listKey, listSlug } from '../../src/core/render/call-number.js';
import type { RenderResult } from '../../src/core/render/render-site.js';
import type { StatsResult } from '../../src/core/stats/collect-stats.js';
import { paths } from '../../src/core/render/thread-model.js';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { startCli } from '../helpers/start-cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeAcrossEngines } from '../helpers/describe-on-dialects.js';
import { brokenLinks, pageTags, siteDigest, siteFiles } from '../helpers/static-site.js';
import { ADD_SAMPLE_LISTS, KERNEL, QUARRY } from '../helpers/sample-lists.js';

// Two messages that try to run script: in the sender's name, the subject, the Message-ID, the text, links, and an HTML-only part.
const HOSTILE = fileURLToPath(new URL('../fixtures/render/hostile.mbox', import.meta.url));

/** The site each dialect rendered, path → SHA-256, for the PostgreSQL run to compare with SQLite's. */
const digests = new Map<string, Record<string, string>>();

interface StoredMessage {
  listSystem: string;
  listName: string;
  key: string;
  rootKey: string;
}

describeAcrossEngines('render on $dialect', (databases) => {
  let db: TestDatabase;
  let out: string;
  let first: RenderResult;
  const render = async (dir: string, extra: string[] = []) => {
    const run = await runCliJson<RenderResult>(['render', '--db', db.url, '--out', dir, ...extra]);
    expect(run.code, run.stderr).toBe(0);
    return run.json;
  };
  async function query<T>(text: string): Promise<T[]> {
    const store = await openStore(db.url);
    try {
      return await store.db.all<T>(text);
    } finally {
      await store.close();
    }
  }
  const page = (path: string) => readFileSync(join(out, 'site', path), 'utf8');

  beforeAll(async () => {
    db = await databases.create();
    out = await mkdtemp(join(tmpdir(), 'listminer-render-'));
    const stages = [
      ...ADD_SAMPLE_LISTS,
      ['lists', 'add', '--system', 'mbox', HOSTILE, '--repo', 'https://github.com/example/hostile'],
      ['sync', '--full', '--now'],
    ];
    for (const stage of stages) {
      const run = await runCli([...stage, '--db', db.url]);
      expect(run.code, `${stage.join(' ')}: ${run.stderr}`).toBe(0);
    }
    first = await render(join(out, 'site'));
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('renders every list, and every page links only to files and anchors that exist', () => {
    expect(first.lists.map((l) => l.messages).reduce((a, b) => a + b)).toBeGreaterThan(300);
    expect(first.written).toBeGreaterThan(1000);
    const front = page('index.html');
    for (const list of first.lists) expect(front).toContain(`href="${list.path}"`);
    expect(brokenLinks(join(out, 'site'))).toEqual([]);
  });

  it('gives every thread of the store a page whose reply tree holds exactly the messages of its thread_root_id', async () => {
    const rows = await query<Record<string, unknown>>(
      `SELECT l.system, l.name, e.message_key, r.message_key AS root_key
       FROM email_messages e JOIN lists l ON l.id = e.list_id JOIN email_messages r ON r.id = e.thread_root_id`,
    );
    const messages: StoredMessage[] = rows.map((r) => ({
      listSystem: String(r.system),
      listName: String(r.name),
      key: String(r.message_key),
      rootKey: String(r.root_key),
    }));
    const threads = new Map<string, Set<string>>();
    for (const m of messages) {
      const key = listKey({ system: m.listSystem, name: m.listName });
      const root = callNumber(key, m.rootKey);
      threads.set(root, (threads.get(root) ?? new Set()).add(callNumber(key, m.key)));
    }
    expect(threads.size).toBeGreaterThan(150);
    for (const [root, calls] of threads) {
      const tags = pageTags(page(paths.thread(root))).filter((t) => t.name === 'li' && t.attributes['data-call']);
      expect(new Set(tags.map((t) => t.attributes['data-call'])), root).toEqual(calls);
      expect(tags[0]!.attributes['data-call']).toBe(root);
      for (const tag of tags.slice(1))
        expect(calls.has(tag.attributes['data-parent']!), `${root}: parent of ${tag.attributes['data-call']}`).toBe(
          true,
        );
    }
  });

  it("draws each list's messages per month and class with the store's counts", async () => {
    const rows = await query<Record<string, unknown>>(
      `SELECT l.system, l.name, e.msg_class, e.sent_at FROM email_messages e JOIN lists l ON l.id = e.list_id WHERE e.sent_at IS NOT NULL`,
    );
    const expected = new Map<string, Map<string, number>>();
    for (const r of rows) {
      const slug = listSlug({ system: String(r.system), name: String(r.name) });
      const figures = expected.get(slug) ?? new Map<string, number>();
      expected.set(slug, figures);
      const key = `${String(r.sent_at).slice(0, 7)} ${String(r.msg_class)}`;
      figures.set(key, (figures.get(key) ?? 0) + 1);
    }
    expect(expected.size).toBe(3);
    for (const [slug, figures] of expected) {
      const bars = pageTags(page(`lists/${slug}/index.html`)).filter(
        (t) => t.name === 'rect' && t.attributes['data-count'],
      );
      const drawn = new Map(
        bars.map((b) => [
          `${b.attributes['data-month']} ${b.attributes['data-class']}`,
          Number(b.attributes['data-count']),
        ]),
      );
      expect(drawn, slug).toEqual(figures);
    }
  });

  it('draws the same messages per month as stats --json counts', async () => {
    for (const list of first.lists) {
      const stats = await runCliJson<StatsResult>(['stats', '--db', db.url, '--list', list.name, '--json']);
      expect(stats.code, stats.stderr).toBe(0);
      const counted = new Map(stats.json.monthly[0]!.months.filter((m) => m.count > 0).map((m) => [m.month, m.count]));
      const drawn = new Map<string, number>();
      for (const bar of pageTags(page(list.path)).filter((t) => t.name === 'rect' && t.attributes['data-count'])) {
        drawn.set(
          bar.attributes['data-month']!,
          (drawn.get(bar.attributes['data-month']!) ?? 0) + Number(bar.attributes['data-count']),
        );
      }
      expect(drawn, list.name).toEqual(counted);
      // The chart says what it shows to a screen reader.
      expect(page(list.path)).toMatch(
        /<svg[^>]*role="img"[^>]*><title>Messages per month by class, \d{4}-\d{2} to \d{4}-\d{2}<\/title><desc>/,
      );
    }
  });

  it("gives every sender's person a page with their messages and lists, linked from each of their messages", async () => {
    const rows = await query<Record<string, unknown>>(
      `SELECT e.sender_id, l.system, l.name, e.message_key, r.message_key AS root_key
       FROM email_messages e JOIN lists l ON l.id = e.list_id JOIN email_messages r ON r.id = e.thread_root_id WHERE e.sender_id IS NOT NULL`,
    );
    const personOf = new Map<number, string>();
    const mailOf = new Map<string, Set<string>>();
    for (const row of rows) {
      const key = listKey({ system: String(row.system), name: String(row.name) });
      const call = callNumber(key, String(row.message_key));
      const thread = page(paths.thread(callNumber(key, String(row.root_key))));
      const article = thread.slice(thread.indexOf(`<article id="m-${call}"`));
      const person = /<a class="who" href="\.\.\/\.\.\/(p\/[^"]+)"/.exec(
        article.slice(0, article.indexOf('</header>')),
      )?.[1];
      expect(person, `sender of ${call}`).toBeDefined();
      const sender = Number(row.sender_id);
      expect(personOf.get(sender) ?? person, 'one page per person').toBe(person);
      personOf.set(sender, person!);
      mailOf.set(person!, (mailOf.get(person!) ?? new Set()).add(paths.message(call)));
    }
    expect(mailOf.size).toBeGreaterThan(10);
    expect(new Set(personOf.values()).size).toBe(personOf.size);
    for (const [person, mail] of mailOf) {
      const text = page(person);
      expect(text).toContain(`<p>${mail.size} messages · `);
      const linked = new Set(
        pageTags(text)
          .filter((t) => t.name === 'a' && t.attributes.href?.startsWith('../../m/'))
          .map((t) => t.attributes.href!.slice(6)),
      );
      expect(linked, person).toEqual(mail);
    }
    expect(siteFiles(join(out, 'site')).filter((f) => f.startsWith('p/'))).toHaveLength(mailOf.size);
    // The overview's top posters lead to their people.
    const kernel = first.lists.find((l) => l.name === KERNEL)!;
    const posters = pageTags(page(kernel.path)).filter(
      (t) => t.name === 'a' && t.attributes.href?.startsWith('../../p/'),
    );
    expect(posters.length).toBeGreaterThan(3);
  });

  it('indexes each month of a list for search, each message once', async () => {
    const rows = await query<{ system: string; name: string; message_key: string; sent_at: string | null }>(
      `SELECT l.system, l.name, e.message_key, e.sent_at FROM email_messages e JOIN lists l ON l.id = e.list_id`,
    );
    const expected = new Map<string, Set<string>>();
    for (const row of rows) {
      const list = { system: row.system, name: row.name };
      const file = `lists/${listSlug(list)}/search/${row.sent_at ? row.sent_at.slice(0, 7) : 'undated'}.js`;
      expected.set(
        file,
        (expected.get(file) ?? new Set()).add(paths.message(callNumber(listKey(list), row.message_key))),
      );
    }
    expect(siteFiles(join(out, 'site')).filter((f) => /^lists\/[^/]+\/search\//.test(f))).toEqual(
      [...expected.keys()].sort(),
    );
    for (const [file, hrefs] of expected) {
      const script = page(file);
      expect(script.startsWith('listminerSearch(')).toBe(true);
      const stored = [...script.matchAll(/"href":"([^"]+)"/g)].map((m) => m[1]!);
      expect(new Set(stored), file).toEqual(hrefs);
      expect(stored).toHaveLength(hrefs.size);
    }
  });

  it('gives every patch series a page, listed on its list, that links the thread of each version', async () => {
    const rows = await query<Record<string, unknown>>(
      `SELECT s.series_key, l.system, l.name, root.message_key AS root_key, p.version
       FROM pr_equivalents p JOIN patch_series s ON s.id = p.series_id JOIN lists l ON l.id = p.list_id
       JOIN email_messages root ON root.id = p.root_message_id`,
    );
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) {
      const list = { system: String(row.system), name: String(row.name) };
      const call = callNumber(listKey(list), `series\n${String(row.series_key)}`);
      expect(page(`lists/${listSlug(list)}/series.html`)).toContain(`href="../../${paths.series(call)}"`);
      const seriesPage = page(paths.series(call));
      expect(seriesPage).toContain(`href="../../${paths.thread(callNumber(listKey(list), String(row.root_key)))}"`);
      expect(seriesPage).toContain(`<th>latest version</th><td>v${Number(row.version)}</td>`);
    }
  });

  it('shows mail that carries script and javascript: links as text, and runs no script from it', () => {
    const hostile = first.lists.find((l) => l.name === HOSTILE)!;
    expect(hostile.messages).toBe(2);
    for (const file of siteFiles(join(out, 'site')).filter((f) => f.endsWith('.html'))) {
      const tags = pageTags(page(file));
      const scripts = tags.filter((t) =>
        ['script', 'style', 'iframe', 'img', 'object', 'embed', 'form', 'base'].includes(t.name),
      );
      const found = scripts.map((t) => `${t.name} ${t.attributes.src ?? t.attributes.id}`);
      if (file === 'lookup.html') expect(found).toEqual(['script lookup.js', 'form lookup']);
      else if (/^lists\/[^/]+\/search\.html$/.test(file))
        expect(found).toEqual(['script ../../minisearch.js', 'script ../../search.js', 'form search']);
      else expect(scripts, file).toEqual([]);
      for (const tag of tags) {
        expect(
          Object.keys(tag.attributes).filter((a) => a.startsWith('on')),
          `${file} <${tag.name}>`,
        ).toEqual([]);
        if (tag.attributes.href?.match(/^[a-z]+:/i)) expect(tag.attributes.href, file).toMatch(/^https?:\/\//);
        if (tag.name === 'a' && /^https?:/.test(tag.attributes.href ?? ''))
          expect(tag.attributes.rel, file).toContain('nofollow noopener');
      }
      expect(page(file), file).toContain(`content="default-src 'none'`);
    }
    const thread = page(`lists/${listSlug({ system: 'mbox', name: HOSTILE })}/2024-03.html`);
    const threadPath = /href="\.\.\/\.\.\/(t\/[^"]+)"/.exec(thread)![1]!;
    const text = page(threadPath);
    expect(text).toContain('&lt;script&gt;document.title=&apos;pwned&apos;&lt;/script&gt;');
    expect(text).toContain('&lt;img src=x onerror=');
    expect(text).toContain('<a href="https://example.org/page?a=1&amp;b=2" rel="nofollow noopener noreferrer">');
    expect(text).toContain('Hello &lt;script&gt;'); // the HTML part, read as text
  });

  it('writes every raw message and each thread as mbox with the bytes the archive handed over', () => {
    const raw = readFileSync(HOSTILE, 'latin1');
    const thread = page(`lists/${listSlug({ system: 'mbox', name: HOSTILE })}/2024-03.html`);
    const call = /href="\.\.\/\.\.\/t\/\w+\/(\w+)\.html"/.exec(thread)![1]!;
    const mbox = readFileSync(join(out, 'site', paths.mbox(call)), 'latin1');
    expect(mbox.match(/^From /gm)).toHaveLength(2);
    expect(mbox).toContain('Subject: <script>');
    const eml = readFileSync(join(out, 'site', paths.raw(call)), 'latin1');
    expect(raw).toContain(eml.trimEnd().split('\n').slice(1, 4).join('\n'));
  });

  it('writes nothing when rendered again with nothing new, and only a page that went missing', async () => {
    const again = await render(join(out, 'site'));
    expect(again.written).toBe(0);
    expect(again.skipped).toBe(first.written);
    await rm(join(out, 'site', 'index.html'));
    const repaired = await render(join(out, 'site'));
    expect(repaired.written).toBe(1);
    expect(page('index.html')).toContain('<h1>Mailing lists</h1>');
  });

  it('with --list keeps lists rendered before on the front page, and with --since writes only later months; a --since or --out that cannot be is refused', async () => {
    const dir = join(out, 'partial');
    const kernel = await render(dir, ['--list', KERNEL]);
    expect(kernel.lists.map((l) => l.name)).toEqual([KERNEL]);
    await render(dir, ['--list', HOSTILE]);
    const front = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(front).toContain('kernel-net.mbox');
    expect(front).toContain('hostile.mbox');
    expect(front).not.toContain('quarry-dev.mbox');

    const recent = join(out, 'recent');
    await render(recent, ['--list', QUARRY, '--since', '2024-03']);
    const months = siteFiles(recent)
      .filter((f) => /^lists\/[^/]+\/\d{4}-\d{2}\.html$/.test(f))
      .map((f) => f.slice(-12, -5));
    expect(months.length).toBeGreaterThan(0);
    expect(months.every((m) => m >= '2024-03')).toBe(true);
    const bad = await runCli(['render', '--db', db.url, '--out', recent, '--since', '2024-3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('YYYY-MM');
    const file = join(out, 'a-file');
    await writeFile(file, 'not a folder');
    const onFile = await runCli(['render', '--db', db.url, '--out', file]);
    expect(onFile.code).toBe(2);
    expect(onFile.stderr).toContain('is not a folder');
    const onProc = await runCli(['render', '--db', db.url, '--out', '/proc/self/listminer-site']);
    expect(onProc.code).toBe(2);
    expect(onProc.stderr).toContain('kernel filesystem');
  });

  it('writes the same files on the main thread alone (--workers 1) as with its threads for files and search', async () => {
    const alone = join(out, 'alone');
    await render(alone, ['--workers', '1']);
    expect(siteDigest(alone)).toEqual(siteDigest(join(out, 'site')));
  });

  it.each(['1', '3'])(
    'with --workers %s, stops with one sentence where a folder stands in place of a file, and leaves no manifest',
    async (workers) => {
      const blocked = join(out, `blocked-${workers}`);
      await mkdir(join(blocked, 'style.css'), { recursive: true });
      const run = await runCli(['render', '--db', db.url, '--out', blocked, '--workers', workers]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('render cannot write its file in');
      expect(run.stderr).toContain('a folder stands where a file goes');
      expect(run.stderr).not.toContain('unexpected');
      expect(existsSync(join(blocked, 'render-manifest.json'))).toBe(false);
      expect(existsSync(join(blocked, 'lists'))).toBe(true);
    },
  );

  it('stops with one sentence where a file stands in place of one of its folders', async () => {
    const blocked = join(out, 'blocked-folder');
    await mkdir(blocked, { recursive: true });
    await writeFile(join(blocked, 'lists'), 'not a folder');
    const run = await runCli(['render', '--db', db.url, '--out', blocked]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('a file stands where render makes a folder in it');
    expect(run.stderr).not.toContain('unexpected');
  });

  it('stopped by SIGTERM, ends its threads and exits 130 with no manifest; the next render makes the same site as one never stopped', async () => {
    const stopped = join(out, 'stopped');
    const running = startCli(['render', '--db', db.url, '--out', stopped]);
    await new Promise<void>((resolve) => {
      let seen = '';
      running.child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('(started)')) resolve();
      });
      running.child.on('close', () => resolve());
    });
    running.child.kill('SIGTERM');
    // A render whose threads keep it alive is ended after a generous wait, so the test reports instead of hanging.
    const stuck = setTimeout(() => running.child.kill('SIGKILL'), 60_000);
    const exit = await running.exited;
    clearTimeout(stuck);
    expect(exit.signal, exit.stderr).toBeNull();
    if (exit.code !== 0) {
      expect(exit.code, exit.stderr).toBe(130);
      expect(existsSync(join(stopped, 'render-manifest.json'))).toBe(false);
    }
    await render(stopped);
    expect(siteDigest(stopped)).toEqual(siteDigest(join(out, 'site')));
  });

  it('renders the same bytes on every engine', () => {
    const digest = siteDigest(join(out, 'site'));
    const other = [...digests.values()][0];
    digests.set(db.dialect, digest);
    if (other) expect(digest).toEqual(other);
  });
});
