import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { startCli } from '../helpers/start-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-silent-link-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeMbox(count: number): string {
  const path = join(dir, `mail-${count}.mbox`);
  const mail = Array.from({ length: count }, (_, n) =>
    [
      `From jane@example.org Mon Jan  1 00:00:00 2024`,
      `From: Jane <jane${n}@example.org>`,
      `Subject: note ${n}`,
      `Message-ID: <silent-${n}@example.org>`,
      'Date: Mon, 1 Jan 2024 00:00:00 +0000',
      '',
      `Note ${n}.`,
      '',
    ].join('\n'),
  );
  writeFileSync(path, mail.join('\n'));
  return path;
}

/**
 * A TCP proxy to the PostgreSQL server that forwards both ways until the
 * client sends a packet naming `marker`; from then on it forwards nothing in
 * either direction and closes nothing: a link gone silent.
 */
async function silentLinkProxy(
  target: URL,
  marker: string,
): Promise<{ port: number; stalled: Promise<void>; server: Server }> {
  let stall!: () => void;
  const stalled = new Promise<void>((resolve) => (stall = resolve));
  let silent = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
    }
    client.on('data', (chunk) => {
      if (!silent && chunk.includes(marker)) {
        silent = true;
        stall();
      }
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(cb);
  };
  return { port: (server.address() as { port: number }).port, stalled, server };
}

describeOnDialectDatabases(
  'a PostgreSQL link that goes silent during $dialect drain',
  (databases) => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await databases.create();
      const mbox = writeMbox(20);
      for (const args of [
        ['lists', 'add', '--system', 'mbox', '--repo', 'https://github.com/example/silent', mbox],
        ['fetch', '--full'],
        ['classify'],
      ]) {
        const step = await runCli([...args, '--db', db.url]);
        expect(step.code, step.stderr).toBe(0);
      }
    });
    const through = (port: number) => {
      const url = new URL(db.url);
      url.port = String(port);
      return url.toString();
    };
    const drained = async () => {
      const store = await openStore(db.url);
      try {
        return Number((await store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM email_messages'))!.n);
      } finally {
        await store.close();
      }
    };

    it('fails the stage with one sentence naming the server and exit 1 once a statement goes unanswered past LISTMINER_PG_QUERY_TIMEOUT', async () => {
      const proxy = await silentLinkProxy(new URL(db.url), 'email_messages');
      try {
        // Before the guard, drain waited for about 11 minutes (TCP keepalive): the CLI's timeout fails the test.
        const result = await runCli(['drain', '--db', through(proxy.port)], {
          env: { LISTMINER_PG_QUERY_TIMEOUT: '3' },
          timeoutMs: 60_000,
        });
        expect(result.stderr, result.stderr).toMatch(
          new RegExp(
            `PostgreSQL server at 127\\.0\\.0\\.1:${proxy.port} stopped answering: a statement got no reply within 3 s`,
          ),
        );
        expect(result.stderr).not.toMatch(/unexpected error|report it/);
        expect(result.stderr).toMatch(/^Hint: .*LISTMINER_PG_QUERY_TIMEOUT/m);
        expect(result.code, result.stderr).toBe(1);
      } finally {
        proxy.server.close();
      }
      // Nothing of the stalled batch was kept half-written, and a run over a good link drains it all.
      const again = await runCli(['drain', '--db', db.url]);
      expect(again.code, again.stderr).toBe(0);
      expect(await drained()).toBe(20);
    });

    it('stops on SIGTERM during the stall with exit 130 and a sentence, long before the deadline', async () => {
      const proxy = await silentLinkProxy(new URL(db.url), 'email_messages');
      try {
        // A deadline of 10 minutes: exit 130 can only come from the signal.
        const running = startCli(['drain', '--db', through(proxy.port)], {
          env: { LISTMINER_PG_QUERY_TIMEOUT: '600' },
        });
        await proxy.stalled;
        running.child.kill('SIGTERM');
        const killer = setTimeout(() => running.child.kill('SIGKILL'), 60_000);
        const stopped = await running.exited;
        clearTimeout(killer);
        expect(stopped.signal, stopped.stderr).toBeNull();
        expect(stopped.stderr).toMatch(/Stopped by a signal while the PostgreSQL server at .* was not answering/);
        expect(stopped.stderr).not.toMatch(/unexpected error|report it/);
        expect(stopped.code, stopped.stderr).toBe(130);
      } finally {
        proxy.server.close();
      }
      const again = await runCli(['drain', '--db', db.url]);
      expect(again.code, again.stderr).toBe(0);
      expect(await drained()).toBe(20);
    });
  },
  { only: ['postgres'], onlyWhy: 'a network link is PostgreSQL only' },
);
