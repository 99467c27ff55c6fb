/**
 * The render benchmark (`npm run bench:render`, docs/render.md and
 * docs/performance.md): builds a SQLite store of a synthetic archive with
 * `sync`, its last month held back; renders the whole site; then lets the
 * last month arrive (a longer export of the same mbox), syncs again and
 * renders only that month (`render --since`). Prints the pages written and
 * the seconds of each, beside the seconds of the sync that built the store.
 *
 *   npm run bench:render -- --messages 100000
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runCli } from './run-cli.js';
import { ARCHIVE_END, DEFAULT_SEED, syntheticArchive } from './synthetic-archive.js';
import { writeArchive } from './write-archive.js';

/** The month that arrives after the first render: the archive's last. */
const NEW_MONTH_START = Date.UTC(2024, 11, 1);
const NEW_MONTH = '2024-12';

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '100000' },
    seed: { type: 'string', default: String(DEFAULT_SEED) },
    keep: { type: 'boolean', default: false },
  },
});
const messages = Number(flags.messages);
const seed = Number(flags.seed);
if (!Number.isInteger(messages) || messages < 1) throw new Error('--messages wants a positive whole number');

const dir = mkdtempSync(join(tmpdir(), 'listminer-bench-render-'));
const mbox = join(dir, 'dev.mbox');
const db = join(dir, 'store.db');
const site = join(dir, 'site');
const log = (line) => console.log(line);
let runs = 0;

try {
  log(`listminer render benchmark: ${messages.toLocaleString('en-US')} synthetic messages (seed ${seed}), SQLite`);
  log(
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  // The same seed gives the same bytes, so the archive is made twice rather than held in memory.
  const before = await writeArchive(heldBack(syntheticArchive({ messages, seed })), { mbox });
  if (ARCHIVE_END <= NEW_MONTH_START || before.messages === messages)
    throw new Error('the archive has no last month to hold back');

  await runCli({ db, dir }, [
    'lists',
    'add',
    '--system',
    'mbox',
    '--rules',
    'apache_ponymail',
    mbox,
    '--repo',
    'https://github.com/apache/kafka',
  ]);
  const sync = await timed(['sync', '--full', '--now', '--json']);
  log(`sync of ${before.messages.toLocaleString('en-US')} messages: ${figures(sync)}`);

  const full = await timed(['render', '--out', site, '--json']);
  const fullJson = JSON.parse(full.stdout);
  log(
    `full render: ${fullJson.written.toLocaleString('en-US')} files written in ${figures(full)}: ${ratio(full, sync)} of the sync; site ${(folderBytes(site) / 1e6).toFixed(0)} MB`,
  );

  await writeArchive(syntheticArchive({ messages, seed }), { mbox });
  const resync = await timed(['sync', '--now', '--json']);
  log(
    `sync of ${NEW_MONTH} (${(messages - before.messages).toLocaleString('en-US')} new messages): ${figures(resync)}`,
  );
  const incremental = await timed(['render', '--out', site, '--since', NEW_MONTH, '--json']);
  const incrementalJson = JSON.parse(incremental.stdout);
  log(
    `render --since ${NEW_MONTH}: ${incrementalJson.written.toLocaleString('en-US')} files written, ${incrementalJson.skipped.toLocaleString('en-US')} unchanged, in ${figures(incremental)}: ${ratio(incremental, sync)} of the first sync`,
  );
  const within = (run, share) => run.seconds <= sync.seconds * share && run.cpu <= sync.cpu * share;
  log(
    `aims (wall and CPU): full render within the sync: ${within(full, 1) ? 'yes' : 'NO'}; incremental under a tenth of it: ${within(incremental, 0.1) ? 'yes' : 'NO'}`,
  );
} finally {
  if (flags.keep) log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

function* heldBack(items) {
  for (const item of items) if (item.arrived.getTime() < NEW_MONTH_START) yield item;
}

/** Wall seconds, CPU seconds and peak RSS of one command: on a shared machine the CPU seconds are the steadier figure. */
async function timed(args) {
  const usageFile = join(dir, `${args[0]}-${++runs}.usage.json`);
  const began = process.hrtime.bigint();
  const { stdout } = await runCli({ db, dir, usageFile }, args);
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  return { stdout, seconds, cpu: usage.userSeconds + usage.systemSeconds, rssMb: usage.maxRssBytes / 1e6 };
}

function figures(run) {
  return `${run.seconds.toFixed(1)} s (${run.cpu.toFixed(1)} s CPU, ${run.rssMb.toFixed(0)} MB peak)`;
}

function ratio(run, base) {
  return `${(run.seconds / base.seconds).toFixed(3)} wall, ${(run.cpu / base.cpu).toFixed(3)} CPU`;
}

function folderBytes(path) {
  let bytes = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  return bytes;
}
