import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-store-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Exit code, and stderr that is a sentence of listminer's, not a crash report. */
function expectExplained(result: { code: number; stderr: string }, code: number, pattern: RegExp): void {
  expect(result.stderr, result.stderr).toMatch(pattern);
  expect(result.stderr).not.toMatch(/unexpected error|report it/);
  expect(result.stderr).toMatch(/^Hint: /m);
  expect(result.code, result.stderr).toBe(code);
}

describe('a --db that is not a usable SQLite database', () => {
  it('a folder exits 2 (the --db given is wrong) with a sentence naming the folder', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    expectExplained(await runCli(['lists', 'ls', '--db', folder]), 2, new RegExp(`${folder} is a folder`));
  });

  it('a file that is not SQLite exits 1 with a sentence naming the file', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'these are notes, not a database\n'.repeat(200));
    expectExplained(await runCli(['lists', 'ls', '--db', file]), 1, new RegExp(`${file} is not a SQLite database`));
  });

  it('a path in a folder that does not exist is a usage error (exit 2)', async () => {
    const missing = join(dir, 'no-such-folder', 'x.db');
    expectExplained(await runCli(['lists', 'ls', '--db', missing]), 2, /folder .*no-such-folder does not exist/);
  });

  it('a read-only database exits 1 with a sentence naming the file', async (context) => {
    const folder = join(dir, 'read-only');
    mkdirSync(folder);
    const file = join(folder, 'ro.db');
    expect((await runCli(['lists', 'ls', '--db', file])).code).toBe(0);
    let unmount: () => void;
    if (process.getuid?.() === 0) {
      // root writes through file modes; a read-only mount is what stops it.
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', folder]);
      } catch (error) {
        console.warn(`skipping: cannot mount a tmpfs as root here (${(error as Error).message.split('\n')[0]})`);
        context.skip();
      }
      unmount = () => execFileSync('umount', [folder]);
      expect((await runCli(['lists', 'ls', '--db', file])).code).toBe(0);
      execFileSync('mount', ['-o', 'remount,ro', folder]);
    } else {
      chmodSync(file, 0o444);
      chmodSync(folder, 0o555);
      unmount = () => chmodSync(folder, 0o755);
    }
    try {
      const result = await runCli(['lists', 'add', '--system', 'mbox', join(dir, 'x.mbox'), '--db', file]);
      expectExplained(result, 1, new RegExp(`${file} .*read-only`));
    } finally {
      unmount();
    }
  });
});

describe('a malformed database URL is a usage error (exit 2) and never shows the password', () => {
  it.each([['postgres://u:s3cret@h:5432/%zz'], ['postgres://u:s3cret@[bad'], ['postgres://[bad']])(
    '%s',
    async (url) => {
      const result = await runCli(['lists', 'ls', '--db', url]);
      expectExplained(result, 2, /database URL/);
      expect(result.stderr + result.stdout).not.toContain('s3cret');
    },
  );
});

/** A TCP listener on a free port that treats each connection as `handle` says. */
async function listen(
  handle: (socket: Socket) => void,
): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(cb);
  };
  return { server, port: (server.address() as { port: number }).port, connections: () => count };
}

describe('a postgres:// address where no PostgreSQL answers', () => {
  const env = { LISTMINER_PG_CONNECT_TIMEOUT: '2' };

  it('a listener that accepts and closes at once gives one sentence and exit 1, without reconnecting forever', async () => {
    const { server, port } = await listen((socket) => socket.end());
    try {
      const result = await runCli(['lists', 'ls', '--db', `postgres://u:s3cret@127.0.0.1:${port}/lm`], {
        env,
        timeoutMs: 60_000,
      });
      expectExplained(result, 1, new RegExp(`127\\.0\\.0\\.1:${port}.* closed the connection`));
      expect(result.stderr).not.toContain('s3cret');
      expect(result.stderr.trim().split('\n')).toHaveLength(2);
    } finally {
      server.close();
    }
  });

  it('a listener that never answers gives one sentence and exit 1 after the connect timeout', async () => {
    const { server, port } = await listen(() => {});
    try {
      const result = await runCli(['lists', 'ls', '--db', `postgres://u:s3cret@127.0.0.1:${port}/lm`], {
        env,
        timeoutMs: 60_000,
      });
      expectExplained(result, 1, new RegExp(`127\\.0\\.0\\.1:${port}.* did not answer within 2 s`));
      expect(result.stderr).not.toContain('s3cret');
    } finally {
      server.close();
    }
  });
});
