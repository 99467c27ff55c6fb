import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Config } from './load-config.js';
import { refuseVirtualFolder } from './refuse-virtual-folder.js';

/**
 * The folder sources keep clones in: LISTMINER_CACHE, else the config's
 * cache_dir, else $XDG_CACHE_HOME/listminer, else ~/.cache/listminer. It is
 * per machine, not per database: several databases reading one inbox share
 * its mirror, and a Postgres database fetched from several machines has a
 * mirror on each.
 */
export function chooseCacheDir(config: Pick<Config, 'cacheDir'>, env: NodeJS.ProcessEnv): string {
  const dir = env.LISTMINER_CACHE
    ? resolve(env.LISTMINER_CACHE)
    : config.cacheDir
      ? config.cacheDir
      : join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'listminer');
  refuseVirtualFolder(dir, 'The cache folder');
  return dir;
}
