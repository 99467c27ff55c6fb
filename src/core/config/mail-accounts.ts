import { isPlainObject } from './yaml-document.js';

/**
 * A login listminer uses for a host (an IMAP or POP3 mailbox, a news server,
 * groups.io with its API key as the password): the config
 * file's `mail_accounts` entries. The password is never printed; without one
 * here, LISTMINER_MAIL_PASSWORD is used.
 */
export interface MailAccount {
  /** The server's host name, as the mailbox URL names it. */
  host: string;
  /** The login; the mailbox URL's user, when it gives one, picks the account. */
  user?: string;
  password?: string;
  /** A PEM file of certificates to trust besides the system's (a self-signed server). */
  caFile?: string;
}

/** The environment variable that holds the password of an account the config file gives none for. */
export const MAIL_PASSWORD_ENV = 'LISTMINER_MAIL_PASSWORD';

const ACCOUNT_FIELDS = ['host', 'user', 'password', 'ca_file'] as const;

/** Why a `mail_accounts` value is wrong, or undefined. */
export function mailAccountsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be a list of accounts (host, user, password, ca_file)';
  for (const [index, entry] of value.entries()) {
    if (!isPlainObject(entry)) return `entry ${index + 1} must be a mapping (host, user, password, ca_file)`;
    const unknown = Object.keys(entry).find((key) => !(ACCOUNT_FIELDS as readonly string[]).includes(key));
    if (unknown) return `entry ${index + 1} has an unknown field "${unknown}" (known: ${ACCOUNT_FIELDS.join(', ')})`;
    if (typeof entry.host !== 'string' || !entry.host) return `entry ${index + 1} needs a host`;
    for (const field of ['user', 'password', 'ca_file'] as const) {
      if (entry[field] !== undefined && typeof entry[field] !== 'string')
        return `entry ${index + 1}: ${field} must be text`;
    }
  }
  return undefined;
}

/** The accounts of a checked `mail_accounts` value; `resolvePath` makes a ca_file relative to the config file absolute. */
export function readMailAccounts(value: unknown, resolvePath: (path: string) => string): MailAccount[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((entry: Record<string, string | undefined>) => ({
    host: entry.host!.toLowerCase(),
    user: entry.user,
    password: entry.password,
    caFile: entry.ca_file === undefined ? undefined : resolvePath(entry.ca_file),
  }));
}
