import type { ServerResponse } from 'node:http';
import { send, startArchiveServer, type ArchiveServer } from './archive-server.js';

/** An item of `GET /repos/O/R/issues` as GitHub writes it (the fields listminer reads, and a few it does not). */
export function githubIssue(number: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 3_000_000 + number,
    node_id: `I_${number}`,
    number,
    title: `Issue ${number}`,
    state: 'open',
    user: { login: `user${number % 3}`, id: 100 + (number % 3), type: 'User' },
    labels: [],
    comments: number % 4,
    html_url: `https://github.com/acme/widget/issues/${number}`,
    repository_url: 'https://api.github.com/repos/acme/widget',
    created_at: `2024-01-${String((number % 28) + 1).padStart(2, '0')}T10:00:00Z`,
    updated_at: `2024-02-${String((number % 28) + 1).padStart(2, '0')}T10:00:00Z`,
    body: 'text',
    ...extra,
  };
}

/** The pull request githubPull(number) describes, as the issues listing gives it: an issue with a `pull_request` key, under its issue id. */
export function githubIssueOfPull(number: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const pull = githubPull(number);
  return githubIssue(number, {
    title: pull.title,
    state: pull.state,
    created_at: pull.created_at,
    updated_at: pull.updated_at,
    html_url: pull.html_url,
    pull_request: { url: `https://api.github.com/repos/acme/widget/pulls/${number}`, merged_at: pull.merged_at },
    ...extra,
  });
}

/** An item of `GET /repos/O/R/pulls`, under the pull request's own id. */
export function githubPull(number: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 7_000_000 + number,
    number,
    title: `Pull ${number}`,
    state: 'closed',
    user: { login: `user${number % 3}`, id: 100 + (number % 3) },
    html_url: `https://github.com/acme/widget/pull/${number}`,
    created_at: `2024-01-${String((number % 28) + 1).padStart(2, '0')}T11:00:00Z`,
    updated_at: `2024-03-01T00:00:00Z`,
    merged_at: number % 2 === 0 ? '2024-03-01T00:00:00Z' : null,
    base: { repo: { full_name: 'acme/widget' } },
    ...extra,
  };
}

/** An item of `GET /orgs/ORG/repos` (the fields listminer reads, and a few it does not). */
export function githubOrgRepo(org: string, name: string, id = 9_000_000): Record<string, unknown> {
  return {
    id,
    name,
    full_name: `${org}/${name}`,
    owner: { login: org, type: 'Organization' },
    html_url: `https://github.com/${org}/${name}`,
    fork: false,
    archived: false,
  };
}

export type Responder = (response: ServerResponse) => void;

export interface GitHubApiServer extends ArchiveServer {
  /** The Authorization header of every request, in order (undefined when none was sent). */
  authorizations: Array<string | undefined>;
  /** Every search asked, as `/search/users?q=…`, in order. */
  searches: string[];
  /** Answers the next request for `path?page=N` (e.g. `/repos/acme/widget/issues?page=2`) with these, one each, before the listing. */
  failFirst(pageKey: string, ...responders: Responder[]): void;
}

/**
 * GitHub's REST API for one repository on 127.0.0.1: the repository, and
 * its issues and pulls listings in pages of `pageSize`, linked by Link
 * headers as api.github.com links them (absolute URLs, rel="next" and "last");
 * and the repositories of each organization of `orgs` (`/orgs/ORG/repos`), paged alike.
 */
