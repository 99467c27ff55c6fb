import { access, constants } from 'node:fs/promises';
import { InputError, OperationError } from '../errors.js';
import { GitHubApi, GitHubRateLimitStop, type Listing } from '../github/github-api.js';
import { itemRepository, readIssuesItem, readPullsItem, type IssuesItem } from './map-github-item.js';
import { PAGE_FILE_HINT, readPageFile } from '../github/read-page-file.js';
import { unreadableFile } from '../read-user-file.js';
import type { HttpClient } from '../net/http-client.js';
import { silentProgress, type ProgressListener } from '../progress.js';
import type { RepoRecord } from '../store/repo-records.js';
import type { Store } from '../store/store.js';
import type { RowWrites, TrackerIssue, TrackerPullRequest } from '../store/tracker-records.js';
import { addRepo } from './register-repo.js';
import { requireRepoUrl } from './repo-url.js';

/** Where the pages come from: files `gh api --paginate` wrote, or the API itself. */
export type ImportSource =
  | { kind: 'files'; issuesFile?: string; pullsFile?: string }
  | { kind: 'github'; apiUrl?: string; token?: string; client?: HttpClient; maxRateLimitWaitMs?: number };

export interface ImportRepoOptions {
  source: ImportSource;
  contactEmail?: string;
  signal?: AbortSignal;
}

export interface ImportRepoResult {
  repo: RepoRecord;
  /** The repository was not registered before this import. */
  repoAdded: boolean;
  /** Lists registered with this repo URL that now have their repo. */
  listsAttached: number;
  /** Drained messages that mention this repo and are now tied to it. */
  signaledMessagesResolved: number;
  issues: RowWrites;
  pullRequests: RowWrites;
  contributorsAdded: number;
  pagesRead: number;
  /** GitHub's rate limit was spent for longer than the import waits; what was read is saved. */
  stoppedForRateLimit: boolean;
  /** When stopped for the rate limit: when a new run can go on (ISO time); else null. */
  runAgainAfter: string | null;
  /** A signal stopped the import after the page being written; the pages saved are kept. */
  interrupted: boolean;
}

interface Page {
  issues: TrackerIssue[];
  pullRequests: TrackerPullRequest[];
}

/**
 * `repos import`: a repository's issues and pull requests from GitHub API
 * pages, read from files or fetched, into issues, pull_requests and
 * contributors. The repository is registered as `repos add` does (its lists
 * and the mail that mentions it attach). Pull requests are read before
 * issues, so a pull request is first written under its own id
 * (docs/import.md). One transaction per page; running it again changes nothing.
 */
export async function importRepo(
  store: Store,
  input: string,
  options: ImportRepoOptions,
  progress: ProgressListener = silentProgress,
): Promise<ImportRepoResult> {
  const target = requireGitHubRepo(input);
  const { source } = options;
  let api: GitHubApi | undefined;
  let githubId: number | undefined;
  if (source.kind === 'files') {
    if (!source.issuesFile && !source.pullsFile)
      throw new InputError(
        'Nothing to import: no page file was given.',
        'Give --issues FILE and/or --pulls FILE, or --github.',
      );
    for (const file of [source.pullsFile, source.issuesFile]) if (file) await requireReadable(file);
  } else {
    api = new GitHubApi({
      owner: target.owner!,
      name: target.name,
      apiUrl: source.apiUrl,
      token: source.token,
      client: source.client,
      contactEmail: options.contactEmail,
      maxRateLimitWaitMs: source.maxRateLimitWaitMs,
      signal: options.signal,
      onRateLimitWait: (waitMs, until) =>
        progress({
          type: 'log',
          level: 'info',
          message: `GitHub's rate limit: waiting ${Math.ceil(waitMs / 1000)} s, until ${until.toISOString()}`,
        }),
    });
    // Asked before anything is written: a wrong REPO or token fails here.
    githubId = (await api.repository()).id;
  }

  const added = await addRepo(store, target.url);
  if (githubId !== undefined) await store.tracker.setRepoGithubId(added.repo.id, githubId);
  const result: ImportRepoResult = {
    repo: added.repo,
    repoAdded: added.action === 'added',
    listsAttached: added.listsAttached,
    signaledMessagesResolved: added.signaledMessagesResolved,
    issues: { added: 0, updated: 0 },
    pullRequests: { added: 0, updated: 0 },
    contributorsAdded: 0,
    pagesRead: 0,
    stoppedForRateLimit: false,
    runAgainAfter: null,
    interrupted: false,
  };
  const save = async (page: Page) => {
    const writes = await store.tracker.savePage(added.repo.id, page);
    result.pagesRead++;
    result.contributorsAdded += writes.contributorsAdded;
    for (const key of ['issues', 'pullRequests'] as const) {
      result[key].added += writes[key].added;
      result[key].updated += writes[key].updated;
    }
  };

  const repoName = `${target.owner}/${target.name}`;
  const listings: Array<{ listing: Listing; file?: string }> =
    source.kind === 'files'
      ? [
          ...(source.pullsFile ? [{ listing: 'pulls' as const, file: source.pullsFile }] : []),
          ...(source.issuesFile ? [{ listing: 'issues' as const, file: source.issuesFile }] : []),
        ]
      : [{ listing: 'pulls' }, { listing: 'issues' }];
  try {
    for (const { listing, file } of listings) {
      const task = `${repoName} ${listing}`;
      progress({
        type: 'start',
        task,
        title: `${repoName} ${listing === 'pulls' ? 'pull requests' : 'issues'}${file ? ` from ${file}` : ''}`,
      });
      let items = 0;
      let pages = 0;
      try {
        const read = file ? pagesOfFile(file, listing, repoName) : pagesOfApi(api!, listing);
        for await (const page of read) {
          if (options.signal?.aborted) break;
          await save(page);
          pages++;
          items += page.issues.length + page.pullRequests.length;
          progress({ type: 'update', task, done: items, detail: `${pages} page(s)` });
        }
      } catch (error) {
        if (options.signal?.aborted) {
          // The request the signal cut short: what was saved before it stays.
          result.interrupted = true;
          progress({ type: 'end', task, status: 'skipped', detail: `stopped after ${pages} page(s)` });
          return result;
        }
        progress({
          type: 'end',
          task,
          status: error instanceof GitHubRateLimitStop ? 'skipped' : 'failed',
          detail: (error as Error).message,
        });
        throw error;
      }
      if (options.signal?.aborted) {
        result.interrupted = true;
        progress({ type: 'end', task, status: 'skipped', detail: `stopped after ${pages} page(s)` });
        return result;
      }
      progress({ type: 'end', task, status: 'done', detail: `${items} item(s) in ${pages} page(s)` });
    }
  } catch (error) {
    if (!(error instanceof GitHubRateLimitStop)) throw error;
    result.stoppedForRateLimit = true;
    result.runAgainAfter = error.resumeAt.toISOString();
    progress({ type: 'log', level: 'warn', message: error.message });
  }
  return result;
}

