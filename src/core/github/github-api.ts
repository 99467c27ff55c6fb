import { ArchiveError, InputError, OperationError } from '../errors.js';
import {
  createHttpClient,
  header,
  parseRetryAfter,
  type HttpClient,
  type HttpDocument,
  type ResponseHeaders,
} from '../net/http-client.js';
import { nextPageUrl } from './link-header.js';

export const DEFAULT_API_URL = 'https://api.github.com';

/** Waits for a rate limit longer than this stop the import instead: the user is told when to run again. */
export const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 15 * 60_000;

/** Rate-limit rounds one request may go through before the import stops rather than loop. */
const MAX_RATE_LIMIT_ROUNDS = 5;

/** GitHub's reset time is whole seconds of its clock; a little more keeps the retry from landing just before it. */
const RESET_MARGIN_MS = 1000;

/** A secondary limit that does not say how long: GitHub asks for at least a minute. */
const UNSPECIFIED_LIMIT_WAIT_MS = 60_000;

export type Listing = 'issues' | 'pulls';

export interface ApiPage {
  url: string;
  items: unknown[];
}

export interface GitHubApiOptions {
  /** The repository's owner, or the organization whose repositories are listed. */
  owner: string;
  /** The repository; absent for an organization. */
  name?: string;
  /** Default https://api.github.com; tests point it at a local server. */
  apiUrl?: string;
  /** Sent as `Authorization: Bearer …`, never written anywhere. */
  token?: string;
  /** The HTTP client (and through it the pacer) the archives use. */
  client?: HttpClient;
  contactEmail?: string;
  maxRateLimitWaitMs?: number;
  /** Told of each rate-limit wait the client does not do quietly in its pacer, so a long one is not silence. */
  onRateLimitWait?: (waitMs: number, until: Date) => void;
  signal?: AbortSignal;
}

/** The API's rate limit is spent for longer than the import waits: what was read is kept, and the user runs again after `resumeAt`. */
export class GitHubRateLimitStop extends OperationError {
  constructor(
    readonly repo: string,
    readonly resumeAt: Date,
  ) {
    super(
      `GitHub's rate limit is spent while reading ${repo}; run again after ${formatTime(resumeAt)}.`,
      'What was read so far is saved; an import run again reads the rest. A token in GITHUB_TOKEN has a far higher limit.',
    );
  }
}

/**
 * How GitHub says "slow down" beyond a plain 429: a secondary limit's
 * Retry-After (on 403 or 429), or a spent primary limit (403 or 429 with
 * `x-ratelimit-remaining: 0`) that lifts at `x-ratelimit-reset`. The wait in
 * ms, or undefined when the answer is no rate limit.
 */
export function githubRateLimitWait(status: number, headers: ResponseHeaders, now: number): number | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = parseRetryAfter(header(headers, 'retry-after'), now);
  if (retryAfter !== undefined) return retryAfter;
  if (header(headers, 'x-ratelimit-remaining') === '0') {
    const reset = Number(header(headers, 'x-ratelimit-reset'));
    return Number.isFinite(reset) && reset > 0
      ? Math.max(0, reset * 1000 - now) + RESET_MARGIN_MS
      : UNSPECIFIED_LIMIT_WAIT_MS;
  }
  return status === 429 ? UNSPECIFIED_LIMIT_WAIT_MS : undefined;
}

/**
 * GitHub's REST API for one repository (or one organization's list of
 * repositories), over the archives' HTTP client:
 * the same pacer, the same retries of 5xx and transport errors. Rate limits
 * the pacer does not wait out by itself are waited here up to
 * `maxRateLimitWaitMs`; a longer one stops with GitHubRateLimitStop.
 */
export class GitHubApi {
  /** What is read, for messages: `owner/name`, or the organization. */
  readonly repo: string;
  private readonly what: 'repository' | 'organization';
  private readonly apiUrl: string;
  private readonly client: HttpClient;
  private readonly headers: Record<string, string>;
  private readonly hasToken: boolean;
  private readonly maxRateLimitWaitMs: number;

  constructor(private readonly options: GitHubApiOptions) {
    this.repo = options.name === undefined ? options.owner : `${options.owner}/${options.name}`;
    this.what = options.name === undefined ? 'organization' : 'repository';
    this.apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.client = options.client ?? createHttpClient({ contactEmail: options.contactEmail });
    this.hasToken = Boolean(options.token);
    this.headers = {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    };
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS;
  }

  /** The repository as GitHub knows it; a 404 here is the clearest "no such repository". */
  async repository(): Promise<{ id: number; fullName: string }> {
    const url = `${this.apiUrl}/repos/${this.options.owner}/${this.options.name}`;
    const body = parseBody(await this.get(url), url) as { id?: unknown; full_name?: unknown };
    if (!Number.isSafeInteger(body.id))
      throw new OperationError(
        `GitHub answered ${url} without the repository's id.`,
        'Check --api-url: it should be the GitHub REST API.',
      );
    return { id: body.id as number, fullName: typeof body.full_name === 'string' ? body.full_name : this.repo };
  }

