/**
 * The end-to-end benchmark (`npm run bench`, docs/performance.md): writes an
 * archive, then for each engine and worker count runs fetch, classify, drain
 * and project as fresh processes of the built CLI on a fresh store, and the
 * whole pipeline again as one `sync` on a second fresh store, then `verify`
 * of that store. Each process is timed and its peak RSS taken; the store is
 * measured after each stage.
 * The Python standard library parses the same mbox as a baseline. Prints a
 * table per run and writes every figure to a JSON file.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Table from 'cli-table3';
import { corpusDirectory, corpusMissing } from './corpus-archive.js';
import { runCli } from './run-cli.js';
import { DEFAULT_SEED } from './synthetic-archive.js';
import { INBOX, archiveMessages, writeArchive } from './write-archive.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE = fileURLToPath(new URL('python-baseline.py', import.meta.url));
const PG_ADMIN_URL = process.env.LISTMINER_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REPO = 'https://github.com/apache/kafka';
const STAGES = ['fetch', 'classify', 'drain', 'project'];
const MB = 1e6;

const { values: flags } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    source: { type: 'string', default: 'synthetic' },
    format: { type: 'string', default: 'mbox' },
    engines: { type: 'string', default: 'sqlite,postgres' },
    workers: { type: 'string', default: '1,2' },
    rules: { type: 'string', default: 'apache_ponymail' },
    seed: { type: 'string', default: String(DEFAULT_SEED) },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-baseline': { type: 'boolean', default: false },
    // `sync` alone for a long run (1,000,000 messages): half the time.
    only: { type: 'string' },
  },
});

const options = {
  messages: positiveInteger(flags.messages, '--messages'),
  source: oneOf(flags.source, ['synthetic', 'corpus'], '--source'),
  format: oneOf(flags.format, ['mbox', 'public-inbox'], '--format'),
  engines: flags.engines.split(',').map((engine) => oneOf(engine.trim(), ['sqlite', 'postgres'], '--engines')),
  workers: flags.workers.split(',').map((w) => positiveInteger(w.trim(), '--workers')),
  rules: flags.rules,
  seed: positiveInteger(flags.seed, '--seed'),
  only: flags.only === undefined ? undefined : oneOf(flags.only, ['stages', 'sync'], '--only'),
};

if (options.source === 'corpus') {
  const missing = corpusMissing();
  if (missing) {
    console.log(`Skipping the corpus benchmark: ${missing}.`);
    process.exit(0);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'listminer-bench-'));
const cleanups = [];
const cleanUp = async () => {
  for (const cleanup of cleanups.splice(0).reverse())
    await cleanup().catch((error) => console.error(`cleanup: ${error.message}`));
};
if (!options.keep) cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
process.on('SIGINT', () => void cleanUp().finally(() => process.exit(130)));

const startedAt = new Date();
const machine = describeMachine();
log(
  `listminer end-to-end benchmark: ${options.messages.toLocaleString('en-US')} ${options.source} messages as ${options.format}, engines ${options.engines.join(', ')}, workers ${options.workers.join(', ')}`,
);
log(
  `${machine.cpus} × ${machine.cpuModel}, ${(machine.memoryBytes / 1024 ** 3).toFixed(0)} GiB, Node ${machine.node}, commit ${machine.commit}${machine.dirty ? ' (uncommitted changes)' : ''}, load ${machine.loadAverage.join(' ')}`,
);
log(`working in ${dir}${options.keep ? ' (kept)' : ''}`);

let failed = false;
try {
  const archive = await makeArchive();
  log(
    `archive: ${archive.messages.toLocaleString('en-US')} messages, ${(archive.mboxBytes / MB).toFixed(1)} MB of mbox${archive.epochs ? `, ${archive.epochs} public-inbox epoch(s)` : ''}, written in ${archive.seconds.toFixed(1)} s`,
  );
  const baseline = flags['no-baseline'] ? { skipped: '--no-baseline' } : runBaseline(archive);
  if (baseline.skipped) log(`baseline skipped: ${baseline.skipped}`);
  else log(`baseline: Python email package, ${baseline.msgPerSec.toFixed(0)} msg/s`);

  const runs = [];
  const skipped = [];
  for (const engine of options.engines) {
    const unavailable = engine === 'postgres' ? await postgresUnavailable() : undefined;
    if (unavailable) {
      log(`Skipping PostgreSQL: ${unavailable}`);
      skipped.push({ engine, reason: unavailable });
      continue;
    }
    for (const workers of options.workers) {
      const run = await benchmarkEngine(engine, workers, archive);
      runs.push(run);
      if (run.error) failed = true;
      printRun(run, archive, baseline);
    }
  }
  if (!baseline.skipped) printBaseline(baseline, archive);

  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...machine, loadAverageAtEnd: loadavg().map((n) => Number(n.toFixed(2))) },
    options,
    archive,
    baseline,
    runs,
    skipped,
  };
  const out = resultPath(machine.commit);
  mkdirSync(resolve(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  const shown = relative(process.cwd(), out);
  log(`\nfigures written to ${shown.startsWith('..') ? out : shown}`);
} catch (error) {
  failed = true;
  console.error(error instanceof Error ? error.stack : error);
} finally {
  await cleanUp();
}
process.exit(failed ? 1 : 0);

// ---- The archive and the baseline.

async function makeArchive() {
  const began = process.hrtime.bigint();
  const mbox = join(dir, 'archive.mbox');
  const inboxRoot = options.format === 'public-inbox' ? join(dir, 'public-inbox') : undefined;
  const items = await archiveMessages({
    source: options.source,
    messages: options.messages,
    seed: options.seed,
    corpusDir: corpusDirectory(),
  });
  const written = await writeArchive(items, { mbox, publicInbox: inboxRoot });
  return {
    source: options.source,
    format: options.format,
    seed: options.source === 'synthetic' ? options.seed : undefined,
    corpus: options.source === 'corpus' ? corpusDirectory() : undefined,
    mbox,
    inboxRoot,
    ...written,
    seconds: seconds(began),
  };
}

function runBaseline(archive) {
  const began = process.hrtime.bigint();
  let output;
  try {
    output = execFileSync('python3', [BASELINE, archive.mbox], { encoding: 'utf8', maxBuffer: 1 << 20 });
  } catch (error) {
    return {
      skipped:
        error.code === 'ENOENT'
          ? 'python3 is not installed'
          : `python3 failed: ${String(error.stderr ?? error.message)
              .trim()
              .split('\n')
              .pop()}`,
    };
  }
  const wall = seconds(began);
  const parsed = JSON.parse(output);
  return {
    ...parsed,
    wallSeconds: wall,
    msgPerSec: archive.messages / wall,
    mbPerSec: archive.mboxBytes / MB / wall,
    checked: parsed.messages === archive.messages ? 'ok' : `read ${parsed.messages} of ${archive.messages} messages`,
  };
}

// ---- One engine, one worker count: the stages one by one, then sync.

async function benchmarkEngine(engine, workers, archive) {
  const run = {
    engine,
    workers,
    stages: [],
    sync: undefined,
    verify: undefined,
    rows: undefined,
    syncRows: undefined,
    checks: [],
  };
  log(`\n${engine}, --workers ${workers}`);
  try {
    const store = options.only === 'sync' ? undefined : await createStore(engine, `stages-w${workers}`);
    if (store)
      try {
        await cli(store, ['lists', 'add', ...listArgs(archive)]);
        for (const stage of STAGES) {
          const figures = await measureStage(store, stage, stageArgs(stage, workers), archive);
          run.stages.push(figures);
          log(
            `  ${stage.padEnd(8)} ${figures.wallSeconds.toFixed(1).padStart(7)} s  ${summarise(stage, figures.result)}`,
          );
        }
        run.rows = await store.rows();
        run.checks.push(...checkStages(run, archive.messages));
      } finally {
        await store.drop();
      }
    const syncStore = options.only === 'stages' ? undefined : await createStore(engine, `sync-w${workers}`);
    if (syncStore)
      try {
        await cli(syncStore, ['lists', 'add', ...listArgs(archive)]);
        run.sync = await measureStage(
          syncStore,
          'sync',
          ['sync', '--now', '--full', '--workers', String(workers)],
          archive,
        );
        log(
          `  ${'sync'.padEnd(8)} ${run.sync.wallSeconds.toFixed(1).padStart(7)} s  ${summarise('sync', run.sync.result)}`,
        );
        run.syncRows = await syncStore.rows();
        run.checks.push(...checkSync(run, archive.messages));
        // What a CI job runs on the store next: verify reads all of it.
        run.verify = await measureStage(syncStore, 'verify', ['verify'], archive);
        log(
          `  ${'verify'.padEnd(8)} ${run.verify.wallSeconds.toFixed(1).padStart(7)} s  ${summarise('verify', run.verify.result)}`,
        );
      } finally {
        await syncStore.drop();
      }
  } catch (error) {
    run.error = error.message;
    log(`  failed: ${error.message}`);
  }
  return run;
}

function listArgs(archive) {
  const rules = ['--rules', options.rules, '--repo', REPO];
  return archive.inboxRoot
    ? ['--system', 'public_inbox', INBOX, '--base-url', `file://${archive.inboxRoot}`, ...rules]
    : ['--system', 'mbox', archive.mbox, ...rules];
}

/** Each command's --workers: lists at once for fetch, drain and project (one list here), parsing threads for classify. */
function stageArgs(stage, workers) {
  if (stage === 'fetch') return ['fetch', '--now', '--full', '--workers', String(workers)];
  return [stage, '--workers', String(workers)];
}

