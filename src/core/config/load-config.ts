import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../errors.js';
import { DEFAULT_MAIL_TIMEOUT_MS } from '../net/mail-timeout.js';
import { mailAccountsProblem, readMailAccounts, type MailAccount } from './mail-accounts.js';
import { isNameList, isPlainObject, refuseProblems, YamlFile, type Problem, type Validation } from './yaml-document.js';

/** The most months --months and backfill_months take: a century reaches back before any mailing list. */
export const MAX_BACKFILL_MONTHS = 1200;

export const MIRROR_HANDLING = ['skip', 'metadata_only', 'full'] as const;
export type MirrorHandling = (typeof MIRROR_HANDLING)[number];

/** The user's settings file (YAML). Every field is optional. */
export interface Config {
  database?: string;
  /** Put into the User-Agent so archive operators can reach whoever runs listminer. */
  contactEmail?: string;
  mirrorHandling: MirrorHandling;
  cadenceDays: number;
  /** Months fetched for a list never scanned, unless full history is asked for. */
  backfillMonths?: number;
  workers: number;
  /** Where sources keep clones and caches between runs (public-inbox mirrors). */
  cacheDir?: string;
  /** A systems.yaml of the user's own instead of the bundled one. */
  systems?: string;
  /** A message larger than this is staged with its bytes but never parsed: it is shunted, its size the reason (docs/fetch.md). */
  maxMessageBytes: number;
  /** Per system, the classes `verify --strict` requires instead of the systems file's `expects` (docs/verify.md). */
  verifyExpects?: Record<string, string[]>;
  /** Senders with fewer messages are not looked up on GitHub by `people resolve` (docs/people.md). */
  githubMinMessages: number;
  /** Logins by host: imap and pop3 mailboxes, news servers, groups.io API keys (docs/archive-backends.md). */
  mailAccounts?: MailAccount[];
  /** How long an IMAP, POP3 or news server may stay silent before its connection counts as dropped. */
  mailTimeoutSeconds: number;
  /** Where the file was read from, when one was. */
  path?: string;
}

/** 64 MiB: far above real list mail, far below V8's 512 MB string limit, and parsing one costs some 8 times its size. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The longest mail_timeout_seconds: an hour of silence is no server at work. */
export const MAX_MAIL_TIMEOUT_SECONDS = 3600;

export const DEFAULT_CONFIG: Config = {
  mirrorHandling: 'metadata_only',
  cadenceDays: 30,
  workers: 2,
  maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
  githubMinMessages: 3,
  mailTimeoutSeconds: DEFAULT_MAIL_TIMEOUT_MS / 1000,
};

const FIELDS: Record<string, (value: unknown) => string | undefined> = {
  database: (v) => (typeof v === 'string' && v ? undefined : 'must be a file path or a postgres:// URL'),
  contact_email: (v) =>
    typeof v === 'string' && /^[^@\s]+@[^@\s]+$/.test(v) ? undefined : 'must be an e-mail address',
  mirror_handling: (v) =>
    MIRROR_HANDLING.includes(v as MirrorHandling) ? undefined : `must be one of ${MIRROR_HANDLING.join(', ')}`,
  cadence_days: (v) => (Number.isInteger(v) && (v as number) >= 0 ? undefined : 'must be a whole number of days'),
  backfill_months: (v) =>
    Number.isInteger(v) && (v as number) > 0 && (v as number) <= MAX_BACKFILL_MONTHS
      ? undefined
      : `must be a whole number of months from 1 to ${MAX_BACKFILL_MONTHS}`,
  workers: (v) => (Number.isInteger(v) && (v as number) > 0 && (v as number) <= 64 ? undefined : 'must be 1 to 64'),
  systems: (v) => (typeof v === 'string' && v ? undefined : 'must be the path of a systems.yaml'),
  cache_dir: (v) => (typeof v === 'string' && v ? undefined : 'must be a folder path'),
  verify_expects: (v) =>
    isPlainObject(v) && Object.values(v).every(isNameList)
      ? undefined
      : 'must map system names to lists of classes, e.g. { mbox: [patch_submission, review] }',
  github_min_messages: (v) =>
    Number.isInteger(v) && (v as number) >= 1 ? undefined : 'must be a whole number of messages, at least 1',
  mail_accounts: mailAccountsProblem,
  mail_timeout_seconds: (v) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_MAIL_TIMEOUT_SECONDS
      ? undefined
      : `must be a whole number of seconds from 1 to ${MAX_MAIL_TIMEOUT_SECONDS}`,
  max_message_bytes: (v) =>
    Number.isInteger(v) && (v as number) >= 1024 && (v as number) <= 256 * 1024 * 1024
      ? undefined
      : 'must be a whole number of bytes from 1024 to 268435456 (256 MiB)',
};

