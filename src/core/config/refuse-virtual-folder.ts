import { realpathSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';

/** Kernel filesystems: writes there never fill a file, and a read may never end. */
const VIRTUAL_ROOTS = ['/proc', '/sys'];

/**
 * Refuses a folder listminer would write into when it lies on /proc or /sys
 * (a link to them included): making folders and files there fails in ways no
 * retry mends, and some of their files never end when read.
 */
export function refuseVirtualFolder(path: string, what: string): void {
  const real = realExistingPart(resolve(path));
  const root = VIRTUAL_ROOTS.find((dir) => real === dir || real.startsWith(`${dir}${sep}`));
  if (root)
    throw new InputError(
      `${what} ${path} is under ${root}, a kernel filesystem listminer cannot write files into.`,
      `Choose a folder on a disk, for example under ${process.cwd()}.`,
    );
}

/** The path with its longest existing prefix resolved through links. */
function realExistingPart(path: string): string {
  for (let current = path; ;) {
    try {
      return realpathSync(current) + path.slice(current.length);
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      current = parent;
    }
  }
}
