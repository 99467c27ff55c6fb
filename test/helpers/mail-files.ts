import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';

/** The mail the repository itself carries: test/fixtures. */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures', import.meta.url));

export function fixturePath(...parts: string[]): string {
  return join(FIXTURES_DIR, ...parts);
}

/** Every file under `root` (or one folder of it), as sorted paths relative to `root`. */
export function filesUnder(root: string, folder = ''): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  walk(join(root, folder));
  return out;
}

/** Every message of one mbox file, or the one message of a file that is not an mbox. */
export function messagesOf(path: string): Buffer[] {
  return splitMboxBuffer(readFileSync(path)).filter((raw) => raw.length > 0);
}

/** Every plain (not gzipped) mail file in test/fixtures, relative to it. */
export function fixtureMailFiles(folder = ''): string[] {
  return filesUnder(FIXTURES_DIR, folder).filter((path) => /\.(?:mbox|eml|txt)$/.test(path));
}

/** Every message of one fixture file. */
export function fixtureMessages(file: string): Buffer[] {
  return messagesOf(fixturePath(file));
}
