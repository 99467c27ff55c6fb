/**
 * The archive backends listminer speaks, and how a list is named in each:
 * by its e-mail address, by its public-inbox name, by a local path, or by
 * its newsgroup name, or its group name on groups.io.
 */
export const BACKENDS = {
  apache_ponymail: { locator: 'address' },
  public_inbox: { locator: 'inbox' },
  pipermail: { locator: 'address' },
  hyperkitty: { locator: 'address' },
  mbox: { locator: 'path' },
  maildir: { locator: 'path' },
  nntp: { locator: 'newsgroup' },
  imap: { locator: 'address' },
  pop3: { locator: 'address' },
  groupsio: { locator: 'group' },
} as const satisfies Record<string, { locator: 'address' | 'inbox' | 'path' | 'newsgroup' | 'group' }>;

export type BackendName = keyof typeof BACKENDS;
export type ListLocator = (typeof BACKENDS)[BackendName]['locator'];

export function isBackendName(name: string): name is BackendName {
  return Object.hasOwn(BACKENDS, name);
}
