import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMonths, monthOf } from '../../src/core/archive/month.js';
import { type ArchiveServer, send, startArchiveServer } from '../helpers/archive-server.js';
import { runCli } from '../helpers/cli.js';

const NOW_MONTH = monthOf(new Date());
/** The two months a `--months 2` fetch reads, oldest first. */
const MONTHS = [addMonths(NOW_MONTH, -1), NOW_MONTH];

function monthMbox(month: string): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < 20; i++) {
    parts.push(
      `From sender@example.org Mon Jan  1 00:00:00 2024\nFrom: Sender <sender@example.org>\nTo: dev@x.apache.org\n` +
        `Subject: message ${i} of ${month}\nDate: Mon, 10 Jan 2000 10:00:00 +0000\nMessage-ID: <${month}-${i}@example.org>\n\nbody ${i}\n\n`,
    );
  }
  return Buffer.from(parts.join(''));
}

describe('a SQLite file removed or replaced while a command has it open', () => {
  let dir: string;
  let server: ArchiveServer;
  /** What the archive does to the database file just before it serves the last month. */
  let beforeLastMonth: (path: string) => void = () => {};
  let dbPath: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-file-removed-'));
    server = await startArchiveServer((url, response) => {
      if (url.pathname === '/api/stats.lua')
        return send(
          response,
          200,
          JSON.stringify({ firstYear: 2010, firstMonth: 1, lastYear: 2026, lastMonth: 1, hits: 0, emails: [] }),
        );
      if (url.pathname !== '/api/mbox.lua') return send(response, 404, 'not found');
      const month = url.searchParams.get('date') ?? '';
      if (!MONTHS.includes(month)) return send(response, 404, 'no mail');
      if (month === MONTHS[1]) beforeLastMonth(dbPath);
      return send(response, 200, monthMbox(month));
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fetchWith = async (name: string, change: (path: string) => void) => {
    dbPath = join(dir, `${name}.db`);
    const env = { LISTMINER_CACHE: join(dir, 'cache') };
    const add = await runCli(
      ['lists', 'add', '--system', 'apache_ponymail', 'dev@x.apache.org', '--base-url', server.url, '--db', dbPath],
      { env },
    );
    expect(add.code, add.stderr).toBe(0);
    beforeLastMonth = change;
    try {
      return await runCli(['fetch', '--months', '2', '--db', dbPath], { env });
    } finally {
      beforeLastMonth = () => {};
    }
  };

  it('fetch stops with one sentence and exit 1 when its file is deleted mid-run', async () => {
    const run = await fetchWith('deleted', (path) => rmSync(path));
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`The SQLite database ${dbPath} was removed or replaced while listminer had it open`);
    expect(run.stderr).not.toMatch(/unexpected error/i);
  });

  it('fetch stops with one sentence and exit 1 when its file is replaced by another mid-run', async () => {
    const run = await fetchWith('replaced', (path) => {
      writeFileSync(`${path}.new`, '');
      renameSync(`${path}.new`, path);
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain('was removed or replaced while listminer had it open');
  });
});
