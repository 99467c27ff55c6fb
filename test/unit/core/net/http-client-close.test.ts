import { once } from 'node:events';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../../src/core/errors.js';
import { HttpClient } from '../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../src/core/net/pacer.js';
import { fakeClock } from '../../../helpers/archive-server.js';
import { chunksOf, head200, startRawHttpServer, type RawHttpServer } from '../../../helpers/raw-http-server.js';

/** As much as undici's response body holds before it pauses its parser: the size at which a close lands on a paused parser. */
const BODY = Buffer.alloc(64 * 1024, 0x61);

async function readAll(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('HttpClient against servers that end replies by closing the connection', () => {
  let server: RawHttpServer;
  let client: HttpClient;
  const replies = new Map<string, (socket: Socket) => void>();
  /** Resolves when the server has handed its last reply's bytes and FIN to the kernel. */
  let sent: Promise<unknown> = Promise.resolve();

  beforeAll(async () => {
    server = await startRawHttpServer((path, socket) => {
      sent = once(socket, 'finish');
      (replies.get(path) ?? ((s: Socket) => s.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n')))(socket);
    });
    client = new HttpClient({ pacer: new Pacer({ minIntervalMs: 0, clock: fakeClock() }), retries: 0 });
  });
  afterAll(() => server.close());

  /** Opens the body, lets the whole reply and the close arrive before reading a byte (a consumer busy writing the batch before), then reads it. */
  const readLate = async (path: string): Promise<Buffer> => {
    const response = await client.stream(`${server.url}${path}`);
    await sent;
    await new Promise((resolve) => setTimeout(resolve, 200));
    return readAll(response!.body);
  };

  it.each([
    [
      'Content-Length and a close (HTTP/1.0)',
      (s: Socket) =>
        s.end(
          Buffer.concat([Buffer.from(head200({ 'content-length': BODY.length, connection: 'close' }, '1.0')), BODY]),
        ),
    ],
    ['no Content-Length, ended by the close', (s: Socket) => s.end(Buffer.concat([Buffer.from(head200({})), BODY]))],
    [
      'chunked, then a close',
      (s: Socket) =>
        s.end(
          Buffer.concat([
            Buffer.from(head200({ 'transfer-encoding': 'chunked', connection: 'close' })),
            chunksOf(BODY, 4096),
            Buffer.from('0\r\n\r\n'),
          ]),
        ),
    ],
  ])('reads a body sent with %s whole, however late it is read', async (name, reply) => {
    const path = `/whole/${encodeURIComponent(name)}`;
    replies.set(path, reply);
    expect((await readLate(path)).equals(BODY)).toBe(true);
  });

  it.each([
    [
      'a Content-Length longer than the body',
      (s: Socket) =>
        s.end(Buffer.concat([Buffer.from(head200({ 'content-length': BODY.length * 2, connection: 'close' })), BODY])),
    ],
    [
      'a close inside a chunk',
      (s: Socket) =>
        s.end(
          Buffer.concat([
            Buffer.from(head200({ 'transfer-encoding': 'chunked' })),
            chunksOf(BODY, 4096),
            Buffer.from('1000\r\nabc'),
          ]),
        ),
    ],
  ])('fails a body cut short by %s as transient, however late it is read', async (name, reply) => {
    const path = `/cut/${encodeURIComponent(name)}`;
    replies.set(path, reply);
    const error = await readLate(path).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).kind).toBe('transient');
  });

  it('fails a reply closed before any header as transient', async () => {
    replies.set('/nothing', (s) => s.end());
    const error = await client.stream(`${server.url}/nothing`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).kind).toBe('transient');
  });
});
