import type { RepoRecord } from '../store/repo-records.js';
import type { Store } from '../store/store.js';
import { requireRepoUrl } from './repo-url.js';

export interface AddRepoResult {
  action: 'added' | 'unchanged';
  repo: RepoRecord;
  /** Lists registered with this repo URL that now have their repo. */
  listsAttached: number;
  /** Drained messages that mention this repo and are now tied to it. */
  signaledMessagesResolved: number;
}

export async function addRepo(store: Store, url: string): Promise<AddRepoResult> {
  const input = requireRepoUrl(url);
  return store.transaction(async (tx) => {
    const { repo, created } = await tx.repos.ensure(input);
    const listsAttached = await tx.repos.attachToLists(repo);
    const signaledMessagesResolved = await tx.repos.resolveSignaled(repo);
    return { action: created ? 'added' : 'unchanged', repo, listsAttached, signaledMessagesResolved };
  });
}
