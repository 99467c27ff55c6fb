import type { IncomingMessage, ServerResponse } from 'node:http';
import { send, sendCutOff, sendShort, startArchiveServer, type ArchiveServer } from './archive-server.js';
import type { SeededRandom } from './seeded-random.js';

export type Fault = '404' | 'short-429' | 'long-429' | '5xx' | 'reset' | 'cut' | 'short-body' | 'slow' | 'html';
export const FAULTS: readonly Fault[] = [
  '404',
  'short-429',
  'long-429',
  '5xx',
  'reset',
  'cut',
  'short-body',
  'slow',
  'html',
];

export interface FaultyPonyMail {
  server: ArchiveServer;
  /** Turn faults on or off between runs; off, every answer is the right one. */
  faulty: boolean;
  /** How often each fault was served. */
  injected: Record<Fault, number>;
}

export interface FaultyPonyMailOptions {
  /** list address → month → its mbox (a month not there holds no mail, and is answered with 404 as Pony Mail's test server does). */
  archive: ReadonlyMap<string, ReadonlyMap<string, Buffer>>;
  /** The oldest month, reported by stats.lua for every list. */
  firstMonth: string;
  random: SeededRandom;
  /** Share of requests answered with a fault while faults are on. */
  faultRate: number;
}

/**
 * A Pony Mail Foal API (stats.lua, mbox.lua) that, while `faulty`, answers a
 * seeded share of requests badly: 404 for the list itself, 429 with a short
 * or a long Retry-After, 5xx, a reset connection, a body cut off or shorter
 * than its Content-Length, an HTML page in place of the mbox, or a body sent
 * slowly in pieces (which is no fault, and must be read to its end).
 */
export async function startFaultyPonyMail(options: FaultyPonyMailOptions): Promise<FaultyPonyMail> {
  const injected = Object.fromEntries(FAULTS.map((fault) => [fault, 0])) as Record<Fault, number>;
  const state: FaultyPonyMail = { server: undefined as unknown as ArchiveServer, faulty: false, injected };
  const [year, month] = options.firstMonth.split('-').map(Number);

  const answer = (url: URL, response: ServerResponse, request: IncomingMessage) => {
    const params = url.searchParams;
    const address = `${params.get('list')}@${params.get('domain')}`;
    const months = options.archive.get(address);
    let body: Buffer | undefined;
    if (url.pathname === '/api/stats.lua') {
      if (!months) return send(response, 404, 'not found');
      body = Buffer.from(
        JSON.stringify({ firstYear: year, firstMonth: month, lastYear: 2099, lastMonth: 1, hits: 0, emails: [] }),
      );
    } else if (url.pathname === '/api/mbox.lua') {
      body = months?.get(params.get('date') ?? '');
      if (!body) return send(response, 404, 'no mail');
    } else {
      return send(response, 404, 'not found');
    }
    if (!state.faulty || !options.random.chance(options.faultRate))
      return send(response, 200, body, { 'content-type': 'application/mbox' });
    const fault = options.random.pick(FAULTS);
    injected[fault]++;
    switch (fault) {
      case '404':
        // Only the list itself vanishes: a 404 for a month means that month holds no mail.
        if (url.pathname === '/api/stats.lua') return send(response, 404, 'not found');
        return send(response, 503, 'service unavailable');
      case 'short-429':
        return send(response, 429, 'slow down', { 'retry-after': '1' });
      case 'long-429':
        return send(response, 429, 'slow down', { 'retry-after': '3600' });
      case '5xx':
        return send(response, options.random.pick([500, 502, 503, 504]), 'server error');
      case 'reset':
        return void request.socket.destroy();
      case 'cut':
        return sendCutOff(response, body, options.random.int(0, body.length - 1));
      case 'short-body':
        return sendShort(response, body.subarray(0, options.random.int(0, body.length - 1)), body.length);
      case 'html':
        return send(response, 200, '<!DOCTYPE html>\n<html><body>Back soon</body></html>\n', {
          'content-type': 'text/html; charset=utf-8',
        });
      case 'slow':
        return sendSlowly(response, body, options.random.int(3, 8), options.random.int(50, 250));
    }
  };

  state.server = await startArchiveServer(answer);
  return state;
}

/** The whole body, in `pieces` writes `gapMs` apart. */
async function sendSlowly(response: ServerResponse, body: Buffer, pieces: number, gapMs: number): Promise<void> {
  response.writeHead(200, { 'content-length': String(body.length), 'content-type': 'application/mbox' });
  const size = Math.ceil(body.length / pieces);
  for (let start = 0; start < body.length; start += size) {
    if (response.destroyed) return;
    response.write(body.subarray(start, start + size));
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  response.end();
}