async function measureStage(store, stage, args, archive) {
  const usageFile = join(store.dir, `${stage}.usage.json`);
  const began = process.hrtime.bigint();
  const { stdout } = await cli(store, [...args, '--json'], usageFile);
  const wall = seconds(began);
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  const storeBytes = await store.bytes();
  return {
    stage,
    wallSeconds: wall,
    cpuSeconds: usage.userSeconds + usage.systemSeconds,
    mainCpuSeconds: usage.mainThreadSeconds,
    msgPerSec: archive.messages / wall,
    mbPerSec: archive.mboxBytes / MB / wall,
    maxRssBytes: usage.maxRssBytes,
    storeBytes: storeBytes.bytes,
    storeDetail: storeBytes.detail,
    storeRatio: storeBytes.bytes / archive.mboxBytes,
    result: compactResult(stage, JSON.parse(stdout)),
  };
}

/** Runs the built CLI on one of the benchmark's stores. */
function cli(store, args, usageFile) {
  return runCli({ db: store.url, dir: store.dir, usageFile }, args);
}

function compactResult(stage, json) {
  switch (stage) {
    case 'fetch':
      return pick(json.totals, ['months', 'seen', 'staged', 'duplicates', 'failed']);
    case 'classify':
      return pick(json, ['classified', 'shunted', 'classes']);
    case 'drain':
      return pick(json, ['drained', 'deferred', 'shunted', 'threadsRepaired']);
    case 'project':
      return pick(json, ['examined', 'linked', 'created', 'inherited', 'mirror', 'none', 'issuesCreated']);
    case 'verify':
      return pick(json, ['lists', 'ok', 'failing']);
    case 'sync':
      return {
        fetch: compactResult('fetch', json.fetch),
        classify: json.classify && compactResult('classify', json.classify),
        drain: json.drain && compactResult('drain', json.drain),
        project: json.project && compactResult('project', json.project),
        failed: json.failed,
      };
    default:
      return json;
  }
}

