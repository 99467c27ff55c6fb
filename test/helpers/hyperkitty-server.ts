import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { realSoftwareSkipReason } from './real-software.js';

/** Debian's python, where python3-django-hyperkitty and gunicorn are installed (not a pyenv shim's). */
const PYTHON = process.env.LISTMINER_HYPERKITTY_PYTHON ?? '/usr/bin/python3';
const SITE_DIR = fileURLToPath(new URL('../hyperkitty/', import.meta.url));

function probeHyperKitty(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import hyperkitty, django, gunicorn'], { encoding: 'utf8' });
  if (probe.error) return `${PYTHON} cannot be run (${probe.error.message})`;
  if (probe.status !== 0)
    return `HyperKitty or gunicorn is not installed for ${PYTHON} (apt-get install python3-django-hyperkitty gunicorn)`;
  return undefined;
}

/**
 * Why the real-HyperKitty suites cannot run here, or undefined. Under
 * CI=true a missing HyperKitty is an error: .ci/run installs it.
 */
export const hyperKittySkipReason = realSoftwareSkipReason(probeHyperKitty);

export interface HyperKittySite {
  /** runserver: replies without a length end by closing the connection. */
  closingUrl: string;
  /** gunicorn: replies without a length are sent chunked. */
  chunkedUrl: string;
  /** Imports mbox text into a list with `hyperkitty_import --no-sync-mailman`; `since` lets it take mail older than the list's newest. */
  importMbox(list: string, mbox: string, options?: { since?: string }): Promise<string>;
  /** Seconds spent in migrate and in starting the two servers. */
  timings: { migrateMs: number; startMs: number };
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function runManage(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      ['manage.py', ...args],
      { cwd: SITE_DIR, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`manage.py ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}

async function waitUntilServing(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`the server at ${url} exited (${child.exitCode}):\n${log()}`);
    try {
      const response = await fetch(`${url}/hyperkitty/`);
      await response.arrayBuffer();
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server at ${url} did not answer within 30 s:\n${log()}`);
}

function serve(command: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; log: () => string } {
  const child = spawn(PYTHON, command, { cwd: SITE_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, log: () => output };
}

/**
 * A real HyperKitty (Debian's python3-django-hyperkitty) over a fresh SQLite
 * database in a temporary folder, served twice on free ports of 127.0.0.1:
 * by Django's runserver and by gunicorn. Stop it with close().
 */
export async function startHyperKitty(): Promise<HyperKittySite> {
  const dataDir = mkdtempSync(join(tmpdir(), 'listminer-hyperkitty-'));
  const env = {
    ...process.env,
    HK_DATA_DIR: dataDir,
    DJANGO_SETTINGS_MODULE: 'settings',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const started = Date.now();
  await runManage(env, ['migrate', '--verbosity', '0']);
  const migrateMs = Date.now() - started;
  const [closingPort, chunkedPort] = [await freePort(), await freePort()];
  const runserver = serve(['manage.py', 'runserver', '--noreload', '--nothreading', `127.0.0.1:${closingPort}`], env);
  const gunicorn = serve(
    ['-m', 'gunicorn', '--bind', `127.0.0.1:${chunkedPort}`, '--workers', '1', 'wsgi:application'],
    env,
  );
  const servers = [runserver, gunicorn];
  const closingUrl = `http://127.0.0.1:${closingPort}`;
  const chunkedUrl = `http://127.0.0.1:${chunkedPort}`;
  const stop = async () => {
    await Promise.all(
      servers.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await Promise.all([
      waitUntilServing(closingUrl, runserver.child, runserver.log),
      waitUntilServing(chunkedUrl, gunicorn.child, gunicorn.log),
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  let imports = 0;
  return {
    closingUrl,
    chunkedUrl,
    timings: { migrateMs, startMs: Date.now() - started - migrateMs },
    async importMbox(list, mbox, options = {}) {
      const file = join(dataDir, `import-${++imports}.mbox`);
      writeFileSync(file, mbox);
      const since = options.since ? ['--since', options.since] : [];
      return runManage(env, ['hyperkitty_import', '--no-sync-mailman', '--ignore-mtime', ...since, '-l', list, file]);
    },
    close: stop,
  };
}
