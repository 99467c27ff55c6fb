import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipermailSource, indexUrl, parseIndex } from '../../../../../src/core/archive/sources/pipermail.js';
import { HttpClient } from '../../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../../src/core/net/pacer.js';
import {
  fakeClock,
  send,
  sendCutOff,
  startArchiveServer,
  type ArchiveServer,
} from '../../../../helpers/archive-server.js';
import { collectMessages, sourceContext } from '../../../../helpers/archive-context.js';
import { fixturePath } from '../../../../helpers/mail-files.js';

/** A pipermail archive folder as Mailman 2.1 serves it: its index page and three monthly text files. */
const data = (name: string) => readFileSync(fixturePath('pipermail', name));

describe('pipermail source', () => {
  let server: ArchiveServer;
  const source = () =>
    createPipermailSource({ client: new HttpClient({ pacer: new Pacer({ clock: fakeClock() }), retries: 1 }) });
  const context = (name = 'example@lists.example.org') => sourceContext('pipermail', name, { baseUrl: server.url });

  beforeAll(async () => {
    server = await startArchiveServer((url, response) => {
      switch (url.pathname) {
        case '/pipermail/example/':
          return send(response, 200, data('index.html'), { 'content-type': 'text/html; charset=utf-8' });
        case '/pipermail/example/2016-April.txt':
          return send(response, 200, data('2016-April.txt'));
        case '/pipermail/example/2016-March.txt':
          return send(response, 200, data('2016-March.txt'));
        case '/pipermail/example/2015-November.txt.gz':
          return send(response, 200, gzipSync(data('2015-November.txt')), { 'content-type': 'application/x-gzip' });
        case '/pipermail/broken/':
          return send(
            response,
            200,
            '<a href="2020-May.txt.gz">[ Gzip\'d Text ]</a> <a href="2020-June.txt">[ Text ]</a>',
          );
        case '/pipermail/broken/2020-May.txt.gz': {
          const gz = gzipSync(data('2015-November.txt'));
          return send(response, 200, gz.subarray(0, gz.length - 40));
        }
        case '/pipermail/broken/2020-June.txt':
          return sendCutOff(response, data('2016-April.txt'), 500);
        default:
          return send(response, 404, 'Not Found');
      }
    });
  });
  afterAll(() => server.close());

  it('finds the archive folder under /pipermail/<list name>/ unless the base URL already points there', () => {
    expect(indexUrl(context())).toBe(`${server.url}/pipermail/example/`);
    expect(
      indexUrl(sourceContext('pipermail', 'x@y.org', { baseUrl: 'https://mail.example.org/pipermail/x-devel' })),
    ).toBe('https://mail.example.org/pipermail/x-devel/');
  });

  it('reads the months an index page links, .txt and .txt.gz', () => {
    const months = parseIndex(data('index.html').toString(), 'https://lists.example.org/pipermail/example/');
    expect([...months.entries()].sort()).toEqual([
      ['2015-11', 'https://lists.example.org/pipermail/example/2015-November.txt.gz'],
      ['2016-03', 'https://lists.example.org/pipermail/example/2016-March.txt'],
      ['2016-04', 'https://lists.example.org/pipermail/example/2016-April.txt'],
    ]);
    expect(parseIndex(data('index-empty.html').toString(), 'https://x.org/')).toEqual(new Map());
  });

  it('takes the oldest linked month as the first month, reading the index once', async () => {
    const fetched = source();
    const before = server.requests.length;
    expect(await fetched.firstMonth(context())).toBe('2015-11');
    await collectMessages(fetched.fetchMonth(context(), '2016-03'));
    expect(server.requests.slice(before)).toEqual(['/pipermail/example/', '/pipermail/example/2016-March.txt']);
  });

  it('splits each month with the mbox reader, gzip or not', async () => {
    const fetched = source();
    expect(await collectMessages(fetched.fetchMonth(context(), '2015-11'))).toHaveLength(4);
    expect(await collectMessages(fetched.fetchMonth(context(), '2016-03'))).toHaveLength(1);
    const april = await collectMessages(fetched.fetchMonth(context(), '2016-04'));
    expect(april).toHaveLength(3);
    expect(april[0]!.sourceRef).toMatch(/\/pipermail\/example\/2016-April\.txt#0$/);
  });

  it('has nothing for a month the index does not link', async () => {
    expect(await collectMessages(source().fetchMonth(context(), '2016-01'))).toEqual([]);
  });

  it('refuses a list with no index page as a permanent failure', async () => {
    await expect(source().firstMonth(context('nolist@lists.example.org'))).rejects.toMatchObject({ kind: 'permanent' });
  });

  it('fails a month whose gzip is truncated or whose body is cut off as transient', async () => {
    const fetched = source();
    await expect(collectMessages(fetched.fetchMonth(context('broken@x.org'), '2020-05'))).rejects.toMatchObject({
      kind: 'transient',
    });
    await expect(collectMessages(fetched.fetchMonth(context('broken@x.org'), '2020-06'))).rejects.toMatchObject({
      kind: 'transient',
    });
  });
});
