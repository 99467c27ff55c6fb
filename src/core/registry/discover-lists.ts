import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ArchiveSource, type DiscoveredList, type SourceContext } from '../archive/archive-source.js';
import { openArchiveSource } from '../archive/open-source.js';
import { InputError, OperationError, ArchiveError } from '../errors.js';
import { silentProgress, type ProgressListener } from '../progress.js';
import type { Store } from '../store/store.js';
import { requireSystem, type SystemDefinition, type Systems } from '../systems/load-systems.js';
import { addList, requireListBaseUrl, type AddListResult } from './register-list.js';
import { normalizeRepoUrl } from './repo-url.js';

export interface DiscoverListsInput {
  system: string;
  /** Only lists of this domain (kafka.apache.org). */
  domain?: string;
  /** The archive to ask instead of the system's (a mirror or a local server); lists found keep it. */
  baseUrl?: string;
  contactEmail?: string;
  cacheDir?: string;
  /** Logins for catalogues that need one (groups.io: the account's API key). */
  mailAccounts?: SourceContext['mailAccounts'];
  mailTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface DiscoveredListResult {
  action: AddListResult['action'];
  name: string;
  listId: string | null;
  repoUrl: string | null;
}

export interface DiscoverListsResult {
  system: string;
  found: number;
  added: number;
  updated: number;
  unchanged: number;
  lists: DiscoveredListResult[];
}

/**
 * Registers every list an archive's catalogue names, through addList, so a
 * second run changes nothing. A list found gets the repo the system's
 * repo_url_template names for it, unless it already has a repo.
 */
export async function discoverLists(
  store: Store,
  systems: Systems,
  input: DiscoverListsInput,
  options: { source?: ArchiveSource; progress?: ProgressListener } = {},
): Promise<DiscoverListsResult> {
  const system = requireSystem(systems, input.system);
  const progress = options.progress ?? silentProgress;
  // Refused before the catalogue is asked, as lists add refuses it.
  const baseUrl = input.baseUrl === undefined ? undefined : requireListBaseUrl(system, input.baseUrl);
  const source = options.source ?? (await openArchiveSource(system.backend));
  if (!source.enumerateLists) {
    throw new InputError(
      `The ${system.name} system has no list catalogue to discover from.`,
      'Register its lists one by one with `listminer lists add`.',
    );
  }
  const task = `discover:${system.name}`;
  progress({ type: 'start', task, title: `Reading the ${system.name} list catalogue` });
  let found: DiscoveredList[];
  try {
    found = await source.enumerateLists({
      system,
      baseUrl: baseUrl ?? system.baseUrl,
      contactEmail: input.contactEmail,
      mailAccounts: input.mailAccounts,
      mailTimeoutMs: input.mailTimeoutMs,
      cacheDir: input.cacheDir ?? join(tmpdir(), 'listminer-cache'),
      signal: input.signal,
      domain: input.domain?.toLowerCase(),
    });
  } catch (error) {
    progress({ type: 'end', task, status: 'failed' });
    if (error instanceof ArchiveError) {
      throw new OperationError(
        `The ${system.name} catalogue could not be read: ${error.message}`,
        error.hint ?? (error.kind === 'permanent' ? 'Check the base URL.' : 'Try again later.'),
      );
    }
    throw error;
  } finally {
    await source.close?.();
  }
  progress({ type: 'update', task, total: found.length, done: 0 });
  const result: DiscoverListsResult = {
    system: system.name,
    found: found.length,
    added: 0,
    updated: 0,
    unchanged: 0,
    lists: [],
  };
  for (const [index, list] of found.entries()) {
    const existing = await store.lists.byName(system.name, list.name);
    const repoUrl = existing?.repoUrl ? undefined : (list.repoUrl ?? repoFromTemplate(system, list));
    const added = await addList(store, systems, {
      system: system.name,
      name: list.name,
      listId: list.listId,
      repoUrl,
      baseUrl,
    });
    result[added.action]++;
    result.lists.push({
      action: added.action,
      name: added.list.name,
      listId: added.list.listId,
      repoUrl: added.list.repoUrl,
    });
    progress({ type: 'update', task, done: index + 1, detail: list.name });
  }
  progress({
    type: 'end',
    task,
    status: 'done',
    detail: `${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged`,
  });
  return result;
}

/**
 * `https://github.com/apache/{repo}` with {repo} the project of the list's
 * domain (kafka.apache.org → kafka). A list on the bare domain
 * (announce@apache.org) belongs to no one project and gets no repo.
 */
export function repoFromTemplate(
  system: Pick<SystemDefinition, 'repoUrlTemplate'>,
  list: Pick<DiscoveredList, 'name' | 'listAddress'>,
): string | undefined {
  const template = system.repoUrlTemplate;
  const address = list.listAddress ?? list.name;
  if (!template || !address.includes('@')) return undefined;
  const labels = address.slice(address.indexOf('@') + 1).split('.');
  if (labels.length < 3) return undefined;
  const url = template.replace('{repo}', labels[0]!);
  return normalizeRepoUrl(url)?.url;
}