function summarise(stage, result) {
  switch (stage) {
    case 'fetch':
      return `${result.staged} staged, ${result.duplicates} already stored, ${result.failed} failed`;
    case 'classify':
      return `${result.classified} classified, ${result.shunted} shunted`;
    case 'drain':
      return `${result.drained} drained, ${result.deferred} deferred, ${result.shunted} shunted`;
    case 'project':
      return `${result.examined} examined, ${result.issuesCreated} issues created`;
    case 'verify':
      // Named, so a branch the archive's mail cannot fill (class:issue_event on the kernel-heavy corpus) reads as that, not as a fault.
      return `${result.lists} lists, ${result.failing.length === 0 ? 'nothing failing' : `failing: ${result.failing.join(', ')}`}`;
    default:
      return `${result.fetch.staged} staged, ${result.classify?.classified} classified, ${result.drain?.drained} drained, ${result.project?.examined} projected`;
  }
}

// ---- Row counts: a fast run that lost or doubled mail must show.

function checkStages(run, expected) {
  const [fetch, classify, drain, project] = run.stages.map((stage) => stage.result);
  return rowChecks(run.rows, expected, {
    staged: fetch.staged,
    parsed: classify.classified + classify.shunted,
    drained: drain.drained,
    projected: project.examined,
  });
}