  /**
   * Every page of a listing, oldest first (sorted by creation, so items
   * opened while it is read land on later pages instead of shifting the ones
   * not read yet), following the Link headers.
   */
  pages(listing: Listing): AsyncGenerator<ApiPage> {
    return this.pagesFrom(
      `${this.apiUrl}/repos/${this.options.owner}/${this.options.name}/${listing}?state=all&per_page=100&sort=created&direction=asc`,
      listing,
    );
  }

  /** Every page of the organization's repositories (`GET /orgs/ORG/repos`, every type), following the Link headers. */
  organizationRepositories(): AsyncGenerator<ApiPage> {
    return this.pagesFrom(
      `${this.apiUrl}/orgs/${this.options.owner}/repos?type=all&per_page=100&sort=full_name`,
      'repositories',
    );
  }

  private async *pagesFrom(first: string, what: string): AsyncGenerator<ApiPage> {
    let url: string | undefined = first;
    while (url) {
      const document = await this.get(url);
      const items = parseBody(document, url);
      if (!Array.isArray(items))
        throw new OperationError(
          `GitHub answered ${url} with something other than a list of ${what}.`,
          'Check --api-url: it should be the GitHub REST API.',
        );
      yield { url, items };
      url = nextPageUrl(header(document.headers, 'link'), url);
    }
  }

  /** One request: a 2xx document, or the failure said as a sentence about this repository. */
  private async get(url: string): Promise<HttpDocument> {
    for (let round = 1; ; round++) {
      let document: HttpDocument;
      try {
        // GitHub's limits are waited out here (up to the bound above), not refused by the pacer.
        document = await this.client.document(url, {
          headers: this.headers,
          signal: this.options.signal,
          rateLimitWait: githubRateLimitWait,
          longestWaitMs: Number.POSITIVE_INFINITY,
        });
      } catch (error) {
        if (!(error instanceof ArchiveError)) throw error;
        if (error.kind !== 'rate_limited') {
          throw new OperationError(
            `GitHub did not answer while reading ${this.repo}: ${error.message}`,
            'Run the import again later; the pages already read are saved.',
          );
        }
        const waitMs = error.retryAfterMs ?? UNSPECIFIED_LIMIT_WAIT_MS;
        const until = new Date(this.client.pacer.clock.now() + waitMs);
        if (waitMs > this.maxRateLimitWaitMs || round >= MAX_RATE_LIMIT_ROUNDS)
          throw new GitHubRateLimitStop(this.repo, until);
        // The client has already pushed this host's next slot in the pacer past the wait.
        this.options.onRateLimitWait?.(waitMs, until);
        continue;
      }
      if (document.status >= 200 && document.status < 300) return document;
      if (
        document.status === 403 &&
        /rate limit/i.test(errorMessage(document.text) ?? '') &&
        round < MAX_RATE_LIMIT_ROUNDS
      ) {
        // A secondary limit that gives no Retry-After: wait the minute GitHub asks for.
        this.client.pacer.strain(new URL(url).host, UNSPECIFIED_LIMIT_WAIT_MS);
        this.options.onRateLimitWait?.(
          UNSPECIFIED_LIMIT_WAIT_MS,
          new Date(this.client.pacer.clock.now() + UNSPECIFIED_LIMIT_WAIT_MS),
        );
        continue;
      }
      throw this.refusal(document);
    }
  }

  private refusal(document: HttpDocument): Error {
    const message = errorMessage(document.text);
    const said = message ? `: ${message}` : '';
    const token = this.hasToken ? 'the token in GITHUB_TOKEN was sent' : 'no token was given';
    switch (document.status) {
      case 401:
        return new OperationError(
          `GitHub refused the credentials for ${this.repo} (401${said}); ${token}.`,
          this.hasToken
            ? 'GITHUB_TOKEN holds a token GitHub does not accept (expired or revoked?); set a valid one.'
            : 'Set GITHUB_TOKEN to a GitHub token.',
        );
      case 404:
        return new InputError(
          `GitHub knows no ${this.what} ${this.repo} (404 for ${document.url})${this.hasToken ? '' : ', or it is private and no token was given'}.`,
          this.what === 'organization'
            ? 'Check the organization name (a user account is not an organization).'
            : this.hasToken
              ? 'Check REPO, and that the token in GITHUB_TOKEN can read it.'
              : 'Check REPO; for a private repository set GITHUB_TOKEN.',
        );
      case 403:
        return new OperationError(
          `GitHub refused to give ${this.repo} (403${said}); ${token}.`,
          'Check that the token in GITHUB_TOKEN may read this repository.',
        );
      default:
        return new OperationError(
          `GitHub answered ${document.status} for ${document.url} while reading ${this.repo}${said}.`,
          'Check --api-url and REPO.',
        );
    }
  }
}

function parseBody(document: HttpDocument, url: string): unknown {
  try {
    return JSON.parse(document.text);
  } catch {
    throw new OperationError(
      `GitHub answered ${url} with something that is not JSON.`,
      'Check --api-url: it should be the GitHub REST API.',
    );
  }
}

/** The `message` of a GitHub error answer, when it has one. */
function errorMessage(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    return typeof body.message === 'string' ? body.message : undefined;
  } catch {
    return undefined;
  }
}

function formatTime(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
