import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InputError, OperationError } from '../../../../src/core/errors.js';
import {
  GitHubApi,
  GitHubRateLimitStop,
  githubRateLimitWait,
  type ApiPage,
} from '../../../../src/core/github/github-api.js';
import { HttpClient } from '../../../../src/core/net/http-client.js';
import { Pacer } from '../../../../src/core/net/pacer.js';
import { fakeClock } from '../../../helpers/archive-server.js';
import {
  badCredentials,
  badGateway,
  githubIssue,
  githubPull,
  primaryLimit,
  secondaryLimit,
  sendJson,
  startGitHubApiServer,
  type GitHubApiServer,
} from '../../../helpers/github-api-server.js';

const TOKEN = 'ghp_test_token_never_printed';
const ISSUES = Array.from({ length: 6 }, (_, i) => githubIssue(i + 1));
const PULLS = Array.from({ length: 3 }, (_, i) => githubPull(i + 10));

async function readAll(pages: AsyncIterable<ApiPage>): Promise<ApiPage[]> {
  const out: ApiPage[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected it to fail');
}

describe('GitHubApi against a local GitHub', () => {
  let server: GitHubApiServer;
  let clock: ReturnType<typeof fakeClock>;
  const api = (options: { token?: string; maxRateLimitWaitMs?: number } = {}) =>
    new GitHubApi({
      apiUrl: server.url,
      owner: 'acme',
      name: 'widget',
      client: new HttpClient({ pacer: new Pacer({ clock }) }),
      ...options,
    });

  beforeAll(async () => {
    server = await startGitHubApiServer({ owner: 'acme', name: 'widget', issues: ISSUES, pulls: PULLS, pageSize: 2 });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    // The server dates its rate-limit resets by the real clock; this one starts there and never really sleeps.
    clock = fakeClock(Date.now());
    server.requests.length = 0;
    server.authorizations.length = 0;
  });

  it('reads every page of a listing by its Link headers, asking for all states 100 at a time, with the token as Bearer', async () => {
    const pages = await readAll(api({ token: TOKEN }).pages('issues'));
    expect(pages.map((p) => p.items)).toEqual([ISSUES.slice(0, 2), ISSUES.slice(2, 4), ISSUES.slice(4, 6)]);
    expect(server.requests[0]).toBe('/repos/acme/widget/issues?state=all&per_page=100&sort=created&direction=asc');
    expect(server.requests.slice(1)).toEqual([
      '/repos/acme/widget/issues?state=all&per_page=100&sort=created&direction=asc&page=2',
      '/repos/acme/widget/issues?state=all&per_page=100&sort=created&direction=asc&page=3',
    ]);
    expect(server.authorizations).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
  });

  it('sends no Authorization header without a token', async () => {
    expect((await readAll(api().pages('pulls'))).flatMap((p) => p.items)).toEqual(PULLS);
    expect(server.authorizations.every((value) => value === undefined)).toBe(true);
  });

  it("gives the repository's GitHub id", async () => {
    expect(await api().repository()).toEqual({ id: 4242, fullName: 'acme/widget' });
  });

  it('waits out a spent rate limit (403, x-ratelimit-remaining: 0) until its reset, then goes on', async () => {
    server.failFirst('/repos/acme/widget/issues?page=2', primaryLimit(1));
    const pages = await readAll(api().pages('issues'));
    expect(pages.flatMap((p) => p.items)).toEqual(ISSUES);
    expect(server.requests.filter((r) => r.endsWith('page=2'))).toHaveLength(2);
    expect(Math.max(...clock.sleeps)).toBeGreaterThanOrEqual(1000);
  });

  it("waits a secondary limit's Retry-After, then goes on", async () => {
    server.failFirst('/repos/acme/widget/pulls?page=2', secondaryLimit(1));
    expect((await readAll(api().pages('pulls'))).flatMap((p) => p.items)).toEqual(PULLS);
    expect(clock.sleeps).toContain(1000);
  });

  it('waits a minute for a secondary limit that says so only in its message (403, no Retry-After)', async () => {
    server.failFirst('/repos/acme/widget/pulls?page=1', (response) =>
      sendJson(response, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes.' }, 403),
    );
    expect((await readAll(api().pages('pulls'))).flatMap((p) => p.items)).toEqual(PULLS);
    expect(Math.max(...clock.sleeps)).toBeGreaterThanOrEqual(60_000);
  });

  it('retries a 502 as the archives retry a transient error', async () => {
    server.failFirst('/repos/acme/widget/issues?page=1', badGateway);
    expect((await readAll(api().pages('issues'))).flatMap((p) => p.items)).toEqual(ISSUES);
    expect(server.requests.filter((r) => r.endsWith('direction=asc'))).toHaveLength(2);
  });

  it('tells the wait for a limit longer than the pacer waits by itself, and waits it', async () => {
    const waits: number[] = [];
    server.failFirst('/repos/acme/widget/issues?page=3', primaryLimit(120));
    const github = new GitHubApi({
      apiUrl: server.url,
      owner: 'acme',
      name: 'widget',
      client: new HttpClient({ pacer: new Pacer({ clock }) }),
      onRateLimitWait: (ms) => waits.push(ms),
    });
    expect((await readAll(github.pages('issues'))).flatMap((p) => p.items)).toEqual(ISSUES);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(100_000);
    expect(Math.max(...clock.sleeps)).toBeGreaterThan(100_000);
  });

  it('stops, saying when to run again, when the limit resets later than it will wait', async () => {
    server.failFirst('/repos/acme/widget/issues?page=2', primaryLimit(3600));
    const github = api({ maxRateLimitWaitMs: 15 * 60_000 });
    const read: ApiPage[] = [];
    const error = await failure(
      (async () => {
        for await (const page of github.pages('issues')) read.push(page);
      })(),
    );
    expect(error).toBeInstanceOf(GitHubRateLimitStop);
    const resumeAt = (error as GitHubRateLimitStop).resumeAt.getTime();
    expect(resumeAt).toBeGreaterThan(Date.now() + 3500_000);
    expect(error.message).toMatch(/rate limit.*acme\/widget.*run again after/i);
    expect(read).toHaveLength(1);
  });

  it('fails a 401 with a sentence naming the repository and the token given, never the token itself', async () => {
    server.failFirst('/repos/acme/widget/issues?page=1', badCredentials);
    const error = await failure(readAll(api({ token: TOKEN }).pages('issues')));
    expect(error).toBeInstanceOf(OperationError);
    expect(error.message).toMatch(/acme\/widget/);
    expect(error.message).toMatch(/GITHUB_TOKEN/);
    expect(`${error.message} ${(error as OperationError).hint}`).not.toContain(TOKEN);
  });

  it('fails a 404 as a repository GitHub does not know, saying no token was given', async () => {
    const github = new GitHubApi({
      apiUrl: server.url,
      owner: 'acme',
      name: 'gadget',
      client: new HttpClient({ pacer: new Pacer({ clock }) }),
    });
    const error = await failure(github.repository());
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/acme\/gadget/);
    expect(error.message).toMatch(/no token was given/);
  });

  it('fails a 502 that persists as an operation error', async () => {
    server.failFirst('/repos/acme/widget/pulls?page=1', badGateway, badGateway, badGateway);
    const error = await failure(readAll(api().pages('pulls')));
    expect(error).toBeInstanceOf(OperationError);
    expect(error.message).toMatch(/acme\/widget/);
  });
});

describe('githubRateLimitWait', () => {
  const now = Date.parse('2024-06-01T00:00:00Z');
  it('reads Retry-After first, then a spent limit until its reset, and no limit in a plain 403', () => {
    expect(githubRateLimitWait(403, { 'retry-after': '30' }, now)).toBe(30_000);
    expect(
      githubRateLimitWait(429, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 90) }, now),
    ).toBe(91_000);
    expect(
      githubRateLimitWait(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 - 5) }, now),
    ).toBe(1000);
    expect(githubRateLimitWait(403, { 'x-ratelimit-remaining': '12' }, now)).toBeUndefined();
    expect(githubRateLimitWait(404, { 'retry-after': '30' }, now)).toBeUndefined();
  });
});