function checkSync(run, expected) {
  const { fetch, classify, drain, project } = run.sync.result;
  return rowChecks(run.syncRows, expected, {
    staged: fetch.staged,
    parsed: (classify?.classified ?? 0) + (classify?.shunted ?? 0),
    drained: drain?.drained ?? 0,
    projected: project?.examined ?? 0,
  }).map((check) => ({ ...check, name: `sync: ${check.name}` }));
}

function rowChecks(rows, expected, reported) {
  const shunted = rows.staged.shunted ?? 0;
  const checks = [
    ['staged_messages rows = messages', rows.stagedTotal, expected],
    ['fetch staged = messages', reported.staged, expected],
    ['classify parsed or shunted every row', reported.parsed, expected],
    ['drained rows + shunted = messages', (rows.staged.drained ?? 0) + shunted, expected],
    ['email_messages rows = drained', rows.emailMessages, reported.drained],
    ['project examined = email_messages', reported.projected, rows.emailMessages],
  ];
  return checks.map(([name, actual, wanted]) => ({ name, actual, expected: wanted, ok: actual === wanted }));
}

// ---- Stores: a SQLite file or a fresh PostgreSQL database, measured and dropped.

async function createStore(engine, label) {
  const storeDir = join(dir, `${engine}-${label}`);
  mkdirSync(storeDir, { recursive: true });
  if (engine === 'sqlite') {
    const path = join(storeDir, 'listminer.db');
    return {
      dir: storeDir,
      url: path,
      bytes: async () => sqliteBytes(path),
      rows: async () => withSqlite(path, (db) => countRows((sql) => db.prepare(sql).all())),
      drop: async () => {
        if (!options.keep) rmSync(storeDir, { recursive: true, force: true });
      },
    };
  }
  const postgres = (await import('postgres')).default;
  const name = `listminer_bench_${randomBytes(5).toString('hex')}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const drop = async () => {
    const sql = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
    await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await sql.end();
  };
  if (!options.keep) cleanups.push(drop);
  const withDatabase = async (fn) => {
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      return await fn(sql);
    } finally {
      await sql.end();
    }
  };
  return {
    dir: storeDir,
    url: url.toString(),
    bytes: () => withDatabase(postgresBytes),
    rows: () => withDatabase((sql) => countRows((query) => sql.unsafe(query))),
    drop: async () => {
      if (options.keep) return log(`  kept PostgreSQL database ${name}`);
      await drop();
      cleanups.splice(cleanups.indexOf(drop), 1);
    },
  };
}

/** The database file and its WAL after a checkpoint has folded the WAL in. */
async function sqliteBytes(path) {
  await withSqlite(path, (db) => db.pragma('wal_checkpoint(TRUNCATE)'));
  const size = (file) => (existsSync(file) ? statSync(file).size : 0);
  const file = size(path);
  const wal = size(`${path}-wal`);
  return { bytes: file + wal, detail: { file, wal } };
}

async function withSqlite(path, fn) {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path, { fileMustExist: true });
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

/** listminer's tables with their indexes and TOAST (pg_total_relation_size), beside the whole database's size. */
async function postgresBytes(sql) {
  const [row] = await sql.unsafe(
    `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint AS tables, pg_database_size(current_database())::bigint AS database
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname = current_schema()`,
  );
  return { bytes: Number(row.tables), detail: { tables: Number(row.tables), database: Number(row.database) } };
}

async function countRows(query) {
  const count = async (sql) => Number((await query(sql))[0].n);
  const staged = {};
  for (const row of await query('SELECT status, COUNT(*) AS n FROM staged_messages GROUP BY status'))
    staged[row.status] = Number(row.n);
  return {
    stagedTotal: Object.values(staged).reduce((sum, n) => sum + n, 0),
    staged,
    emailMessages: await count('SELECT COUNT(*) AS n FROM email_messages'),
    emailMessageBodies: await count('SELECT COUNT(*) AS n FROM email_message_bodies'),
    distinctBodies: await count('SELECT COUNT(*) AS n FROM message_bodies'),
    threads: await count('SELECT COUNT(DISTINCT thread_root_key) AS n FROM email_messages'),
    contributors: await count('SELECT COUNT(*) AS n FROM contributors'),
    issues: await count('SELECT COUNT(*) AS n FROM issues'),
    patchSeries: await count('SELECT COUNT(*) AS n FROM patch_series'),
  };
}

async function postgresUnavailable() {
  const postgres = (await import('postgres')).default;
  const sql = postgres(PG_ADMIN_URL, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await sql`SELECT 1`;
    return undefined;
  } catch (error) {
    return `${redact(PG_ADMIN_URL)} is not reachable (${error.code ?? error.message}); set LISTMINER_BENCH_PG_URL to another server`;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

// ---- Printing.

function printRun(run, archive, baseline) {
  const table = new Table({
    head: ['stage', 'wall s', 'CPU s', 'main CPU s', 'msg/s', 'MB/s', 'peak RSS MB', 'store MB', 'store/mbox'],
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    style: { head: [], border: [], compact: true },
  });
  const row = (name, f) => [
    name,
    f.wallSeconds.toFixed(1),
    f.cpuSeconds.toFixed(1),
    f.mainCpuSeconds?.toFixed(1) ?? '',
    Math.round(f.msgPerSec).toLocaleString('en-US'),
    f.mbPerSec.toFixed(2),
    (f.maxRssBytes / MB).toFixed(0),
    (f.storeBytes / MB).toFixed(1),
    `${f.storeRatio.toFixed(2)}x`,
  ];
  for (const stage of run.stages) table.push(row(stage.stage, stage));
  if (run.stages.length === STAGES.length) table.push(row('4 stages', totalOf(run.stages, archive)));
  if (run.sync) table.push(row('sync', run.sync));
  if (run.verify) table.push(row('verify', run.verify));
  if (!baseline.skipped && run.sync)
    table.push([
      'sync ÷ Python baseline',
      { colSpan: 7, content: `${(run.sync.msgPerSec / baseline.msgPerSec).toFixed(2)}x the baseline's msg/s (wall)` },
    ]);
  console.log(
    `\n${run.engine}, --workers ${run.workers}: ${archive.messages.toLocaleString('en-US')} ${options.source} messages, ${(archive.mboxBytes / MB).toFixed(1)} MB mbox${options.format === 'public-inbox' ? ', fetched from public-inbox' : ''}`,
  );
  console.log(table.toString());
  const failedChecks = run.checks.filter((check) => !check.ok);
  if (run.error) console.log(`run failed: ${run.error}`);
  else if (failedChecks.length === 0) {
    const rows = run.rows ?? run.syncRows;
    console.log(
      `row counts: ${run.checks.length} checks ok (${rows.stagedTotal} staged, ${rows.emailMessages} email_messages, ${rows.threads} threads, ${rows.issues} issues)`,
    );
  }
  for (const check of failedChecks)
    console.log(`CHECK FAILED: ${check.name}: ${check.actual}, expected ${check.expected}`);
}

