import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../../src/core/errors.js';
import { HttpClient, parseRetryAfter, userAgent } from '../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../src/core/net/pacer.js';
import {
  fakeClock,
  send,
  sendCutOff,
  sendShort,
  startArchiveServer,
  type ArchiveServer,
} from '../../../helpers/archive-server.js';

const BODY = 'x'.repeat(100_000);

async function readAll(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

async function failure(promise: Promise<unknown>): Promise<ArchiveError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ArchiveError) return error;
    throw error;
  }
  throw new Error('expected an ArchiveError');
}

describe('HttpClient against a local server', () => {
  let server: ArchiveServer;
  let clock: ReturnType<typeof fakeClock>;
  let client: HttpClient;
  const answers = new Map<string, Array<(response: Parameters<typeof send>[0]) => void>>();

  beforeAll(async () => {
    server = await startArchiveServer((url, response) => {
      const queue = answers.get(url.pathname);
      const next = queue && (queue.length > 1 ? queue.shift()! : queue[0]!);
      if (next) next(response);
      else send(response, 404, 'no');
    });
  });
  afterAll(() => server.close());

  const fresh = (options: ConstructorParameters<typeof HttpClient>[0] = {}) => {
    clock = fakeClock();
    client = new HttpClient({ pacer: new Pacer({ clock }), ...options });
  };
  const answer = (path: string, ...handlers: Array<(response: Parameters<typeof send>[0]) => void>) =>
    answers.set(path, handlers);

  it('names itself listminer/<version> with the contact address when one is configured', async () => {
    fresh({ contactEmail: 'research@example.org' });
    answer('/ua', (r) => send(r, 200, 'ok'));
    await client.text(`${server.url}/ua`);
    expect(server.userAgents.at(-1)).toMatch(/^listminer\/\d+\.\d+\.\d+ \(\+mailto:research@example\.org\)$/);
    expect(userAgent()).toMatch(/^listminer\/\d+\.\d+\.\d+$/);
  });

  it('follows a redirect, as pipermail gives for an index without its trailing slash', async () => {
    fresh();
    answer('/pipermail/dev', (r) => send(r, 301, 'moved', { location: `${server.url}/pipermail/dev/` }));
    answer('/pipermail/dev/', (r) => send(r, 200, 'index'));
    expect(await client.text(`${server.url}/pipermail/dev`)).toBe('index');
  });

  it('treats 404 as nothing there, not as an error', async () => {
    fresh();
    expect(await client.stream(`${server.url}/missing`)).toBeUndefined();
    expect(await client.text(`${server.url}/missing`)).toBeUndefined();
  });

  it('streams a 200 body whole', async () => {
    fresh();
    answer('/big', (r) => send(r, 200, BODY));
    const response = await client.stream(`${server.url}/big`);
    expect(await readAll(response!.body)).toBe(BODY);
  });

  it('retries a 429 after its Retry-After and then succeeds', async () => {
    fresh();
    answer(
      '/busy',
      (r) => send(r, 429, 'slow down', { 'retry-after': '7' }),
      (r) => send(r, 200, 'done'),
    );
    expect(await client.text(`${server.url}/busy`)).toBe('done');
    expect(clock.sleeps).toContain(7000);
  });

  it('gives up on a 429 that persists with a rate_limited error carrying Retry-After', async () => {
    fresh({ retries: 1 });
    answer('/always-busy', (r) => send(r, 429, 'no', { 'retry-after': '5' }));
    const error = await failure(client.text(`${server.url}/always-busy`));
    expect(error.kind).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(5000);
    expect(client.pacer.intervalFor(new URL(server.url).host)).toBeGreaterThan(0);
  });

  it('does not wait out a Retry-After beyond the pacer ceiling: it reports it at once', async () => {
    fresh();
    const before = server.requests.length;
    answer('/closed-for-an-hour', (r) => send(r, 429, 'no', { 'retry-after': '3600' }));
    const error = await failure(client.stream(`${server.url}/closed-for-an-hour`));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 3_600_000 });
    expect(server.requests.length - before).toBe(1);
  });

  it('reads Retry-After given as an HTTP date', () => {
    const now = Date.parse('2024-06-01T00:00:00Z');
    expect(parseRetryAfter('Sat, 01 Jun 2024 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('retries a 502 and reports a persisting one as transient', async () => {
    fresh();
    answer(
      '/flaky',
      (r) => send(r, 502, 'bad gateway'),
      (r) => send(r, 200, 'recovered'),
    );
    expect(await client.text(`${server.url}/flaky`)).toBe('recovered');
    fresh({ retries: 2 });
    const before = server.requests.length;
    answer('/down', (r) => send(r, 503, 'down'));
    expect((await failure(client.text(`${server.url}/down`))).kind).toBe('transient');
    expect(server.requests.length - before).toBe(3);
  });

  it('asks once for a host name the resolver says does not exist, and says to check it', async () => {
    // A resolver's "no such name" is cached (negative caching): asking again seconds later gets the same answer.
    fresh({ retries: 2 });
    const error = await failure(client.text('http://no-such-host.invalid/archive'));
    expect(error.kind).toBe('transient');
    expect(error.message).toMatch(/no-such-host\.invalid could not be resolved \((ENOTFOUND|EAI_AGAIN|EAI_NONAME)\)/);
    expect(error.hint).toContain('Check the host name no-such-host.invalid');
    if (!/EAI_AGAIN/.test(error.message)) {
      expect(error.message).not.toContain('attempt');
      expect(clock.sleeps).toEqual([]);
    }
  });

  it('reports other client errors as permanent without retrying', async () => {
    fresh();
    answer('/forbidden', (r) => send(r, 403, 'no'));
    expect((await failure(client.text(`${server.url}/forbidden`))).kind).toBe('permanent');
  });

  it('reports a body cut off mid-way as transient', async () => {
    fresh();
    answer('/cut', (r) => sendCutOff(r, BODY, 10_000));
    const response = await client.stream(`${server.url}/cut`);
    expect((await failure(readAll(response!.body))).kind).toBe('transient');
  });

  it('reports a body shorter than its Content-Length as transient', async () => {
    fresh();
    answer('/short', (r) => sendShort(r, 'only this', 5000));
    const response = await client.stream(`${server.url}/short`);
    expect((await failure(readAll(response!.body))).kind).toBe('transient');
  });

  it('reports a server that never answers as transient once the header timeout passes', async () => {
    fresh({ headersTimeoutMs: 200, retries: 0 });
    answer('/stall', () => undefined);
    expect((await failure(client.text(`${server.url}/stall`))).kind).toBe('transient');
  });

  it('reports a body that stalls as transient once the body timeout passes', async () => {
    fresh({ bodyTimeoutMs: 200 });
    answer('/slow-body', (r) => {
      r.writeHead(200, { 'content-length': '100' });
      r.write('start');
    });
    const response = await client.stream(`${server.url}/slow-body`);
    expect((await failure(readAll(response!.body))).kind).toBe('transient');
  });
});
