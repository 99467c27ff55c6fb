import { InputError, OperationError } from '../errors.js';
import { GitHubApi } from '../github/github-api.js';
import type { HttpClient } from '../net/http-client.js';

export interface OrgReposOptions {
  /** Default https://api.github.com; tests point it at a local server. */
  apiUrl?: string;
  token?: string;
  client?: HttpClient;
  contactEmail?: string;
  signal?: AbortSignal;
}

/** ORG as `github.com/ORG`, `https://github.com/ORG` or `ORG`: the organization's login. */
export function requireGitHubOrg(input: string): string {
  const org = input
    .trim()
    .replace(/^https?:\/\//i, '')
    .replace(/^(www\.)?github\.com\//i, '')
    .replace(/\/+$/, '');
  if (!/^[a-z0-9](?:[a-z0-9-]{0,38})$/i.test(org)) {
    throw new InputError(`"${input}" is not a GitHub organization.`, 'Give one like github.com/apache or apache.');
  }
  return org.toLowerCase();
}

/**
 * The URLs of every repository of a GitHub organization, from the REST API
 * (`GET /orgs/ORG/repos`, page after page by the Link headers): forks and
 * archived ones included, private ones when the token may see them.
 */
export async function listOrgRepoUrls(input: string, options: OrgReposOptions = {}): Promise<string[]> {
  const org = requireGitHubOrg(input);
  const api = new GitHubApi({ owner: org, ...options });
  const urls: string[] = [];
  for await (const { url, items } of api.organizationRepositories()) {
    items.forEach((item, index) => {
      const htmlUrl = (item as { html_url?: unknown } | null)?.html_url;
      if (typeof htmlUrl !== 'string') {
        throw new OperationError(
          `GitHub answered ${url} with a repository without html_url (item ${index + 1}).`,
          'Check --api-url: it should be the GitHub REST API.',
        );
      }
      urls.push(htmlUrl);
    });
  }
  return urls;
}
