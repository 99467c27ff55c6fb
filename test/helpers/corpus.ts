import { join } from 'node:path';
import { CORPUS_DIR, corpusMissingAt } from './corpus-location.js';
import { filesUnder } from './mail-files.js';

/** Why the corpus cannot be read here (printed once), or undefined when it can. */
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
