import { InputError } from '../errors.js';
import { quoteExcerpt } from '../quote-excerpt.js';
import type { NewRepo } from '../store/repo-records.js';

/**
 * One spelling per repository: https, no `.git`, no trailing slash, and on
 * case-insensitive forges (GitHub, GitLab) lower case, so the URL a mail
 * mentions and the URL a user registers meet.
 */
const CASE_INSENSITIVE_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

/** GitHub's own bounds: a user's or organization's login has at most 39 characters, a repository's name at most 100. */
const GITHUB_OWNER_MAX = 39;
const GITHUB_NAME_MAX = 100;

/**
 * The repository a URL names, in its one spelling, or why it names none:
 * the one place repository URLs are read (`lists add --repo`, `repos add`,
 * `repos import`, the repositories mail names).
 */
export function readRepoUrl(input: string): { repo: NewRepo } | { problem: string } {
  const notOne = { problem: `${quoteExcerpt(input)} is not a repository URL` };
  let text = input.trim();
  const scp = /^git@([^:]+):(.+)$/.exec(text);
  if (scp) text = `https://${scp[1]}/${scp[2]}`;
  if (!/^[a-z]+:\/\//i.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return notOne;
  }
  if (!['https:', 'http:', 'git:'].includes(url.protocol) || !url.hostname.includes('.')) return notOne;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  let path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  if (CASE_INSENSITIVE_HOSTS.has(host)) path = path.toLowerCase();
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return notOne;
  if (CASE_INSENSITIVE_HOSTS.has(host) && parts.length !== 2) return notOne;
  const name = parts[parts.length - 1]!;
  const owner = parts.length > 1 ? parts.slice(0, -1).join('/') : null;
  if (host === 'github.com') {
    const tooLong = githubBoundExceeded(owner!, name);
    if (tooLong) return { problem: `${quoteExcerpt(input)} is not a GitHub repository: ${tooLong}` };
  }
  return { repo: { url: `https://${host}/${parts.join('/')}`, host, owner, name } };
}

function githubBoundExceeded(owner: string, name: string): string | undefined {
  const count = (text: string) => text.length.toLocaleString('en-US');
  if (owner.length > GITHUB_OWNER_MAX)
    return `its owner has ${count(owner)} characters, and GitHub allows at most ${GITHUB_OWNER_MAX}`;
  if (name.length > GITHUB_NAME_MAX)
    return `its name has ${count(name)} characters, and GitHub allows at most ${GITHUB_NAME_MAX}`;
  return undefined;
}

/** The repository a URL names, or undefined when it names none (readRepoUrl). */
export function normalizeRepoUrl(input: string): NewRepo | undefined {
  const read = readRepoUrl(input);
  return 'repo' in read ? read.repo : undefined;
}

/** The repository the user's URL names; one it names none of is refused (exit 2) with the reason. */
export function requireRepoUrl(input: string): NewRepo {
  const read = readRepoUrl(input);
  if ('problem' in read) throw new InputError(`${read.problem}.`, 'Give one like https://github.com/apache/kafka.');
  return read.repo;
}
