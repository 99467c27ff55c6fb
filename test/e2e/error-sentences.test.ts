import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli, runCliJson } from '../helpers/cli.js';

const MBOX = fileURLToPath(new URL('../fixtures/report/dev.mbox', import.meta.url));

/** One sentence and a hint, never the crash report of a bug. */
function expectSentence(run: CliResult, code: number, words: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr).toMatch(words);
  expect(run.stderr).not.toMatch(/unexpected error|report it/i);
  expect(run.stderr.split('\n').filter((line) => line.startsWith('Error: '))).toHaveLength(1);
}

describe('errors of the user and of the machine are one sentence with the right exit code', () => {
  let dir: string;
  let db: string;
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli([...args, '--db', db], { env, cwd: dir });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-sentences-'));
    db = join(dir, 'store.db');
    for (const stage of [['lists', 'add', '--system', 'mbox', MBOX], ['fetch', '--full'], ['classify'], ['drain']]) {
      const run = await cli(stage, { LISTMINER_CACHE: join(dir, 'cache') });
      expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('export --out naming a file, not a folder: exit 2', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    expectSentence(await cli(['export', '--out', file]), 2, /--out .*a-file is not a folder/);
    expectSentence(await cli(['export', '--out', join(file, 'below')]), 2, /is not a folder/);
  });

  it("export whose table file's path is taken by a folder: exit 2", async () => {
    const out = join(dir, 'out-with-folder');
    mkdirSync(join(out, 'email_messages.jsonl'), { recursive: true });
    expectSentence(await cli(['export', '--out', out, '--format', 'jsonl']), 2, /a folder stands where a file goes/);
  });

  it('export --out and the cache folder under /proc are refused at once: exit 2', async () => {
    expectSentence(
      await cli(['export', '--out', '/proc/self/listminer-out']),
      2,
      /--out \/proc\/self\/listminer-out is under \/proc, a kernel filesystem/,
    );
    expectSentence(
      await cli(['fetch', '--full'], { LISTMINER_CACHE: '/proc/listminer-cache' }),
      2,
      /The cache folder \/proc\/listminer-cache is under \/proc/,
    );
    const config = join(dir, 'proc-cache.yaml');
    writeFileSync(config, 'cache_dir: /sys/listminer\n');
    expectSentence(
      await cli(['fetch', '--full', '--config', config]),
      2,
      /The cache folder \/sys\/listminer is under \/sys/,
    );
  });

  it('a folder given as --config: exit 2', async () => {
    expectSentence(await cli(['stats', '--config', dir]), 2, /The config file .* is a folder, not a YAML file/);
  });

  it('a YAML alias bomb as --config: exit 2, naming the file', async () => {
    const bomb = join(dir, 'bomb.yaml');
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (const [name, prev] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
      ['g', 'f'],
    ])
      lines.push(`${name}: &${name} [${new Array(9).fill(`*${prev}`).join(',')}]`);
    writeFileSync(bomb, `${lines.join('\n')}\n`);
    expectSentence(await cli(['stats', '--config', bomb]), 2, /bomb\.yaml.*aliases/);
  });

  it('people import-mailmap of a missing file, a folder or an endless device: exit 2, one sentence, no store left behind', async () => {
    const fresh = join(dir, 'never-made.db');
    const mailmap = (file: string) => runCli(['people', 'import-mailmap', file, '--db', fresh], { timeoutMs: 30_000 });
    expectSentence(
      await mailmap(join(dir, 'missing.mailmap')),
      2,
      /Cannot read .*missing\.mailmap: there is no such file/,
    );
    expectSentence(await mailmap(dir), 2, /Cannot read .*: it is a directory/);
    expectSentence(await mailmap('/dev/zero'), 2, /Cannot read \/dev\/zero: it holds more than \d+ MiB/);
    expect(existsSync(fresh)).toBe(false);
  });

  it('the store itself given as the archive of sync or lists add: exit 2, one sentence, nothing registered', async () => {
    const listsBefore = (await runCliJson<{ lists: unknown[] }>(['lists', 'ls', '--db', db])).json.lists;
    const refused = new RegExp(
      `^Error: ${db.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is the database itself, not a mail archive\\.`,
    );
    expectSentence(await runCli(['sync', db, '--db', db], { cwd: dir }), 2, refused);
    expectSentence(await cli(['lists', 'add', '--system', 'mbox', db]), 2, refused);
    expectSentence(await cli(['lists', 'add', '--system', 'maildir', db]), 2, refused);
    // Reached by another name: a symbolic link to the store, a relative path.
    const link = join(dir, 'store-link.db');
    symlinkSync(db, link);
    expectSentence(await cli(['sync', link]), 2, /is the database itself, not a mail archive/);
    expectSentence(await runCli(['sync', 'store.db', '--db', db], { cwd: dir }), 2, refused);
    expect((await runCliJson<{ lists: unknown[] }>(['lists', 'ls', '--db', db])).json.lists).toEqual(listsBefore);
    // A store the command would make, named as its own archive: refused, and no file left behind.
    const fresh = join(dir, 'fresh.db');
    expectSentence(await runCli(['sync', fresh, '--db', fresh], { cwd: dir }), 2, /is the database itself/);
    expect(existsSync(fresh)).toBe(false);
  });

  it('a non-integer argument is a usage error naming what was given, also under --json', async () => {
    for (const given of ['abc', '1e3', '1.5'])
      expectSentence(await cli(['people', 'unmerge', given]), 2, new RegExp(`integer.*${given}`));
    const json = await runCliJson<{ error: { message: string; exitCode: number } }>([
      'people',
      'unmerge',
      'abc',
      '--db',
      db,
    ]);
    expect(json.code).toBe(2);
    expect(json.json.error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/abc/) });
  });

  it('an integer flag past its largest value is a usage error naming the flag and the bound', async () => {
    const huge = '99999999999999999999';
    const refused: string[][] = [
      ['people', 'ls', '--limit', huge],
      ['stats', '--unresolved', huge],
      ['fetch', '--months', huge],
      ['sync', '--months', huge],
      ['classify', '--match-budget', huge],
      ['sync', '--match-budget', huge],
    ];
    for (const args of refused) {
      const flag = args.find((arg) => arg.startsWith('--'))!;
      expectSentence(await cli(args), 2, new RegExp(`Parsing ${flag}; Expected an integer less than or equal to \\d+`));
    }
  });

  it('a store timeout out of range is refused naming the variable and the range, before any database is opened', async () => {
    const pg = 'postgres://nobody@127.0.0.1:1/never';
    for (const [name, value, url] of [
      ['LISTMINER_PG_QUERY_TIMEOUT', '3000000', pg],
      ['LISTMINER_PG_CONNECT_TIMEOUT', '3000000', pg],
      ['LISTMINER_PG_QUERY_TIMEOUT', '-1', pg],
      ['LISTMINER_SQLITE_BUSY_TIMEOUT', '1e99', db],
      ['LISTMINER_SQLITE_BUSY_TIMEOUT', 'soon', db],
    ] as const) {
      const run = await runCli(['lists', 'ls', '--db', url], { env: { [name]: value } });
      expectSentence(run, 2, new RegExp(`${name}=${value} .*from [\\d.]+ to [\\d,]+ seconds`));
      expect(run.stderr).not.toMatch(/TimeoutOverflowWarning/);
    }
  });
});
