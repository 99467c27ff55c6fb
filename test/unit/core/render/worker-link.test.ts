import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkerLink } from '../../../../src/core/render/worker-link.js';

/** A worker that fails on 'fail' and makes a file on { touch } (it runs the built worker-link: npm run build). */
const WORKER = fileURLToPath(new URL('../../../fixtures/workers/touch-worker.mjs', import.meta.url));

type Request = 'fail' | { touch: string };

describe('a render thread (WorkerLink and serveRequests)', () => {
  let folder: string | undefined;
  let link: WorkerLink<Request, string> | undefined;

  afterEach(async () => {
    await link?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('answers a request sent after one that failed with that failure, and does not carry it out', async () => {
    // render sends its files without waiting, then the manifest: a file that could not be written
    // must not be followed by a manifest (test/e2e/render.test.ts, "a folder stands in place of a file").
    // The worker's own end is driven here, so its answer to the later request is awaited, not raced.
    folder = mkdtempSync(join(tmpdir(), 'listminer-link-'));
    const after = join(folder, 'after-the-failure');
    const worker = new Worker(WORKER);
    try {
      const answers = new Promise<Array<{ seq: number; error?: { message: string } }>>((resolve) => {
        const seen: Array<{ seq: number; error?: { message: string } }> = [];
        worker.on('message', (answer: { seq: number; error?: { message: string } }) => {
          seen.push(answer);
          if (seen.length === 2) resolve(seen);
        });
      });
      worker.postMessage({ seq: 1, request: 'fail' });
      worker.postMessage({ seq: 2, request: { touch: after } });
      const [first, second] = await answers;
      expect(first).toMatchObject({ seq: 1, error: { message: 'this request fails' } });
      expect(second).toMatchObject({ seq: 2, error: { message: 'this request fails' } });
      expect(existsSync(after)).toBe(false);
    } finally {
      await worker.terminate();
    }
  });

  it('fails every call after a failed request on the main thread too', async () => {
    folder = mkdtempSync(join(tmpdir(), 'listminer-link-'));
    link = WorkerLink.start<Request, string>(WORKER)!;
    link.post('fail');
    await expect(link.request({ touch: join(folder, 'later') })).rejects.toThrow('this request fails');
    expect(() => link!.post({ touch: join(folder!, 'later still') })).toThrow('this request fails');
  });

  it('carries out requests in order while none fails', async () => {
    folder = mkdtempSync(join(tmpdir(), 'listminer-link-'));
    link = WorkerLink.start<Request, string>(WORKER)!;
    const [first, second] = [join(folder, 'first'), join(folder, 'second')];
    link.post({ touch: first });
    expect(await link.request({ touch: second })).toBe(second);
    expect([existsSync(first), existsSync(second)]).toEqual([true, true]);
  });
});
