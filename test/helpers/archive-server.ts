import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/core/net/pacer.js';

export type Handler = (url: URL, response: ServerResponse, request: IncomingMessage) => void | Promise<void>;

export interface ArchiveServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  /** Path and query of every request, in order. */
  requests: string[];
  /** User-Agent of every request, in order. */
  userAgents: string[];
  handle: Handler;
  close(): Promise<void>;
}

/** An archive served from the test process on 127.0.0.1, answering through a swappable handler. */
export async function startArchiveServer(
  handle: Handler = (_url, response) => send(response, 404, 'not found'),
): Promise<ArchiveServer> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    archive.requests.push(`${url.pathname}${url.search}`);
    archive.userAgents.push(request.headers['user-agent'] ?? '');
    Promise.resolve(archive.handle(url, response, request)).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, String(error));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const archive: ArchiveServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    userAgents: [],
    handle,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return archive;
}

export function send(
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  response.writeHead(status, { 'content-length': String(bytes.length), ...headers });
  response.end(bytes);
}

/** Declares the whole length, sends the first `keep` bytes, then drops the connection. */
export function sendCutOff(response: ServerResponse, body: string | Buffer, keep: number): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  response.writeHead(200, { 'content-length': String(bytes.length) });
  response.write(bytes.subarray(0, keep), () => response.socket?.destroy());
}

/** Says Content-Length is longer than the body it sends, and closes. */
export function sendShort(response: ServerResponse, body: string | Buffer, declared: number): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  response.writeHead(200, { 'content-length': String(declared), connection: 'close' });
  response.write(bytes, () => response.socket?.end());
}

/** A clock whose sleeps return at once and only move its time on; it records every sleep. */
export function fakeClock(start = Date.parse('2024-06-01T00:00:00Z')): Clock & { sleeps: number[] } {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      if (ms > 0) sleeps.push(ms);
      now += Math.max(0, ms);
    },
  };
}
