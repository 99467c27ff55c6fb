// `npm run render:shots` (builds first): renders the example archives
// (examples/kernel-net.mbox, examples/quarry-dev.mbox) into a static site and
// photographs four of its pages in Debian's Chromium: the front page, a
// list's overview, a thread and a patch series. The PNGs go to docs/images/,
// where the README shows them.
//
//   LISTMINER_CHROMIUM=/path/to/chromium npm run render:shots
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch } from 'puppeteer-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.LISTMINER_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const IMAGES = join(ROOT, 'docs', 'images');

const dir = mkdtempSync(join(tmpdir(), 'listminer-shots-'));
try {
  const db = join(dir, 'store.db');
  const site = join(dir, 'site');
  const cli = (...args) =>
    execFileSync(process.execPath, [join(ROOT, 'bin', 'run.js'), ...args, '--db', db], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, LISTMINER_DB: '', LISTMINER_CONFIG: '' },
    });
  cli(
    'lists',
    'add',
    '--system',
    'mbox',
    '--rules',
    'public_inbox',
    join(ROOT, 'examples', 'kernel-net.mbox'),
    '--repo',
    'https://github.com/torvalds/linux',
  );
  cli(
    'lists',
    'add',
    '--system',
    'mbox',
    '--rules',
    'apache_ponymail',
    join(ROOT, 'examples', 'quarry-dev.mbox'),
    '--repo',
    'https://github.com/apache/quarry',
  );
  cli('sync', '--full', '--now', '--quiet');
  const rendered = JSON.parse(cli('render', '--out', site, '--json'));
  const kernel = rendered.lists.find((list) => list.name.endsWith('kernel-net.mbox'));
  const quarry = rendered.lists.find((list) => list.name.endsWith('quarry-dev.mbox'));
  const overview = join(site, quarry.path);
  // The kernel list's patch series with the most versions, and the thread of its latest version.
  const seriesList = readFileSync(join(site, kernel.path.replace(/index\.html$/, 'series.html')), 'utf8');
  const threadsOf = (page) =>
    [...readFileSync(join(site, page), 'utf8').matchAll(/href="\.\.\/\.\.\/(t\/[^"]+)"/g)].map((m) => m[1]);
  const seriesPages = [...seriesList.matchAll(/href="\.\.\/\.\.\/(s\/[^"]+)"/g)].map((m) => m[1]);
  const seriesPage = seriesPages.reduce((best, page) =>
    threadsOf(page).length > threadsOf(best).length ? page : best,
  );
  const series = join(site, seriesPage);
  const thread = join(site, threadsOf(seriesPage).at(-1));

  const shots = [
    ['render-front.png', join(site, 'index.html')],
    ['render-list.png', overview],
    ['render-thread.png', thread],
    ['render-series.png', series],
  ];
  mkdirSync(IMAGES, { recursive: true });
  const browser = await launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  try {
    const tab = await browser.newPage();
    await tab.setViewport({ width: 1200, height: 900, deviceScaleFactor: 1 });
    for (const [name, file] of shots) {
      await tab.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      await tab.screenshot({ path: join(IMAGES, name), fullPage: false });
      console.log(`docs/images/${name}`);
    }
  } finally {
    await browser.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
