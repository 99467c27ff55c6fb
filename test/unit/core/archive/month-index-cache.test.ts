import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readMonthIndex, writeMonthIndex } from '../../../../src/core/archive/month-index-cache.js';

describe('month index cache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-month-index-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back an index for the stamp it was written for only', async () => {
    await writeMonthIndex(dir, 'mbox-months', '/a.mbox', 'v1:10', { months: 3 });
    expect(await readMonthIndex(dir, 'mbox-months', '/a.mbox', 'v1:10')).toEqual({ months: 3 });
    expect(await readMonthIndex(dir, 'mbox-months', '/a.mbox', 'v1:11')).toBeUndefined();
  });

  it('leaves an index it cannot write uncached, without failing the read it speeds up', async () => {
    // A cache folder that cannot be made (its parent is a file), as a full or read-only disk refuses a write.
    const blocked = join(dir, 'file');
    writeFileSync(blocked, '');
    await expect(writeMonthIndex(join(blocked, 'cache'), 'mbox-months', '/a.mbox', 'v1:10', {})).resolves.toBe(false);
    expect(await readMonthIndex(join(blocked, 'cache'), 'mbox-months', '/a.mbox', 'v1:10')).toBeUndefined();
    expect(readdirSync(dir)).toEqual(['file']);
  });
});
