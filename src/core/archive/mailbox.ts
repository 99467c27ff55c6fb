import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MAIL_PASSWORD_ENV } from '../config/mail-accounts.js';
import { ArchiveError } from '../errors.js';
import type { Month, SourceContext } from './archive-source.js';
import { messageMonth } from './message-month.js';
import { readMonthIndex, writeMonthIndex } from './month-index-cache.js';
import { firstField, readHeaderBlock } from './raw-headers.js';

/** Where a mailbox is and how to log in: from the list's base URL and the config's mail_accounts. */
export interface Mailbox {
  protocol: 'imap' | 'pop3';
  /** TLS from the first byte (imaps://, pop3s://); plain only when the URL says imap:// or pop3://. */
  secure: boolean;
  host: string;
  port: number;
  user: string;
  password: string;
  /** The IMAP folder (INBOX unless the URL names one); POP3 has only the maildrop. */
  folder: string;
  /** Extra certificates to trust (the account's ca_file). */
  ca?: Buffer;
  /** The URL without anything secret, for messages and cache keys. */
  label: string;
}

const DEFAULT_PORTS = { imap: 143, imaps: 993, pop3: 110, pop3s: 995 } as const;

/**
 * The mailbox a list of an imap or pop3 system is read from: the list's
 * base URL, else the system's — `imaps://[user@]host[:port]/[folder]` or
 * `pop3s://[user@]host[:port]`, and `imap://`/`pop3://` for plain text. The
 * password comes from the config's mail_accounts entry for the host (and
 * user), else from LISTMINER_MAIL_PASSWORD; never from the URL, which is
 * stored and shown.
 */
export function openMailbox(
  context: SourceContext,
  protocol: Mailbox['protocol'],
  env: NodeJS.ProcessEnv = process.env,
): Mailbox {
  const text = context.baseUrl;
  if (!text) {
    throw new ArchiveError(`The list ${context.list.name} has no mailbox URL.`, 'permanent');
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ArchiveError(`"${text}" is not a mailbox URL (${protocol}s://user@host/folder).`, 'permanent');
  }
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  if (scheme !== protocol && scheme !== `${protocol}s`) {
    throw new ArchiveError(
      `The ${context.system.name} system reads ${protocol}s:// (or plain ${protocol}://) mailboxes, not ${scheme}://.`,
      'permanent',
    );
  }
  if (url.password) {
    throw new ArchiveError(
      `The mailbox URL of ${context.list.name} holds a password; put it in the config file's mail_accounts or ${MAIL_PASSWORD_ENV} instead.`,
      'permanent',
    );
  }
  const host = url.hostname.toLowerCase();
  const urlUser = url.username ? decodeURIComponent(url.username) : undefined;
  const account = context.mailAccounts?.find(
    (entry) => entry.host === host && (urlUser === undefined || entry.user === undefined || entry.user === urlUser),
  );
  const user = urlUser ?? account?.user;
  const label = `${scheme}://${user ? `${encodeURIComponent(user)}@` : ''}${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  if (!user)
    throw new ArchiveError(
      `No login for ${label}: name the user in the URL or in the config file's mail_accounts.`,
      'permanent',
    );
  const password = account?.password ?? env[MAIL_PASSWORD_ENV];
  if (!password)
    throw new ArchiveError(
      `No password for ${label}: give it in the config file's mail_accounts or in ${MAIL_PASSWORD_ENV}.`,
      'permanent',
    );
  let ca: Buffer | undefined;
  if (account?.caFile) {
    try {
      ca = readFileSync(account.caFile);
    } catch (error) {
      throw new ArchiveError(
        `The ca_file ${account.caFile} for ${host} cannot be read (${(error as Error).message}).`,
        'permanent',
      );
    }
  }
  const folder = decodeURIComponent(url.pathname.replace(/^\/+/, '')) || 'INBOX';
  return {
    protocol,
    secure: scheme.endsWith('s'),
    host,
    port: url.port ? Number(url.port) : DEFAULT_PORTS[scheme as keyof typeof DEFAULT_PORTS],
    user,
    password,
    folder,
    ca,
    label,
  };
}

