import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { runCliMeasured } from '../helpers/start-cli.js';

/** The cap the test's config sets, small so the test stays fast. */
const CAP = 1024 * 1024;
/** A message far over the cap: parsing it would cost several times its size. */
const GIANT = 48 * 1024 * 1024;
/**
 * Peak RSS allowed: the README's bound for every stage on hostile input; fetch
 * must hold the giant message, classify and drain never read it (parsing it
 * took classify to 500 MB, against some 150 MB without).
 */
const MEMORY_LIMIT_MB: Record<string, number> = { fetch: 500, classify: 250, drain: 250, lists: 250, verify: 250 };

/** A message of about `size` bytes (mbox framing aside), its body plain lines. */
function message(id: string, size: number): string {
  const head = `From: Jane <jane@example.org>\nDate: Mon, 6 Mar 2023 10:00:00 +0000\nMessage-ID: <${id}@example.org>\nSubject: ${id}\n\n`;
  const line = 'x'.repeat(75) + '\n';
  const lines = Math.max(1, Math.ceil((size - head.length) / line.length));
  return `From jane@example.org Mon Mar  6 10:00:00 2023\n${head}${line.repeat(lines)}\n`;
}

interface Row {
  message_id: string;
  status: string;
  size: number;
  error: string | null;
}

describeOnDialectDatabases('messages over max_message_bytes on $dialect', (databases) => {
  let dir: string;
  let db: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-huge-'));
    db = await databases.create();
    writeFileSync(join(dir, 'listminer.yaml'), `max_message_bytes: ${CAP}\n`);
    writeFileSync(
      join(dir, 'huge.mbox'),
      [
        message('first', 2000),
        message('just-under', CAP - 4096),
        message('just-over', CAP + 100),
        message('giant', GIANT),
        message('last', 2000),
      ].join(''),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = async (args: string[]) => {
    const exit = await runCliMeasured([...args, '--db', db.url, '--json'], {
      env: { LISTMINER_CONFIG: join(dir, 'listminer.yaml'), LISTMINER_CACHE: join(dir, 'cache') },
    });
    const peakMb = Math.round(exit.peakRssBytes / 1024 / 1024);
    console.log(`huge messages on ${databases.dialect}: ${args.join(' ')}: exit ${exit.code}, peak ${peakMb} MB`);
    expect(exit.code, exit.stderr).toBe(0);
    expect(peakMb, `${args[0]} peak memory (MB)`).toBeLessThanOrEqual(MEMORY_LIMIT_MB[args[0]!]!);
    return JSON.parse(exit.stdout) as Record<string, unknown>;
  };

  it('stages every message, shunts the ones over the cap unparsed with their size as the reason, drains the others', async () => {
    const list = join(dir, 'huge.mbox');
    await run([
      'lists',
      'add',
      '--system',
      'mbox',
      list,
      '--rules',
      'public_inbox',
      '--repo',
      'https://github.com/example/huge',
    ]);
    const fetched = (await run(['fetch', '--full'])) as { lists: Array<{ tooLarge: number }> };
    expect(fetched).toMatchObject({ totals: { staged: 5, tooLarge: 2, failed: 0 } });
    expect(fetched.lists.map((l) => l.tooLarge)).toEqual([2]);
    expect(await run(['classify'])).toMatchObject({ classified: 3 });
    expect(await run(['drain'])).toMatchObject({ drained: 3, shunted: 0 });

    const rows = await queryAt<Row>(db.url, 'SELECT message_id, status, size, error FROM staged_messages ORDER BY id');
    expect(rows.map((r) => [r.message_id, r.status])).toEqual([
      ['first@example.org', 'drained'],
      ['just-under@example.org', 'drained'],
      ['just-over@example.org', 'shunted'],
      ['giant@example.org', 'shunted'],
      ['last@example.org', 'drained'],
    ]);
    for (const row of rows.filter((r) => r.status === 'shunted')) {
      expect(Number(row.size)).toBeGreaterThan(CAP);
      expect(row.error).toBe(
        `too large to parse: ${row.size} bytes, over max_message_bytes (${CAP}); its raw bytes are kept`,
      );
    }
    // Rule 1: the bytes are kept.
    const raws = await queryAt<{ n: number }>(db.url, 'SELECT COUNT(*) AS n FROM staged_message_raws');
    expect(Number(raws[0]!.n)).toBe(5);
    // The store's invariants hold (coverage of classes is another matter: five messages cover few).
    const verify = (await run(['verify'])) as { invariants: Array<{ name: string; ok: boolean }> };
    expect(verify.invariants.filter((invariant) => !invariant.ok)).toEqual([]);
  });

  it('says how many it staged shunted, in fetch and in sync, and not again once stored', async () => {
    const other = await databases.create();
    const cli = (args: string[]) =>
      runCliMeasured([...args, '--db', other.url], {
        env: { LISTMINER_CONFIG: join(dir, 'listminer.yaml'), LISTMINER_CACHE: join(dir, 'cache-sync') },
      });
    const list = join(dir, 'huge.mbox');
    expect(
      (await cli(['lists', 'add', '--system', 'mbox', list, '--repo', 'https://github.com/example/huge'])).code,
    ).toBe(0);
    const synced = await cli(['sync', '--now', '--full']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(/5 staged \(2 shunted unparsed, over max_message_bytes\), 0 already stored/);
    const again = await cli(['fetch', '--now', '--full']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr + again.stdout).toMatch(/0 staged, 5 already stored/);
  });

  it('leaves them shunted, still unparsed, when shunted mail is retried', async () => {
    expect(await run(['classify', '--retry-shunted'])).toMatchObject({ classified: 0, shunted: 2 });
    const rows = await queryAt<Row>(
      db.url,
      "SELECT message_id, status, size, error FROM staged_messages WHERE status = 'shunted' ORDER BY id",
    );
    expect(rows.map((r) => r.message_id)).toEqual(['just-over@example.org', 'giant@example.org']);
  });
});
