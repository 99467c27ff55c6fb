// The page callbacks run in Chromium, where the DOM's types apply.
/// <reference lib="dom" />
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RenderResult } from '../../src/core/render/render-site.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { startPythonHttpServer } from '../helpers/folder-server.js';
import { realSoftwareSkipReason } from '../helpers/real-software.js';
import { siteFiles } from '../helpers/static-site.js';

const CHROMIUM = process.env.LISTMINER_CHROMIUM ?? '/usr/bin/chromium';
const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const HOSTILE = fileURLToPath(new URL('../fixtures/render/hostile.mbox', import.meta.url));

/** Debian's Chromium (.ci/run installs it); without it the suite skips, except under CI=true. */
function chromiumMissing(): string | undefined {
  return realSoftwareSkipReason(() =>
    existsSync(CHROMIUM)
      ? undefined
      : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set LISTMINER_CHROMIUM)`,
  );
}

// The engines render the same bytes (render.test.ts), so the browser reads one engine's site.
describeOnDialectDatabases(
  'the rendered site in a real browser ($dialect)',
  (databases) => {
    let out: string;
    let browser: Browser;
    let site: string;

    beforeAll(async () => {
      const db = await databases.create();
      out = await mkdtemp(join(tmpdir(), 'listminer-render-browser-'));
      site = join(out, 'site');
      for (const [path, rules, repo] of [
        [example('kernel-net.mbox'), 'public_inbox', 'https://github.com/torvalds/linux'],
        [example('quarry-dev.mbox'), 'apache_ponymail', 'https://github.com/apache/quarry'],
        [HOSTILE, 'mbox', 'https://github.com/example/hostile'],
      ] as const) {
        const add = await runCli([
          'lists',
          'add',
          '--system',
          'mbox',
          '--rules',
          rules,
          path,
          '--repo',
          repo,
          '--db',
          db.url,
        ]);
        expect(add.code, add.stderr).toBe(0);
      }
      const sync = await runCli(['sync', '--full', '--now', '--db', db.url]);
      expect(sync.code, sync.stderr).toBe(0);
      const render = await runCliJson<RenderResult>(['render', '--out', site, '--db', db.url]);
      expect(render.code, render.stderr).toBe(0);
      const { launch } = await import('puppeteer-core');
      browser = await launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'],
      });
    }, 240_000);

    afterAll(async () => {
      await browser?.close();
      if (out) await rm(out, { recursive: true, force: true });
    });

    /** Opens each address; returns what the console said, script errors, and pages whose title mail changed. */
    async function visit(urls: readonly string[]): Promise<string[]> {
      const problems: string[] = [];
      const tab = await browser.newPage();
      let current = '';
      tab.on('console', (message) => problems.push(`${current}: console ${message.type()}: ${message.text()}`));
      tab.on('pageerror', (error) => problems.push(`${current}: ${String(error)}`));
      tab.on('requestfailed', (request) => problems.push(`${current}: could not load ${request.url()}`));
      for (const url of urls) {
        current = url;
        const response = await tab.goto(url, { waitUntil: 'load' });
        if (response && !response.ok() && response.status() !== 0) problems.push(`${url}: HTTP ${response.status()}`);
        if ((await tab.title()) === 'pwned') problems.push(`${url}: mail ran a script`);
      }
      await tab.close();
      return problems;
    }

    const readingPages = () =>
      siteFiles(site).filter((f) => f.endsWith('.html') && !f.startsWith('m/') && f !== 'lookup.html');

    it('opens every page from disk with no console message and no script from mail', async () => {
      const problems = await visit(readingPages().map((f) => pathToFileURL(join(site, f)).href));
      expect(problems).toEqual([]);
    }, 240_000);

    it("opens every page from a static web server (Python's http.server) the same way", async () => {
      const server = await startPythonHttpServer(site);
      try {
        const problems = await visit(readingPages().map((f) => `${server.url}/${f}`));
        expect(problems).toEqual([]);
      } finally {
        server.process.kill();
      }
    }, 240_000);

    it("finds a message by its Message-ID and a message's own address leads to its place in the thread", async () => {
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on('console', (message) => problems.push(`console ${message.type()}: ${message.text()}`));
      tab.on('pageerror', (error) => problems.push(String(error)));
      const lookup = pathToFileURL(join(site, 'lookup.html'));
      lookup.searchParams.set('id', '<2024020505.paol@example.invalid>');
      await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.goto(lookup.href)]);
      // lookup.html → m/xx/call.html → t/yy/root.html#m-call
      await tab.waitForFunction("location.pathname.includes('/t/')", { timeout: 10_000 });
      const at = new URL(tab.url());
      expect(at.hash).toMatch(/^#m-[a-z2-7]{10}$/);
      expect(await tab.$eval(at.hash, (article) => (article as { textContent: string | null }).textContent)).toContain(
        '2024020505.paol@example.invalid',
      );
      expect(problems).toEqual([]);
      await tab.close();
    }, 60_000);

    it("finds a known message by words of its text with a list's search, from disk, and its hit leads to the message", async () => {
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on('console', (message) => problems.push(`console ${message.type()}: ${message.text()}`));
      tab.on('pageerror', (error) => problems.push(String(error)));
      tab.on('requestfailed', (request) => problems.push(`could not load ${request.url()}`));
      const searchPage = siteFiles(site).find((f) => f.endsWith('/search.html') && f.includes('kernel-net'))!;
      const url = pathToFileURL(join(site, searchPage));
      url.searchParams.set('q', 'resume path on purpose');
      await tab.goto(url.href, { waitUntil: 'load' });
      await tab.waitForSelector('#hits li', { timeout: 10_000 });
      const first = await tab.$eval('#hits li', (li) => li.textContent ?? '');
      expect(first).toContain('Re: [PATCH net-next 1/3] net: foo: reset the MAC on probe');
      expect(first).toContain('Paola Abeni');
      await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), tab.click('#hits li a')]);
      await tab.waitForFunction("location.pathname.includes('/t/')", { timeout: 10_000 });
      const at = new URL(tab.url());
      expect(await tab.$eval(at.hash, (article) => article.textContent)).toContain('2024020505.paol@example.invalid');
      // A sender's name finds their mail first, and nothing found says so.
      const byName = pathToFileURL(join(site, searchPage));
      byName.searchParams.set('q', 'Abeni');
      await tab.goto(byName.href, { waitUntil: 'load' });
      await tab.waitForSelector('#hits li', { timeout: 10_000 });
      expect(await tab.$eval('#hits li', (li) => li.textContent ?? '')).toContain('Paola Abeni');
      const nothing = pathToFileURL(join(site, searchPage));
      nothing.searchParams.set('q', 'zzyzxqq');
      await tab.goto(nothing.href, { waitUntil: 'load' });
      await tab.waitForFunction("document.getElementById('result').textContent === 'No message matches.'", {
        timeout: 10_000,
      });
      expect(problems).toEqual([]);
      await tab.close();
    }, 60_000);
  },
  {
    only: ['sqlite'],
    onlyWhy: 'both engines render the same bytes (render.test.ts); the browser reads one site',
    skip: chromiumMissing(),
  },
);
