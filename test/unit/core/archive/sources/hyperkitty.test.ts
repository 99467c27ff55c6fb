import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveMonths, createHyperKittySource } from '../../../../../src/core/archive/sources/hyperkitty.js';
import { HttpClient } from '../../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../../src/core/net/pacer.js';
import { fakeClock, send, startArchiveServer, type ArchiveServer } from '../../../../helpers/archive-server.js';
import { collectMessages, sourceContext } from '../../../../helpers/archive-context.js';
import { fixturePath } from '../../../../helpers/mail-files.js';

/** A month as HyperKitty's export view writes it (Email.as_message under a `From <sender> <ctime>` line). */
const data = (name: string) => readFileSync(fixturePath('hyperkitty-export', name));
const LIST = 'test@mail.example.org';

/** The archive sidebar of a HyperKitty list overview page, as it links months. */
const OVERVIEW = `<html><body><div id="months-list">
  <h3>2016</h3><ul>
    <li><a href="/hyperkitty/list/${LIST}/2016/4/">April</a></li>
    <li><a href="/hyperkitty/list/${LIST}/2016/3/">March</a></li>
  </ul></div>
  <a href="/hyperkitty/list/${LIST}/export/${LIST}.mbox.gz">Download</a></body></html>`;

describe('hyperkitty source', () => {
  let server: ArchiveServer;
  let clock: ReturnType<typeof fakeClock>;
  let flaky = 0;
  const source = () => {
    clock = fakeClock();
    return createHyperKittySource({ client: new HttpClient({ pacer: new Pacer({ clock }), retries: 2 }) });
  };
  const context = (name = LIST) => sourceContext('hyperkitty', name, { baseUrl: `${server.url}/hyperkitty` });

  beforeAll(async () => {
    server = await startArchiveServer((url, response) => {
      const range = `${url.searchParams.get('start')}..${url.searchParams.get('end')}`;
      if (url.pathname === `/hyperkitty/list/${LIST}/`)
        return send(response, 200, OVERVIEW, { 'content-type': 'text/html' });
      if (url.pathname === '/hyperkitty/list/new@mail.example.org/')
        return send(response, 200, '<html>no archives yet</html>');
      if (url.pathname === '/hyperkitty/api/list/new@mail.example.org/') {
        return send(
          response,
          200,
          JSON.stringify({ name: 'new@mail.example.org', created_at: '2023-02-14T10:00:00Z' }),
        );
      }
      if (url.pathname === `/hyperkitty/list/${LIST}/export/${LIST}.mbox.gz`) {
        if (range === '2016-04-01..2016-05-01')
          return send(response, 200, gzipSync(data('2016-04.mbox')), { 'content-type': 'application/gzip' });
        if (range === '2016-03-01..2016-04-01') return send(response, 200, gzipSync(data('2016-03.mbox')));
        if (range === '2016-12-01..2017-01-01') {
          flaky++;
          return flaky === 1
            ? send(response, 429, 'slow', { 'retry-after': '3' })
            : flaky === 2
              ? send(response, 502, 'bad')
              : send(response, 200, gzipSync(''));
        }
        if (range === '2017-01-01..2017-02-01') return send(response, 503, 'down');
        return send(response, 200, gzipSync(''));
      }
      return send(response, 404, 'not found');
    });
  });
  afterAll(() => server.close());

  it('exports a month over [first day, first day of the next month)', async () => {
    const before = server.requests.length;
    const messages = await collectMessages(source().fetchMonth(context(), '2016-04'));
    expect(server.requests.slice(before)).toEqual([
      `/hyperkitty/list/${LIST}/export/${LIST}.mbox.gz?start=2016-04-01&end=2016-05-01`,
    ]);
    expect(messages).toHaveLength(3);
    expect(await collectMessages(source().fetchMonth(context(), '2016-03'))).toHaveLength(1);
  });

  it('reads an empty export as an empty month', async () => {
    expect(await collectMessages(source().fetchMonth(context(), '2015-01'))).toEqual([]);
  });

  it('takes the first month from the archive months the overview links', async () => {
    expect(await source().firstMonth(context())).toBe('2016-03');
    expect(archiveMonths(OVERVIEW, LIST)).toEqual(['2016-03', '2016-04']);
  });

  it("falls back to the list's created_at when the overview links no month", async () => {
    expect(await source().firstMonth(context('new@mail.example.org'))).toBe('2023-02');
  });

  it('fails a list HyperKitty does not know, permanently and naming the overview URL', async () => {
    const failure = source().firstMonth(context('gone@mail.example.org'));
    await expect(failure).rejects.toMatchObject({ kind: 'permanent' });
    await expect(failure).rejects.toThrow(
      `There is no HyperKitty list at ${server.url}/hyperkitty/list/gone@mail.example.org/ (`,
    );
  });

  it('rides out a 429 and a 502 within the request, and fails a lasting 503 as transient', async () => {
    expect(await collectMessages(source().fetchMonth(context(), '2016-12'))).toEqual([]);
    expect(clock.sleeps).toContain(3000);
    await expect(collectMessages(source().fetchMonth(context(), '2017-01'))).rejects.toMatchObject({
      kind: 'transient',
    });
  });
});
