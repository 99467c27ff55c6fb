/**
 * The render benchmark (`npm run bench:render`, docs/render.md and
 * docs/performance.md): builds a SQLite store of a synthetic archive with
 * `sync`, its last month held back; renders the whole site; then lets the
 * last month arrive (a longer export of the same mbox), syncs again and
 * renders only that month (`render --since`), `--rounds` times, each time on
 * a hard-linked copy of the site as the full render left it (a render never
 * writes into a file in place, so the copies do not disturb each other). Prints the
 * pages written and the seconds of each, the incremental render's median,
 * beside the seconds of the sync that built the store.
 *
 *   npm run bench:render -- --messages 100000 --rounds 3
 */
import { spawnSync } from 'node:child_process';
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
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
});
const rounds = Number(flags.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds wants a positive whole number');
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
  // Each round renders into its own copy of the site the full render left, made before any round: hard links cost no
  // bytes, and nothing is deleted until the end (ext4 is slow to make files for minutes after many are deleted).
  const sites = [site];
  for (let round = 2; round <= rounds; round++) {
    sites.push(`${site}.${round}`);
    link(site, sites.at(-1));
  }
  const incrementals = [];
  for (let round = 1; round <= rounds; round++) {
    const run = await timed(['render', '--out', sites[round - 1], '--since', NEW_MONTH, '--json']);
    const json = JSON.parse(run.stdout);
    log(
      `render --since ${NEW_MONTH}, round ${round}: ${json.written.toLocaleString('en-US')} files written, ${json.skipped.toLocaleString('en-US')} unchanged, in ${figures(run)}: ${ratio(run, sync)} of the first sync`,
    );
    incrementals.push(run);
  }
  const incremental = {
    seconds: median(incrementals.map((run) => run.seconds)),
    cpu: median(incrementals.map((run) => run.cpu)),
  };
  if (rounds > 1)
    log(
      `render --since ${NEW_MONTH}, median of ${rounds}: ${incremental.seconds.toFixed(1)} s (${incremental.cpu.toFixed(1)} s CPU): ${ratio(incremental, sync)} of the first sync`,
    );
  // The aims are of elapsed time, as a user waits for it; render's threads make its CPU seconds more than its wall seconds.
  const within = (run, share) => run.seconds <= sync.seconds * share;
  log(
    `aims (wall time): full render within the sync: ${within(full, 1) ? 'yes' : 'NO'}; incremental under a tenth of it: ${within(incremental, 0.1) ? 'yes' : 'NO'}`,
  );
} finally {
  if (flags.keep) log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

function* heldBack(items) {
  for (const item of items) if (item.arrived.getTime() < NEW_MONTH_START) yield item;
}

/**
 * Wall seconds, CPU seconds (and the kernel's share) and peak RSS of one
 * command. The kernel's share of a render is making files: it varies with
 * the file system's state (ext4 makes files slowly for minutes after many
 * were deleted), so it is shown apart.
 */
async function timed(args) {
  const usageFile = join(dir, `${args[0]}-${++runs}.usage.json`);
  const began = process.hrtime.bigint();
  const { stdout } = await runCli({ db, dir, usageFile }, args);
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  return {
    stdout,
    seconds,
    cpu: usage.userSeconds + usage.systemSeconds,
    kernel: usage.systemSeconds,
    rssMb: usage.maxRssBytes / 1e6,
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A copy of the folder `from` at `to` made of hard links. */
function link(from, to) {
  const copy = spawnSync('cp', ['-al', from, to], { encoding: 'utf8' });
  if (copy.status !== 0) throw new Error(`cp -al ${from} ${to} failed: ${copy.stderr || copy.error}`);
}

function figures(run) {
  return `${run.seconds.toFixed(1)} s (${run.cpu.toFixed(1)} s CPU, ${run.kernel.toFixed(1)} s of it in the kernel; ${run.rssMb.toFixed(0)} MB peak)`;
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
