import { InputError } from '../errors.js';
import type { NewRepo } from '../store/repo-records.js';

/**
 * One spelling per repository: https, no `.git`, no trailing slash, and on
 * case-insensitive forges (GitHub, GitLab) lower case, so the URL a mail
 * mentions and the URL a user registers meet.
 */
const CASE_INSENSITIVE_HOSTS = new Set(['github.com', 'gitlab.com', 'bitbucket.org', 'codeberg.org']);

export function normalizeRepoUrl(input: string): NewRepo | undefined {
  let text = input.trim();
  const scp = /^git@([^:]+):(.+)$/.exec(text);
  if (scp) text = `https://${scp[1]}/${scp[2]}`;
  if (!/^[a-z]+:\/\//i.test(text)) text = `https://${text}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!['https:', 'http:', 'git:'].includes(url.protocol) || !url.hostname.includes('.')) return undefined;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  let path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  if (CASE_INSENSITIVE_HOSTS.has(host)) path = path.toLowerCase();
  const parts = path.split('/').filter(Boolean);
  if (parts.length === 0) return undefined;
  if (CASE_INSENSITIVE_HOSTS.has(host) && parts.length !== 2) return undefined;
  const name = parts[parts.length - 1]!;
  const owner = parts.length > 1 ? parts.slice(0, -1).join('/') : null;
  return { url: `https://${host}/${parts.join('/')}`, host, owner, name };
}

export function requireRepoUrl(input: string): NewRepo {
  const repo = normalizeRepoUrl(input);
  if (!repo) {
    throw new InputError(`"${input}" is not a repository URL.`, 'Give one like https://github.com/apache/kafka.');
  }
  return repo;
}