export function validateConfig(file: string, text: string): Validation<Config> {
  const yaml = new YamlFile(file, text);
  if (yaml.errors.length) return { errors: yaml.errors, warnings: [] };
  const data = yaml.data ?? {};
  if (!isPlainObject(data)) return { errors: [yaml.problem([], 'must be a mapping of settings')], warnings: [] };
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  for (const [key, value] of Object.entries(data)) {
    const check = FIELDS[key];
    if (!check) {
      warnings.push(
        yaml.problem([key], `unknown setting "${key}" is ignored (known: ${Object.keys(FIELDS).join(', ')})`),
      );
      continue;
    }
    const reason = check(value);
    if (reason) errors.push(yaml.problem([key], `${key} ${reason}`));
  }
  if (errors.length) return { errors, warnings };
  const value: Config = {
    ...DEFAULT_CONFIG,
    path: file,
    database: data.database as string | undefined,
    contactEmail: data.contact_email as string | undefined,
    mirrorHandling: (data.mirror_handling as MirrorHandling | undefined) ?? DEFAULT_CONFIG.mirrorHandling,
    cadenceDays: (data.cadence_days as number | undefined) ?? DEFAULT_CONFIG.cadenceDays,
    backfillMonths: data.backfill_months as number | undefined,
    workers: (data.workers as number | undefined) ?? DEFAULT_CONFIG.workers,
    systems: typeof data.systems === 'string' ? resolve(file, '..', data.systems) : undefined,
    cacheDir: typeof data.cache_dir === 'string' ? resolve(file, '..', data.cache_dir) : undefined,
    maxMessageBytes: (data.max_message_bytes as number | undefined) ?? DEFAULT_MAX_MESSAGE_BYTES,
    verifyExpects: data.verify_expects as Record<string, string[]> | undefined,
    githubMinMessages: (data.github_min_messages as number | undefined) ?? DEFAULT_CONFIG.githubMinMessages,
    mailAccounts: readMailAccounts(data.mail_accounts, (path) => resolve(file, '..', path)),
    mailTimeoutSeconds: (data.mail_timeout_seconds as number | undefined) ?? DEFAULT_CONFIG.mailTimeoutSeconds,
  };
  return { value, errors, warnings };
}

/**
 * The --config file, else LISTMINER_CONFIG, else ./listminer.yaml when it
 * exists, else the defaults. A file that was named but is missing or wrong
 * is refused: silently running with other settings would surprise more.
 */
export function loadConfig(flag: string | undefined, env: NodeJS.ProcessEnv): { config: Config; warnings: Problem[] } {
  const named = flag || env.LISTMINER_CONFIG;
  const path = named ? resolve(named) : resolve('listminer.yaml');
  if (!existsSync(path)) {
    if (named)
      throw new InputError(`The config file ${path} does not exist.`, 'Check the --config path or LISTMINER_CONFIG.');
    return { config: { ...DEFAULT_CONFIG }, warnings: [] };
  }
  if (statSync(path).isDirectory())
    throw new InputError(
      `The config file ${path} is a folder, not a YAML file.`,
      'Give --config (or LISTMINER_CONFIG) the path of a listminer.yaml file.',
    );
  const result = validateConfig(path, readFileSync(path, 'utf8'));
  if (!result.value) {
    refuseProblems(result.errors, 'Fix the config file; see the README section "Configuration".');
  }
  return { config: result.value, warnings: result.warnings };
}
