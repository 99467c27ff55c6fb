import { createServer, type AddressInfo, type Socket } from 'node:net';

/** What a raw server does with one request: it writes to the socket itself, headers and all, and closes it. */
export type RawReply = (path: string, socket: Socket) => void;

export interface RawHttpServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  /** The path of every request, in order. */
  requests: string[];
  reply: RawReply;
  close(): Promise<void>;
}

/**
 * An HTTP server written on node:net, so a test can send what node:http
 * never would: a body ended by closing the connection, a Content-Length
 * longer than the body, a chunk cut in the middle, a close before any header.
 * One request per connection; every reply closes it.
 */
export async function startRawHttpServer(reply: RawReply): Promise<RawHttpServer> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    const onData = (data: Buffer) => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      const path = head.split(' ')[1] ?? '/';
      raw.requests.push(path);
      raw.reply(path, socket);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const raw: RawHttpServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: [],
    reply,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return raw;
}

/** The status line and headers of a 200. */
export function head200(headers: Record<string, string | number>, version = '1.1'): string {
  return `HTTP/${version} 200 OK\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

/** `body` as chunks of `size` bytes in chunked transfer coding, without the last (zero) chunk. */
export function chunksOf(body: Buffer, size: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}