export async function startGitHubApiServer(repo: {
  owner: string;
  name: string;
  issues: unknown[];
  pulls: unknown[];
  pageSize?: number;
  id?: number;
  orgs?: Record<string, unknown[]>;
  /** `/search/users?q=EMAIL in:email` and `/search/commits?q=author-email:EMAIL` (see searchAnswer). */
  search?: SearchFixture;
}): Promise<GitHubApiServer> {
  const pageSize = repo.pageSize ?? 2;
  const failures = new Map<string, Responder[]>();
  const authorizations: Array<string | undefined> = [];
  const searches: string[] = [];
  const base = `/repos/${repo.owner}/${repo.name}`;
  const server = await startArchiveServer((url, response, request) => {
    authorizations.push(request.headers.authorization);
    const page = Number(url.searchParams.get('page') ?? '1');
    const queued = failures.get(`${url.pathname}?page=${page}`);
    if (queued?.length) return queued.shift()!(response);
    if (url.pathname === base)
      return sendJson(response, { id: repo.id ?? 4242, full_name: `${repo.owner}/${repo.name}` });
    if (url.pathname === '/search/users' || url.pathname === '/search/commits') {
      searches.push(`${url.pathname}?q=${url.searchParams.get('q')}`);
      return searchAnswer(response, url, repo.search ?? {});
    }
    const org = /^\/orgs\/([^/]+)\/repos$/.exec(url.pathname)?.[1];
    const listing =
      url.pathname === `${base}/issues`
        ? repo.issues
        : url.pathname === `${base}/pulls`
          ? repo.pulls
          : org !== undefined
            ? repo.orgs?.[org]
            : undefined;
    if (!listing)
      return sendJson(response, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }, 404);
    const last = Math.max(1, Math.ceil(listing.length / pageSize));
    const link = (n: number) => {
      const next = new URL(url.toString().replace('http://127.0.0.1', github.url));
      next.searchParams.set('page', String(n));
      return next.toString();
    };
    const links = [...(page < last ? [`<${link(page + 1)}>; rel="next"`] : []), `<${link(last)}>; rel="last"`];
    return sendJson(response, listing.slice((page - 1) * pageSize, page * pageSize), 200, { link: links.join(', ') });
  });
  const github: GitHubApiServer = Object.assign(server, {
    authorizations,
    searches,
    failFirst: (pageKey: string, ...responders: Responder[]) =>
      failures.set(pageKey, [...(failures.get(pageKey) ?? []), ...responders]),
  });
  return github;
}

/** Who GitHub's searches find by address: users whose public e-mail it is, commit authors, and addresses GitHub refuses to search (422). */
export interface SearchFixture {
  users?: Record<string, { login: string; id: number }>;
  commitAuthors?: Record<string, { login: string; id: number }>;
  private?: string[];
}

/** GitHub's search API answers: found, nothing found, or 422 for an address it will not search; with the search rate-limit headers. */
function searchAnswer(response: ServerResponse, url: URL, fixture: SearchFixture): void {
  const limit = {
    'x-ratelimit-limit': '30',
    'x-ratelimit-remaining': '29',
    'x-ratelimit-resource': 'search',
    'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60),
  };
  const q = url.searchParams.get('q') ?? '';
  const address = (url.pathname === '/search/users' ? /^(\S+) in:email$/.exec(q) : /^author-email:(\S+)$/.exec(q))?.[1];
  if (!address) return sendJson(response, { message: 'Validation Failed' }, 422, limit);
  if (fixture.private?.includes(address)) {
    return sendJson(
      response,
      {
        message: 'Validation Failed',
        errors: [
          {
            message:
              'The listed users cannot be searched either because the users do not exist or you do not have permission to view the users.',
            resource: 'Search',
            field: 'q',
            code: 'invalid',
          },
        ],
      },
      422,
      limit,
    );
  }
  if (url.pathname === '/search/users') {
    const user = fixture.users?.[address];
    return sendJson(
      response,
      { total_count: user ? 1 : 0, incomplete_results: false, items: user ? [{ ...user, type: 'User' }] : [] },
      200,
      limit,
    );
  }
  const author = fixture.commitAuthors?.[address];
  return sendJson(
    response,
    {
      total_count: author ? 1 : 0,
      incomplete_results: false,
      items: author ? [{ sha: 'abc123', author: { ...author, type: 'User' } }] : [],
    },
    200,
    limit,
  );
}

export function sendJson(
  response: ServerResponse,
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  send(response, status, JSON.stringify(value), { 'content-type': 'application/json; charset=utf-8', ...headers });
}

/** GitHub's primary rate limit, spent: 403 with x-ratelimit-remaining 0 and the reset (epoch seconds) `inSeconds` ahead. */
export const primaryLimit =
  (inSeconds: number): Responder =>
  (response) =>
    sendJson(response, { message: 'API rate limit exceeded for 127.0.0.1.' }, 403, {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + inSeconds),
    });

/** A secondary rate limit: 429 with Retry-After. */
export const secondaryLimit =
  (retryAfterSeconds: number): Responder =>
  (response) =>
    sendJson(response, { message: 'You have exceeded a secondary rate limit.' }, 429, {
      'retry-after': String(retryAfterSeconds),
    });

export const badGateway: Responder = (response) =>
  send(response, 502, '<html>bad gateway</html>', { 'content-type': 'text/html' });

export const badCredentials: Responder = (response) =>
  sendJson(response, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' }, 401);
