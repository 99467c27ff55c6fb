import { spawnSync } from 'node:child_process';

/**
 * Sends a signal to a server's process and to every process it started (a
 * login process, a process per connection): SIGSTOP makes a server that
 * keeps its connections open and answers nothing, SIGCONT lets it go on.
 */
export function signalServer(pid: number, signal: NodeJS.Signals): void {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean);
  for (const each of [pid, ...children.map(Number)]) {
    try {
      process.kill(each, signal);
    } catch {
      // a process that ended since pgrep listed it
    }
  }
}

/** Runs `work` while the server is stopped (its `pause`), letting it go on however `work` ends; with how long `work` took. */
export async function whileSilent<T>(
  server: { pause(): void; resume(): void },
  work: () => Promise<T>,
): Promise<{ outcome: T; ms: number }> {
  server.pause();
  const started = Date.now();
  try {
    return { outcome: await work(), ms: Date.now() - started };
  } finally {
    server.resume();
  }
}

/**
 * Why a suite that needs real software installed from Debian (HyperKitty,
 * INN, Dovecot, Chromium) cannot run here, or undefined. The probe says what
 * is missing; under CI=true a missing package is an error, not a skip,
 * because .ci/run installs it.
 */
export function realSoftwareSkipReason(probe: () => string | undefined): string | undefined {
  const reason = probe();
  if (reason && process.env.CI === 'true') throw new Error(`${reason}; under CI=true .ci/run installs it`);
  return reason;
}
