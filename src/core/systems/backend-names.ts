/**
 * The archive backends listminer speaks, and how a list is named in each:
 * by its e-mail address, by its public-inbox name, or by a local path.
 */
export const BACKENDS = {
  apache_ponymail: { locator: 'address' },
  public_inbox: { locator: 'inbox' },
  pipermail: { locator: 'address' },
  hyperkitty: { locator: 'address' },
  mbox: { locator: 'path' },
  maildir: { locator: 'path' },
  imap: { locator: 'address' },
  pop3: { locator: 'address' },
} as const satisfies Record<string, { locator: 'address' | 'inbox' | 'path' }>;

export type BackendName = keyof typeof BACKENDS;
export type ListLocator = (typeof BACKENDS)[BackendName]['locator'];

export function isBackendName(name: string): name is BackendName {
  return Object.hasOwn(BACKENDS, name);
}
