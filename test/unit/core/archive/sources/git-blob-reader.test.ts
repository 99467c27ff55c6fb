import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitBlobReader } from '../../../../../src/core/archive/sources/git-blob-reader.js';

describe('GitBlobReader', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-blob-'));
    execFileSync('git', ['init', '--quiet', '--bare', dir]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const store = (content: Buffer) =>
    execFileSync('git', ['--git-dir', dir, 'hash-object', '-w', '--stdin'], {
      input: content,
      encoding: 'utf8',
    }).trim();

  it('answers many requests in flight, in order, with the bytes intact', async () => {
    const blobs = [
      Buffer.alloc(3 * 1024 * 1024, 7),
      Buffer.from('small\n'),
      Buffer.from([0, 10, 13, 255, 10]),
      Buffer.alloc(0),
    ];
    const ids = blobs.map(store);
    const reader = new GitBlobReader(dir);
    const read = await Promise.all([...ids, ...ids].map((id) => reader.read(id)));
    expect(read.map((b) => b!.toString('hex'))).toEqual([...blobs, ...blobs].map((b) => b.toString('hex')));
    await reader.close();
  });

  it('answers undefined for an object the repository does not hold', async () => {
    const reader = new GitBlobReader(dir);
    const id = store(Buffer.from('x'));
    expect(await reader.read('0000000000000000000000000000000000000001')).toBeUndefined();
    expect(await reader.read(`${id}:m`)).toBeUndefined();
    expect((await reader.read(id))!.toString()).toBe('x');
    await reader.close();
  });

  it('rejects requests after the git process is gone', async () => {
    const reader = new GitBlobReader(dir);
    await reader.close();
    await expect(reader.read('HEAD')).rejects.toThrow(/git cat-file/);
  });
});
