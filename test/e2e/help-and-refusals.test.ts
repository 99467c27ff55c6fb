import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('help, typos and refused commands', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-help-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("shows a command's help with `help COMMAND`, topics included", async () => {
    const sync = await runCli(['help', 'sync'], { cwd: dir });
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stdout).toContain('$ listminer sync');
    const add = await runCli(['help', 'lists', 'add'], { cwd: dir });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('$ listminer lists add');
  });

  it.each([
    ['statz', 'listminer stats'],
    ['lists ad', 'listminer lists add'],
    ['list ls', 'listminer lists ls'],
  ])('answers the typo `%s` with "did you mean `%s`", exit 2, and runs nothing', async (typed, meant) => {
    const result = await runCli(typed.split(' '), { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Did you mean \`${meant}\`?`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('runs the compiled commands under NODE_ENV=development or test, never looking for a TypeScript loader', async () => {
    const stores = mkdtempSync(join(tmpdir(), 'listminer-node-env-'));
    onTestFinished(() => rmSync(stores, { recursive: true, force: true }));
    for (const NODE_ENV of ['development', 'test']) {
      // oclif names each step of finding a command's file under DEBUG; looking for a loader cost half a second a command.
      const run = await runCli(['lists', 'ls', '--db', join(stores, `${NODE_ENV}.db`)], {
        env: { NODE_ENV, DEBUG: 'oclif:config:ts-path' },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('enableAutoTranspile is explicitly set to false');
      expect(run.stderr).not.toMatch(/registering (tsx|ts-node)/);
    }
  });

  it('names a missing flag with its dashes', async () => {
    const result = await runCli(['export', '--format', 'csv'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Missing required flag --out');
  });

  it('lists the bundled systems in `lists add --help`', async () => {
    const result = await runCli(['lists', 'add', '--help'], { cwd: dir });
    for (const system of ['apache_ponymail', 'public_inbox', 'pipermail', 'hyperkitty', 'mbox', 'maildir'])
      expect(result.stdout).toContain(`${system}:`);
  });

  it('draws the usage of `repos import` as the ways it can be called', async () => {
    const result = await runCli(['repos', 'import', '--help'], { cwd: dir });
    expect(result.stdout).toContain('$ listminer repos import REPO --issues FILE [--pulls FILE]');
    expect(result.stdout).toContain('$ listminer repos import REPO --github [--api-url URL]');
    expect(result.stdout).not.toMatch(/\| \]/);
  });

  it.each([
    ['an unknown system', ['lists', 'add', '--system', 'nosuch', 'dev@example.org']],
    ['a missing archive', ['sync', 'no-such.mbox']],
    ['an unknown list', ['stats', '--list', 'nope']],
  ])('leaves no database behind when it refuses %s', async (_, args) => {
    const result = await runCli(args, { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses a folder given as --db with exit 2, as it does a missing folder', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    const result = await runCli(['stats', '--db', folder], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is a folder, not a database file');
    const missing = await runCli(['stats', '--db', join(dir, 'nope', 'x.db')], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(existsSync(join(dir, 'nope'))).toBe(false);
    rmSync(folder, { recursive: true });
  });
});
