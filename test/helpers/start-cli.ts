import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { RUN_JS } from './cli.js';

export interface CliExit {
  /** Exit code, or null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The highest resident set size seen (VmHWM, polled from /proc), in bytes; 0 without /proc. */
  peakRssBytes: number;
}

export interface RunningCli {
  child: ChildProcess;
  pid: number;
  /** Resolves when the process has exited. */
  exited: Promise<CliExit>;
}

/**
 * Starts the built CLI in a child process and hands it back while it runs,
 * so a test can kill it at a point of its choosing or watch its memory.
 */
export function startCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): RunningCli {
  const child = spawn(process.execPath, [RUN_JS, ...args], {
    cwd: options.cwd,
    env: { ...process.env, LISTMINER_DB: '', LISTMINER_CONFIG: '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  let peakRssBytes = 0;
  const sample = () => {
    try {
      const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (match) peakRssBytes = Math.max(peakRssBytes, Number(match[1]) * 1024);
    } catch {
      // gone already, or no /proc
    }
  };
  const poll = setInterval(sample, 50);
  const exited = new Promise<CliExit>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', () => sample());
    child.on('close', (code, signal) => {
      clearInterval(poll);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout).toString(),
        stderr: Buffer.concat(stderr).toString(),
        peakRssBytes,
      });
    });
  });
  return { child, pid: child.pid!, exited };
}

/** Runs the CLI to its end, with its peak memory. */
export function runCliMeasured(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliExit> {
  return startCli(args, options).exited;
}
