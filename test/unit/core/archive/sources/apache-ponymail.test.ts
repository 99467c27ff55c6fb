import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../../../src/core/errors.js';
import { readMbox } from '../../../../../src/core/archive/mbox-reader.js';
import { openArchiveSource } from '../../../../../src/core/archive/open-source.js';
import { createPonyMailSource } from '../../../../../src/core/archive/sources/apache-ponymail.js';
import { HttpClient } from '../../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../../src/core/net/pacer.js';
import { fakeClock, type ArchiveServer } from '../../../../helpers/archive-server.js';
import { collectMessages, sourceContext } from '../../../../helpers/archive-context.js';
import { PONY_MONTH_FILE, startPonyMailServer } from '../../../../helpers/ponymail-server.js';

describe('apache_ponymail source', () => {
  let server: ArchiveServer;
  let clock: ReturnType<typeof fakeClock>;
  const source = () => {
    clock = fakeClock();
    return createPonyMailSource({ client: new HttpClient({ pacer: new Pacer({ clock }), retries: 2 }) });
  };
  const context = (name = 'users@ponymail.apache.org') =>
    sourceContext('apache_ponymail', name, { baseUrl: server.url });

  beforeAll(async () => {
    server = await startPonyMailServer();
  });
  afterAll(() => server.close());

  it('is what the source registry loads for apache_ponymail', async () => {
    expect((await openArchiveSource('apache_ponymail')).name).toBe('apache_ponymail');
  });

  it('reads the first month from stats.lua over the one-day window only', async () => {
    const before = server.requests.length;
    expect(await source().firstMonth(context())).toBe('2016-05');
    const asked = server.requests.slice(before);
    expect(asked).toEqual(['/api/stats.lua?list=users&domain=ponymail.apache.org&d=lte=1d']);
  });

  it('has no first month for a list the archive holds nothing of', async () => {
    expect(await source().firstMonth(context('empty@ponymail.apache.org'))).toBeUndefined();
  });

  it('fails a list whose stats.lua answers 404 (a wrong base URL or address), rather than taking it for an empty list', async () => {
    await expect(source().firstMonth(context('dev@nowhere.example.org'))).rejects.toMatchObject({
      kind: 'permanent',
      message: expect.stringContaining('answered 404: the archive does not know dev@nowhere.example.org'),
    });
  });

  it('streams a month from mbox.lua with every message of the download', async () => {
    let expected = 0;
    for await (const _ of readMbox(PONY_MONTH_FILE)) expected++;
    const before = server.requests.length;
    const messages = await collectMessages(source().fetchMonth(context(), '2022-01'));
    expect(server.requests.slice(before)).toEqual(['/api/mbox.lua?list=users&domain=ponymail.apache.org&date=2022-01']);
    expect(messages).toHaveLength(expected);
    expect(expected).toBe(6);
    expect(messages[0]!.raw.toString('latin1')).toMatch(/^[A-Za-z-]+: /);
    expect(messages[0]!.sourceRef).toContain('/api/mbox.lua?list=users');
  });

  it('treats a 404 month as empty', async () => {
    expect(await collectMessages(source().fetchMonth(context(), '2019-01'))).toEqual([]);
  });

  it('fails a month whose body is cut off as transient', async () => {
    await expect(collectMessages(source().fetchMonth(context(), '2022-02'))).rejects.toMatchObject({
      kind: 'transient',
    });
  });

  it('fails a month that keeps answering 502 as transient', async () => {
    await expect(collectMessages(source().fetchMonth(context(), '2022-03'))).rejects.toMatchObject({
      kind: 'transient',
    });
  });

  it('waits out a short Retry-After and reads the month', async () => {
    const fetched = source();
    const messages = await collectMessages(fetched.fetchMonth(context(), '2022-04'));
    expect(messages).toHaveLength(6);
    expect(clock.sleeps).toContain(2000);
  });

  it('reports a long Retry-After as rate_limited without waiting an hour', async () => {
    const error = await collectMessages(source().fetchMonth(context(), '2022-05')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 7_200_000 });
    expect(clock.sleeps.every((ms) => ms < 60_000)).toBe(true);
  });

  it('stops a month mid-body when the fetch is aborted, as an abort and not an archive failure', async () => {
    const controller = new AbortController();
    const fetched = source();
    const read = (async () => {
      const got = [];
      for await (const item of fetched.fetchMonth({ ...context(), signal: controller.signal }, '2022-06')) {
        got.push(item);
        controller.abort();
      }
      return got;
    })();
    const error = await read.catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ArchiveError);
    expect((error as Error).name).toBe('AbortError');
  });

  it('lists the catalogue from preferences.lua, for one domain or all', async () => {
    const { list: _list, ...rest } = context();
    const all = await source().enumerateLists!(rest);
    expect(all.map((l) => l.name)).toEqual([
      'announce@apache.org',
      'commits@kafka.apache.org',
      'dev@kafka.apache.org',
      'dev@ponymail.apache.org',
      'jira@kafka.apache.org',
      'users@kafka.apache.org',
      'users@ponymail.apache.org',
    ]);
    const kafka = await source().enumerateLists!({ ...rest, domain: 'kafka.apache.org' });
    expect(kafka.map((l) => l.name)).toEqual([
      'commits@kafka.apache.org',
      'dev@kafka.apache.org',
      'jira@kafka.apache.org',
      'users@kafka.apache.org',
    ]);
    expect(kafka[1]).toMatchObject({ listAddress: 'dev@kafka.apache.org', listId: 'dev.kafka.apache.org' });
  });
});
