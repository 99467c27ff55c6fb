import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { monthsBetween } from '../../../../../src/core/archive/month.js';
import { openArchiveSource } from '../../../../../src/core/archive/open-source.js';
import { createSource } from '../../../../../src/core/archive/sources/mbox-files.js';
import { collectAllMonths, collectMessages, sourceContext } from '../../../../helpers/archive-context.js';
import { fixtureMessages, fixturePath } from '../../../../helpers/mail-files.js';

const message = (id: string, date?: string, from = `From ${id}@example.org Mon Jan  1 00:00:00 2001`) =>
  `${from}\nFrom: ${id}@example.org\n${date ? `Date: ${date}\n` : ''}Message-ID: <${id}@example.org>\nSubject: ${id}\n\nbody of ${id}\nFrom what I hear, 10:30 in 2024 is fine.\n\n`;

/** Message ids each month should give, read back from what a month's fetch yields. */
async function idsByMonth(path: string, months: string[], cacheDir?: string) {
  const source = createSource();
  const context = sourceContext('mbox', path);
  if (cacheDir) context.cacheDir = cacheDir;
  const out: Record<string, string[]> = {};
  for (const month of months) {
    const messages = await collectMessages(source.fetchMonth(context, month));
    if (messages.length) out[month] = messages.map((m) => /Message-ID: <([^@]+)@/.exec(m.raw.toString())![1]!);
  }
  return out;
}

describe('mbox source', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'listminer-mbox-'));
    writeFileSync(
      join(folder, 'a.mbox'),
      message('jan1', 'Mon, 08 Jan 2024 10:00:00 +0000') +
        message('jan2', 'Tue, 09 Jan 2024 10:00:00 +0000 (UTC)') +
        message('feb1', 'Thu, 01 Feb 2024 10:00:00 +0000') +
        message('jan3', 'Wed, 31 Jan 2024 23:30:00 -0100') +
        message('fromline', undefined, 'From someone@example.org Sat Mar  2 08:00:00 2024') +
        message('nodate', undefined, 'From someone@example.org Thu Jan  1 00:00:00 1970'),
    );
    utimesSync(join(folder, 'a.mbox'), new Date('2023-12-05T00:00:00Z'), new Date('2023-12-05T00:00:00Z'));
    writeFileSync(
      join(folder, 'b.mbox.gz'),
      gzipSync(
        message('gzfeb', 'Fri, 02 Feb 2024 10:00:00 +0000') + message('gzmar', 'Fri, 01 Mar 2024 10:00:00 +0000'),
      ),
    );
    writeFileSync(join(folder, 'README'), '# These are the archives\n\nFrom here on, every file is a month.\n');
    mkdirSync(join(folder, '.hidden'));
    writeFileSync(join(folder, '.hidden', 'x.mbox'), message('hidden', 'Mon, 08 Jan 2024 10:00:00 +0000'));
  });

  it('is what the source registry loads for mbox', async () => {
    expect((await openArchiveSource('mbox')).name).toBe('mbox');
  });

  it('files messages by Date, then From_ line date, then the file modification month', async () => {
    expect(await idsByMonth(folder, monthsBetween('2023-01', '2024-12'))).toEqual({
      '2023-12': ['nodate'],
      '2024-01': ['jan1', 'jan2'],
      '2024-02': ['feb1', 'jan3', 'gzfeb'],
      '2024-03': ['fromline', 'gzmar'],
    });
  });

  it('takes the oldest month present as the first month', async () => {
    expect(await createSource().firstMonth(sourceContext('mbox', folder))).toBe('2023-12');
    expect(await createSource().firstMonth(sourceContext('mbox', join(folder, 'b.mbox.gz')))).toBe('2024-02');
  });

  it('keeps a month index in the cache folder and rebuilds it when the file changes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-mbox-one-'));
    const file = join(dir, 'list.mbox');
    writeFileSync(file, message('one', 'Mon, 08 Jan 2024 10:00:00 +0000'));
    const cacheDir = mkdtempSync(join(tmpdir(), 'listminer-cache-'));
    expect(await idsByMonth(file, ['2024-01', '2024-02'], cacheDir)).toEqual({ '2024-01': ['one'] });
    expect(readdirSync(join(cacheDir, 'mbox-months'))).toHaveLength(1);
    appendFileSync(file, message('two', 'Thu, 01 Feb 2024 10:00:00 +0000'));
    expect(await idsByMonth(file, ['2024-01', '2024-02'], cacheDir)).toEqual({
      '2024-01': ['one'],
      '2024-02': ['two'],
    });
  });

  it('reports a path that is gone as a permanent failure', async () => {
    const context = sourceContext('mbox', join(folder, 'missing.mbox'));
    await expect(createSource().firstMonth(context)).rejects.toMatchObject({ kind: 'permanent' });
  });
});

describe('mbox source on a folder of list archives', () => {
  it('gives every message of every file exactly once over all months', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-fixture-mbox-'));
    const files = [
      'ponymail/users_ponymail_apache_org_2022-01.mbox',
      'pipermail/2015-November.txt',
      'kernel/series.mbox',
      'threads/ghost-root.mbox',
      'project/kafka-dev.mbox',
    ];
    files.forEach((file, i) => copyFileSync(fixturePath(file), join(dir, `${i}.mbox`)));
    const got = await collectAllMonths(createSource(), sourceContext('mbox', dir));
    expect(got.map((item) => item.raw.toString('base64')).sort()).toEqual(
      files
        .flatMap(fixtureMessages)
        .map((raw) => raw.toString('base64'))
        .sort(),
    );
  });
});