function totalOf(stages, archive) {
  const wall = stages.reduce((sum, s) => sum + s.wallSeconds, 0);
  const last = stages[stages.length - 1];
  return {
    wallSeconds: wall,
    cpuSeconds: stages.reduce((sum, s) => sum + s.cpuSeconds, 0),
    mainCpuSeconds: stages.every((s) => s.mainCpuSeconds !== undefined)
      ? stages.reduce((sum, s) => sum + s.mainCpuSeconds, 0)
      : undefined,
    msgPerSec: archive.messages / wall,
    mbPerSec: archive.mboxBytes / MB / wall,
    maxRssBytes: Math.max(...stages.map((s) => s.maxRssBytes)),
    storeBytes: last.storeBytes,
    storeRatio: last.storeRatio,
  };
}

function printBaseline(baseline, archive) {
  const table = new Table({
    head: ['baseline', 'wall s', 'CPU s', 'msg/s', 'MB/s', 'peak RSS MB'],
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right'],
    style: { head: [], border: [], compact: true },
  });
  table.push([
    'Python mailbox + email',
    baseline.wallSeconds.toFixed(1),
    baseline.cpuSeconds.toFixed(1),
    Math.round(baseline.msgPerSec).toLocaleString('en-US'),
    baseline.mbPerSec.toFixed(2),
    (baseline.maxRssBytes / MB).toFixed(0),
  ]);
  console.log(
    `\nbaseline: the same mbox parsed by Python ${baseline.python} (stores nothing)${baseline.checked === 'ok' ? '' : `; ${baseline.checked}`}`,
  );
  console.log(table.toString());
  void archive;
}

