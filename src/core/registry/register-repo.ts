import { InputError } from '../errors.js';
import type { NewRepo, RepoRecord } from '../store/repo-records.js';
import type { Store } from '../store/store.js';
import { listOrgRepoUrls, type OrgReposOptions } from './org-repos.js';
import { readRepoList } from './repo-list-file.js';
import { requireRepoUrl } from './repo-url.js';

export interface AddRepoResult {
  action: 'added' | 'unchanged';
  repo: RepoRecord;
  /** Lists registered with this repo URL that now have their repo. */
  listsAttached: number;
  /** Drained messages that mention this repo and are now tied to it. */
  signaledMessagesResolved: number;
}

/** `repos add` of one or many repositories: each one's outcome, and the sums. */
export interface AddReposResult {
  added: number;
  unchanged: number;
  listsAttached: number;
  signaledMessagesResolved: number;
  repos: AddRepoResult[];
}

export async function addRepo(store: Store, url: string): Promise<AddRepoResult> {
  const input = requireRepoUrl(url);
  return store.transaction((tx) => registerRepo(tx, input));
}

/**
 * Registers every repository given (each spelling once), in one
 * transaction: a URL that is no repository refuses the lot before anything
 * is written. Each repository's lists attach and the drained mail that
 * names it resolves, as with one; a repository already known is unchanged.
 */
export async function addRepos(store: Store, urls: readonly string[]): Promise<AddReposResult> {
  const inputs = new Map<string, NewRepo>();
  for (const url of urls) {
    const input = requireRepoUrl(url);
    inputs.set(input.url, input);
  }
  const repos = await store.transaction(async (tx) => {
    const results: AddRepoResult[] = [];
    for (const input of inputs.values()) results.push(await registerRepo(tx, input));
    return results;
  });
  const sum = (key: 'listsAttached' | 'signaledMessagesResolved') =>
    repos.reduce((total, repo) => total + repo[key], 0);
  return {
    added: repos.filter((repo) => repo.action === 'added').length,
    unchanged: repos.filter((repo) => repo.action === 'unchanged').length,
    listsAttached: sum('listsAttached'),
    signaledMessagesResolved: sum('signaledMessagesResolved'),
    repos,
  };
}

/** What `repos add` registers: a URL, the URLs of a file, the repositories of a GitHub organization; any of them together. */
export interface RepoSources {
  url?: string;
  file?: string;
  org?: string;
  github?: OrgReposOptions;
}

/** Gathers the URLs of every source (the file and the organization read before the store is written), then registers them as addRepos does. */
export async function addReposFrom(store: Store, sources: RepoSources): Promise<AddReposResult> {
  if (!sources.url && !sources.file && !sources.org)
    throw new InputError('No repository to add.', 'Give a URL, --from FILE or --org ORG.');
  const urls = [
    ...(sources.url ? [sources.url] : []),
    ...(sources.file ? await readRepoList(sources.file) : []),
    ...(sources.org ? await listOrgRepoUrls(sources.org, sources.github) : []),
  ];
  return addRepos(store, urls);
}

async function registerRepo(tx: Store, input: NewRepo): Promise<AddRepoResult> {
  const { repo, created } = await tx.repos.ensure(input);
  const listsAttached = await tx.repos.attachToLists(repo);
  const signaledMessagesResolved = await tx.repos.resolveSignaled(repo);
  return { action: created ? 'added' : 'unchanged', repo, listsAttached, signaledMessagesResolved };
}
