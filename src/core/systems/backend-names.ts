/**
 * The archive backends listminer speaks: how a list is named in each (by its
 * e-mail address, by its public-inbox name, by a local path, by its
 * newsgroup name, or by its group name on groups.io), and which URLs can be
 * a list's or a system's base URL, the schemes the backend reads (the secure
 * one first) with an example for hints. A backend that reads a local path
 * takes no base URL.
 */
export const BACKENDS = {
  apache_ponymail: { locator: 'address', schemes: ['https', 'http'], example: 'https://lists.apache.org' },
  public_inbox: { locator: 'inbox', schemes: ['https', 'http', 'file'], example: 'https://lore.kernel.org' },
  pipermail: { locator: 'address', schemes: ['https', 'http'], example: 'https://mail.example.org/pipermail' },
  hyperkitty: { locator: 'address', schemes: ['https', 'http'], example: 'https://lists.example.org/archives' },
  mbox: { locator: 'path', schemes: [] },
  maildir: { locator: 'path', schemes: [] },
  nntp: { locator: 'newsgroup', schemes: ['nntps', 'nntp'], example: 'nntps://HOST[:PORT]' },
  imap: { locator: 'address', schemes: ['imaps', 'imap'], example: 'imaps://USER@HOST/FOLDER' },
  pop3: { locator: 'address', schemes: ['pop3s', 'pop3'], example: 'pop3s://USER@HOST' },
  groupsio: { locator: 'group', schemes: ['https', 'http'], example: 'https://groups.io' },
} as const satisfies Record<
  string,
  { locator: 'address' | 'inbox' | 'path' | 'newsgroup' | 'group'; schemes: readonly string[]; example?: string }
>;

export type BackendName = keyof typeof BACKENDS;
export type ListLocator = (typeof BACKENDS)[BackendName]['locator'];

export function isBackendName(name: string): name is BackendName {
  return Object.hasOwn(BACKENDS, name);
}

/**
 * Why `url` cannot be a base URL of the system's lists (its backend reads
 * other schemes, or a local path), as a sentence; undefined when it can.
 * Every base URL is checked here: a list's (`lists add`, `lists discover`)
 * and a system's (systems.yaml).
 */
export function baseUrlProblem(system: { name: string; backend: BackendName }, url: string): string | undefined {
  const schemes: readonly string[] = BACKENDS[system.backend].schemes;
  if (schemes.length === 0) return `The ${system.name} system reads a local path, not a URL.`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/\S+$/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined && schemes.includes(scheme)) return undefined;
  const named = schemes.map((each) => `${each}://`);
  const choice = [named.slice(0, -1).join(', '), named.at(-1)].filter(Boolean).join(' or ');
  return `The ${system.name} system reads ${choice} URLs, not "${url}".`;
}
