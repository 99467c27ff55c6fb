import { resolve } from 'node:path';

export const DEFAULT_DB = './listminer.db';

export type DbTarget = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** `postgres://` or `postgresql://` URLs open Postgres; anything else is a SQLite file path. */
export function parseDbTarget(value: string): DbTarget {
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  if (value === ':memory:') return { kind: 'sqlite', path: value };
  return { kind: 'sqlite', path: resolve(value) };
}

/** First of: the --db flag, LISTMINER_DB, the config file's database, the default. */
export function chooseDb(flag: string | undefined, env: NodeJS.ProcessEnv, configured: string | undefined): string {
  return flag || env.LISTMINER_DB || configured || DEFAULT_DB;
}

/** The URL with any password replaced, safe to print or log. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '*****';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:*****@');
  }
}

/** Removes anything that looks like a password in a database URL from free text. */
export function redactSecrets(text: string): string {
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]+):[^@\s]*@/gi, '$1:*****@');
}
