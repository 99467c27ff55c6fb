import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseCacheDir } from '../../../../src/core/config/cache-dir.js';
import { validateConfig } from '../../../../src/core/config/load-config.js';

describe('chooseCacheDir', () => {
  it('prefers LISTMINER_CACHE, then the config, then XDG_CACHE_HOME, then ~/.cache', () => {
    expect(chooseCacheDir({ cacheDir: '/cfg' }, { LISTMINER_CACHE: '/env', XDG_CACHE_HOME: '/xdg' })).toBe('/env');
    expect(chooseCacheDir({ cacheDir: '/cfg' }, { XDG_CACHE_HOME: '/xdg' })).toBe('/cfg');
    expect(chooseCacheDir({}, { XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/listminer');
    expect(chooseCacheDir({}, {})).toBe(join(homedir(), '.cache', 'listminer'));
  });

  it('reads cache_dir from the config file relative to the file', () => {
    expect(validateConfig('/etc/listminer/listminer.yaml', 'cache_dir: ./mirrors\n').value!.cacheDir).toBe(
      '/etc/listminer/mirrors',
    );
    expect(validateConfig('/x.yaml', 'cache_dir: 5\n').errors[0]!.message).toContain('cache_dir must be a folder path');
  });
});