/** A connection failure, a timeout, a server that hung up: the month is read again next time. Not a login refused. */
export function mailboxError(mailbox: Mailbox, error: unknown, doing: string): ArchiveError {
  if (error instanceof ArchiveError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const refused = /auth|login|credentials|password/i.test(message) && !/temporar/i.test(message);
  return new ArchiveError(`${mailbox.label}: ${doing} failed: ${message}`, refused ? 'permanent' : 'transient');
}

/** What the header fields of one message of the mailbox tell: its month and its List-Id. */
export type MessageFacts = [month: Month, listId: string | null];

/** Reads the Date and List-Id of a header block (the bytes up to the blank line); `fallback` is the month without a usable Date. */
export function messageFacts(headers: Buffer, fallback: Month): MessageFacts {
  const block = readHeaderBlock(Buffer.concat([headers, Buffer.from('\r\n\r\n')]));
  return [messageMonth(block, fallback), listIdOf(firstField(block, 'list-id'))];
}

/** `Kafka Dev <dev.kafka.apache.org>` → dev.kafka.apache.org. */
export function listIdOf(field: string | undefined): string | null {
  if (!field) return null;
  const id = /<([^<>]+)>/.exec(field)?.[1] ?? field;
  return id.trim().toLowerCase() || null;
}

/** The list's messages of a mailbox, by month, and each month's fingerprint. */
export interface MailboxMonths {
  /** Month → the mailbox's names of the list's messages (IMAP UIDs, POP3 UIDLs), in mailbox order. */
  months: Map<Month, string[]>;
  fingerprints: Map<Month, string>;
}

/**
 * The facts of every message of a mailbox, remembered in the source cache
 * folder by the mailbox's own names for its messages: a run asks the server
 * for the headers of new messages only. `generation` is the UIDVALIDITY
 * (IMAP): when it changes every name means something else, and all is read
 * anew.
 */
export async function mailboxMonths(
  context: SourceContext,
  mailbox: Mailbox,
  generation: string,
  names: readonly string[],
  readFacts: (names: string[]) => Promise<Map<string, MessageFacts>>,
): Promise<MailboxMonths> {
  const kind = `${mailbox.protocol}-headers`;
  const cached =
    (await readMonthIndex<Record<string, MessageFacts>>(context.cacheDir, kind, mailbox.label, generation)) ?? {};
  const missing = names.filter((name) => !Object.hasOwn(cached, name));
  const read = missing.length ? await readFacts(missing) : new Map<string, MessageFacts>();
  const facts: Record<string, MessageFacts> = {};
  for (const name of names) {
    const known = cached[name] ?? read.get(name);
    if (known) facts[name] = known;
  }
  if (missing.length || Object.keys(cached).length !== Object.keys(facts).length)
    await writeMonthIndex(context.cacheDir, kind, mailbox.label, generation, facts);
  const wanted = context.list.listId?.toLowerCase() ?? null;
  const months = new Map<Month, string[]>();
  for (const name of names) {
    const fact = facts[name];
    if (!fact || (wanted !== null && fact[1] !== wanted)) continue;
    const list = months.get(fact[0]) ?? [];
    list.push(name);
    months.set(fact[0], list);
  }
  const fingerprints = new Map<Month, string>();
  for (const [month, list] of months) {
    fingerprints.set(
      month,
      createHash('sha256')
        .update(`${generation}\n${[...list].sort().join('\n')}`)
        .digest('hex'),
    );
  }
  return { months, fingerprints };
}

/** A mailbox's index, read once on first use (`forget` when the source closes). */
export interface BuiltOnce<T> {
  (context: SourceContext): Promise<T>;
  forget(): void;
}

/** Builds on first use and keeps the result; a build that failed is forgotten, so the next call builds again instead of failing for good. */
export function builtOnce<T>(build: (context: SourceContext) => Promise<T>): BuiltOnce<T> {
  let built: Promise<T> | undefined;
  const get = (context: SourceContext): Promise<T> => {
    if (!built) {
      const attempt = build(context);
      built = attempt;
      attempt.catch(() => {
        if (built === attempt) built = undefined;
      });
    }
    return built;
  };
  return Object.assign(get, { forget: () => (built = undefined) });
}
