import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const RUN_JS = fileURLToPath(new URL('../../bin/run.js', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would, in a child process. */
export function runCli(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [RUN_JS, ...args],
      {
        cwd: options.cwd,
        env: { ...process.env, LISTMINER_DB: '', LISTMINER_CONFIG: '', ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs the CLI with --json and parses stdout. */
export async function runCliJson<T = unknown>(
  args: readonly string[],
  options?: Parameters<typeof runCli>[1],
): Promise<CliResult & { json: T }> {
  const result = await runCli([...args, '--json'], options);
  let json: T;
  try {
    json = JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
  return { ...result, json };
}
