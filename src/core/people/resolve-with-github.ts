import { GitHubUsers } from '../github/github-users.js';
import type { Store } from '../store/store.js';
import { resolvePeople, type ResolveResult } from './resolve-people.js';

export interface ResolveSettings {
  /** GITHUB_TOKEN; without one the chain stops before the API. */
  token?: string;
  apiUrl?: string;
  contactEmail?: string;
  minMessages?: number;
  signal?: AbortSignal;
  onNotice?: (sentence: string) => void;
}

/** The resolution chain with GitHub's user and commit search as its last step, when a token is given. */
export function resolvePeopleWithGitHub(store: Store, settings: ResolveSettings): Promise<ResolveResult> {
  const users = settings.token
    ? new GitHubUsers({
        token: settings.token,
        apiUrl: settings.apiUrl,
        contactEmail: settings.contactEmail,
        signal: settings.signal,
      })
    : undefined;
  return resolvePeople(store, {
    lookupLogin: users && ((address) => users.userOf(address)),
    minMessages: settings.minMessages,
    onNotice: settings.onNotice,
    signal: settings.signal,
  });
}