// ---- Small things.

function describeMachine() {
  const git = (args) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  };
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    commit: git(['rev-parse', '--short=12', 'HEAD']) ?? 'unknown',
    branch: git(['rev-parse', '--abbrev-ref', 'HEAD']),
    dirty: Boolean(git(['status', '--porcelain', '--untracked-files=no'])),
    loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
  };
}

function resultPath(commit) {
  if (flags.out) return resolve(flags.out);
  const base = join(ROOT, 'bench', 'results', `${startedAt.toISOString().slice(0, 10)}-${commit}`);
  let path = `${base}.json`;
  for (let n = 2; existsSync(path); n++) path = `${base}-${n}.json`;
  return path;
}

function seconds(began) {
  return Number(process.hrtime.bigint() - began) / 1e9;
}

function pick(object, keys) {
  return Object.fromEntries(keys.filter((key) => object?.[key] !== undefined).map((key) => [key, object[key]]));
}

function redact(url) {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

function log(message) {
  console.log(message);
}

function positiveInteger(text, flag) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) usage(`${flag} takes a positive integer, not ${text}`);
  return n;
}

function oneOf(text, allowed, flag) {
  if (!allowed.includes(text)) usage(`${flag} takes ${allowed.join(' or ')}, not ${text}`);
  return text;
}

function usage(message) {
  console.error(
    `${message}\nusage: npm run bench -- [--messages N] [--source synthetic|corpus] [--format mbox|public-inbox] [--engines sqlite,postgres] [--workers 1,2] [--rules SYSTEM] [--seed N] [--out FILE] [--keep] [--no-baseline]\n       npm run bench:classify   (the classify micro benchmark)`,
  );
  process.exit(2);
}