/** REPO as `https://github.com/OWNER/NAME` or `OWNER/NAME`: a GitHub repository, since the pages are GitHub's. */
export function requireGitHubRepo(input: string): ReturnType<typeof requireRepoUrl> {
  const text = input.trim();
  const repo = requireRepoUrl(/^[\w.-]+\/[\w.-]+$/.test(text) ? `https://github.com/${text}` : text);
  if (repo.host !== 'github.com' || !repo.owner) {
    throw new InputError(
      `"${input}" is not a GitHub repository.`,
      'Give one like https://github.com/apache/kafka or apache/kafka: the pages imported are GitHub API pages.',
    );
  }
  return repo;
}

async function requireReadable(file: string): Promise<void> {
  try {
    await access(file, constants.R_OK);
  } catch (error) {
    throw unreadableFile(file, error, PAGE_FILE_HINT);
  }
}

async function* pagesOfFile(file: string, listing: Listing, repoName: string): AsyncGenerator<Page> {
  // GitHub gives each issue and pull request an id of its own: one id on two numbers is a file put together wrongly, refused before the store meets it.
  const numbers = new Map<string, { number: number; page: number }>();
  const claim = (kind: string, id: number, number: number, page: number) => {
    const seen = numbers.get(`${kind} ${id}`);
    if (!seen) return void numbers.set(`${kind} ${id}`, { number, page });
    if (seen.number !== number) {
      throw new InputError(
        `${file}: ${kind} id ${id} is given to #${seen.number} (page ${seen.page}) and to #${number} (page ${page}); one GitHub id names one ${kind}.`,
        `Take the pages from GitHub again (${listing === 'pulls' ? 'GET /repos/OWNER/NAME/pulls' : 'GET /repos/OWNER/NAME/issues'}) rather than editing them.`,
      );
    }
  };
  for await (const { page, line, items } of readPageFile(file)) {
    const where = (index: number) => `${file}: item ${index + 1} of page ${page} (the page at line ${line})`;
    const rows = toPage(
      listing,
      items,
      (index, why) => new InputError(`${where(index)} cannot be imported: ${why}.`, PAGE_HINT),
      (index, other) =>
        new InputError(
          `${where(index)} is of ${other}, not of ${repoName}.`,
          'Give as REPO the repository the pages were read from.',
        ),
      repoName,
    );
    for (const issue of rows.issues) claim('issue', issue.id, issue.number, page);
    for (const pull of rows.pullRequests)
      claim(pull.idOf === 'issue' ? 'issue' : 'pull request', pull.id, pull.number, page);
    yield rows;
  }
}

const PAGE_HINT =
  'Give the pages of GET /repos/OWNER/NAME/issues as --issues and of GET /repos/OWNER/NAME/pulls as --pulls.';

async function* pagesOfApi(api: GitHubApi, listing: Listing): AsyncGenerator<Page> {
  for await (const { url, items } of api.pages(listing)) {
    yield toPage(
      listing,
      items,
      (index, why) =>
        new OperationError(
          `GitHub answered ${url} with an item listminer cannot read (item ${index + 1}): ${why}.`,
          'Check --api-url: it should be the GitHub REST API.',
        ),
    );
  }
}

/** A page of API items as rows; the repository an item names is checked only where given (files can be mixed up, the API cannot). */
function toPage(
  listing: Listing,
  items: readonly unknown[],
  unreadable: (index: number, why: string) => Error,
  elsewhere?: (index: number, other: string) => Error,
  repoName?: string,
): Page {
  const page: Page = { issues: [], pullRequests: [] };
  items.forEach((item, index) => {
    if (elsewhere && repoName) {
      const other = itemRepository(item);
      if (other !== undefined && other !== repoName.toLowerCase()) throw elsewhere(index, other);
    }
    if (listing === 'pulls') {
      const read = readPullsItem(item);
      if (read.error !== undefined) throw unreadable(index, read.error);
      page.pullRequests.push(read.value!);
      return;
    }
    const read = readIssuesItem(item);
    if (read.error !== undefined) throw unreadable(index, read.error);
    const value: IssuesItem = read.value!;
    if (value.kind === 'issue') page.issues.push(value.issue);
    else page.pullRequests.push(value.pullRequest);
  });
  return page;
}
