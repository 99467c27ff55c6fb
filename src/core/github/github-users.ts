import { ArchiveError, OperationError } from '../errors.js';
import { createHttpClient, type HttpClient } from '../net/http-client.js';
import { DEFAULT_API_URL, githubRateLimitWait } from './github-api.js';

export interface GitHubUser {
  login: string;
  githubId: number | null;
}

/**
 * Who GitHub says an address belongs to: a user whose public e-mail it is
 * (`/search/users?q=EMAIL in:email`), else the author of commits made with it
 * (`/search/commits?q=author-email:EMAIL`). Over the archives' HTTP client
 * and its pacer; GitHub's rate limits are waited as the client waits them.
 * A 422 (GitHub will not search a private address) is "unknown".
 */
export class GitHubUsers {
  private readonly apiUrl: string;
  private readonly client: HttpClient;
  private readonly headers: Record<string, string>;

  constructor(options: {
    token: string;
    apiUrl?: string;
    client?: HttpClient;
    contactEmail?: string;
    signal?: AbortSignal;
  }) {
    this.apiUrl = (options.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, '');
    this.client = options.client ?? createHttpClient({ contactEmail: options.contactEmail });
    this.headers = {
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
      authorization: `Bearer ${options.token}`,
    };
    this.signal = options.signal;
  }

  private readonly signal: AbortSignal | undefined;

  async userOf(address: string): Promise<GitHubUser | null> {
    const users = await this.search(`/search/users?q=${encodeURIComponent(`${address} in:email`)}`);
    const user = users?.[0] as { login?: unknown; id?: unknown } | undefined;
    if (typeof user?.login === 'string')
      return { login: user.login, githubId: Number.isSafeInteger(user.id) ? (user.id as number) : null };
    const commits = await this.search(`/search/commits?q=${encodeURIComponent(`author-email:${address}`)}`);
    const author = (commits?.[0] as { author?: { login?: unknown; id?: unknown } | null } | undefined)?.author;
    if (typeof author?.login === 'string')
      return { login: author.login, githubId: Number.isSafeInteger(author.id) ? (author.id as number) : null };
    return null;
  }

  /** The items of one search, or undefined when GitHub refuses to search for this (422). */
  private async search(path: string): Promise<unknown[] | undefined> {
    const url = `${this.apiUrl}${path}`;
    let document;
    try {
      document = await this.client.document(url, {
        headers: this.headers,
        signal: this.signal,
        rateLimitWait: githubRateLimitWait,
      });
    } catch (error) {
      if (error instanceof ArchiveError)
        throw new OperationError(
          `GitHub did not answer ${url}: ${error.message}`,
          'Run `listminer people resolve` again later; what was found is saved.',
        );
      throw error;
    }
    if (document.status === 422) return undefined;
    if (document.status < 200 || document.status >= 300) {
      throw new OperationError(
        `GitHub answered ${document.status} for ${url}.`,
        'Check GITHUB_TOKEN; `listminer people resolve` can be run again, what was found is saved.',
      );
    }
    try {
      const body = JSON.parse(document.text) as { items?: unknown };
      return Array.isArray(body.items) ? (body.items as unknown[]) : [];
    } catch {
      throw new OperationError(`GitHub answered ${url} with something that is not JSON.`);
    }
  }
}
