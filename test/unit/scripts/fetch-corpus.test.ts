import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusMissingAt } from '../../helpers/corpus-location.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/fetch-corpus.mjs', import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run corpus', () => {
  const files: Record<string, string> = {
    '/acme/mail/0123abc/tests/a.mbox': 'From a\nSubject: a\n\nbody\n',
    '/acme/mail/0123abc/tests/deep/b.eml': 'Subject: b\n\nbody b\n',
    '/other/parser/v1.2/data/c.txt': 'Subject: c\n\nc\n',
  };
  const requests: string[] = [];
  let server: Server;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url!);
      const body = files[req.url!];
      res.writeHead(body === undefined ? 404 : 200).end(body);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dir = mkdtempSync(join(tmpdir(), 'listminer-corpus-'));
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const sources = (sizeOfC: number) => {
    const path = join(dir, `sources-${sizeOfC}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        sources: [
          {
            folder: 'mail',
            repository: 'acme/mail',
            ref: '0123abc',
            license: 'MIT',
            files: [
              { path: 'tests/a.mbox', size: 24 },
              { path: 'tests/deep/b.eml', size: 19 },
            ],
          },
          {
            folder: 'parser',
            repository: 'other/parser',
            ref: 'v1.2',
            license: 'Apache-2.0',
            files: [{ path: 'data/c.txt', size: sizeOfC }],
          },
        ],
      }),
    );
    return path;
  };

  it('fetches every listed file into its folder, then keeps what is there on a second run', async () => {
    const out = join(dir, 'good');
    const first = await run(['--sources', sources(14), '--base-url', base, '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('3 files fetched, 0 already present, 0 failed');
    expect(readFileSync(join(out, 'mail/tests/deep/b.eml'), 'utf8')).toBe(files['/acme/mail/0123abc/tests/deep/b.eml']);
    expect(readFileSync(join(out, 'SOURCES.md'), 'utf8')).toContain(
      '| parser/ | other/parser | v1.2 | Apache-2.0 | 1 |',
    );
    requests.length = 0;
    const second = await run(['--sources', sources(14), '--base-url', base, '--out', out]);
    expect(second.stdout).toContain('0 files fetched, 3 already present, 0 failed');
    expect(requests).toEqual([]);
  });

  it('refuses a file whose size is not the listed one, and fails the run', async () => {
    const out = join(dir, 'bad');
    const result = await run(['--sources', sources(99), '--base-url', base, '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('parser/data/c.txt: 14 bytes where the list says 99');
    expect(existsSync(join(out, 'parser/data/c.txt'))).toBe(false);
    expect(result.stdout).toContain('2 files fetched, 0 already present, 1 failed');
  });

  it('stops at the first file it cannot fetch, leaving no SOURCES.md, so the tests skip the corpus', async () => {
    const out = join(dir, 'stopped');
    const path = join(dir, 'sources-missing.json');
    const missing = Array.from({ length: 12 }, (_, i) => ({ path: `gone/${i}.mbox`, size: 10 }));
    writeFileSync(
      path,
      JSON.stringify({
        sources: [{ folder: 'gone', repository: 'acme/gone', ref: 'main', license: 'MIT', files: missing }],
      }),
    );
    requests.length = 0;
    const result = await run(['--sources', path, '--base-url', base, '--out', out]);
    expect(result.code).toBe(1);
    expect(requests.length).toBeLessThanOrEqual(4); // one per download worker, not one per file
    expect(existsSync(join(out, 'SOURCES.md'))).toBe(false);
    expect(result.stderr).toContain('LISTMINER_CORPUS=');
    expect(corpusMissingAt(out, out)).toBeDefined();
  });

  it('fails at once when the host cannot be reached, keeping the files it had', async () => {
    const out = join(dir, 'good');
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const port = (closed.address() as { port: number }).port;
    await new Promise((done) => closed.close(done));
    const result = await run(['--sources', sources(15), '--base-url', `http://127.0.0.1:${port}`, '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(result.stdout).toContain('1 failed');
    expect(existsSync(join(out, 'mail/tests/a.mbox'))).toBe(true);
    expect(existsSync(join(out, 'SOURCES.md'))).toBe(false);
    expect(corpusMissingAt(out, out)).toMatch(/incomplete/);
  });
});
