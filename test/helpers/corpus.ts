import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder } from './mail-files.js';

/**
 * The shared real-mail corpus lives beside the project (../shared/corpus) and
 * is never copied into it. LISTMINER_CORPUS points elsewhere; `npm run corpus`
 * fetches it from its public sources into ./.corpus, writing SOURCES.md last,
 * when every file is there. Suites that need it skip, saying why, when it is
 * not there or (./.corpus) not yet whole.
 */
const SHARED = fileURLToPath(new URL('../../../shared/corpus', import.meta.url));
const FETCHED = fileURLToPath(new URL('../../.corpus', import.meta.url));
/** LISTMINER_CORPUS, else the corpus beside the project, else the copy `npm run corpus` fetched. */
export const CORPUS_DIR = process.env.LISTMINER_CORPUS ?? (existsSync(SHARED) || !existsSync(FETCHED) ? SHARED : FETCHED);

/** Why the corpus at `dir` cannot be read, or undefined when it can. */
export function corpusMissingAt(dir: string, fetched = FETCHED): string | undefined {
  if (!existsSync(dir)) return `the mail corpus is not at ${dir}`;
  if (dir === fetched && !existsSync(join(dir, 'SOURCES.md'))) return `the mail corpus at ${dir} is incomplete (no SOURCES.md): run \`npm run corpus\` again`;
  return undefined;
}

export const corpusMissing: string | undefined = corpusMissingAt(CORPUS_DIR);
if (corpusMissing) console.warn(`skipping corpus tests: ${corpusMissing}`);

export function corpusPath(...parts: string[]): string {
  return join(CORPUS_DIR, ...parts);
}

/** Every file under the corpus (or one folder of it), as paths relative to the corpus. */
export function corpusFiles(folder = ''): string[] {
  if (corpusMissing) return [];
  return filesUnder(CORPUS_DIR, folder);
}
