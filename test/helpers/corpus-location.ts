import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The shared real-mail corpus lives beside the project (../shared/corpus) and
 * is never copied into it. LISTMINER_CORPUS points elsewhere; `npm run corpus`
 * fetches it from its public sources into ./.corpus, writing SOURCES.md last,
 * when every file is there. The suites under test/corpus (`npm run test:corpus`)
 * read it and skip, saying why, when it is not there or (./.corpus) not yet
 * whole; every other suite reads only test/fixtures.
 */
const SHARED = fileURLToPath(new URL('../../../shared/corpus', import.meta.url));
const FETCHED = fileURLToPath(new URL('../../.corpus', import.meta.url));
/** LISTMINER_CORPUS, else the corpus beside the project, else the copy `npm run corpus` fetched. */
export const CORPUS_DIR =
  process.env.LISTMINER_CORPUS ?? (existsSync(SHARED) || !existsSync(FETCHED) ? SHARED : FETCHED);

/** Why the corpus at `dir` cannot be read, or undefined when it can. */
export function corpusMissingAt(dir: string, fetched = FETCHED): string | undefined {
  if (!existsSync(dir)) return `the mail corpus is not at ${dir}`;
  if (dir === fetched && !existsSync(join(dir, 'SOURCES.md')))
    return `the mail corpus at ${dir} is incomplete (no SOURCES.md): run \`npm run corpus\` again`;
  return undefined;
}
