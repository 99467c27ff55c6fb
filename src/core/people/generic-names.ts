/**
 * Names no automatic rule trusts (docs/people.md): a name that many
 * mailboxes share says nothing about who wrote. A single word ("root",
 * "Jenkins", "Linus"), an address, a role, or a list's own name.
 */
const ROLE_WORDS = new Set([
  'root',
  'admin',
  'administrator',
  'jenkins',
  'buildbot',
  'bot',
  'robot',
  'daemon',
  'system',
  'team',
  'list',
  'lists',
  'project',
  'noreply',
  'no-reply',
  'user',
  'unknown',
  'anonymous',
  'support',
  'info',
  'developers',
  'maintainers',
  'mailer',
  'postmaster',
  'webmaster',
  'automation',
  'ci',
  'git',
  'svn',
  'notifications',
  'via',
]);

/** The spelling names are compared in: lower case, quotes dropped, blanks collapsed. */
export function comparableName(name: string): string {
  return name.normalize('NFC').replace(/["']/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** True when the name cannot tell people apart; `listNames` are the registered lists' names. */
export function isGenericName(name: string | null | undefined, listNames: readonly string[] = []): boolean {
  if (!name) return true;
  const comparable = comparableName(name);
  if (comparable.includes('@')) return true;
  const words = comparable.split(/[\s,]+/).filter(Boolean);
  if (words.length < 2) return true;
  if (words.some((word) => ROLE_WORDS.has(word))) return true;
  return listNames.some((list) => {
    const own = comparableName(list);
    return own.length > 0 && (comparable === own || comparable.includes(own));
  });
}
