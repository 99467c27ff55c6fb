import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RUN_JS = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const MEASURE = fileURLToPath(new URL('measure-process.js', import.meta.url));

/**
 * Runs the built CLI as a fresh process on the store `db`, in the folder
 * `dir` (no stray ./listminer.yaml, its own cache), under the RSS wrapper
 * (measure-process.js) when a usage file is named. Resolves with its output;
 * rejects with the end of its stderr when it fails.
 */
export function runCli({ db, dir, usageFile }, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [MEASURE, RUN_JS, ...args, '--db', db], {
      cwd: dir,
      env: {
        ...process.env,
        LISTMINER_DB: '',
        LISTMINER_CONFIG: '',
        LISTMINER_CACHE: join(dir, 'cache'),
        LISTMINER_BENCH_USAGE: usageFile ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-8000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise({ stdout, stderr });
      else reject(new Error(`listminer ${args.join(' ')} exited ${code}:\n${stderr.trim()}`));
    });
  });
}
