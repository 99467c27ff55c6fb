import { mkdirSync, mkdtempSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { monthsBetween } from '../../../../../src/core/archive/month.js';
import { createSource } from '../../../../../src/core/archive/sources/maildir.js';
import { collectAllMonths, collectMessages, sourceContext } from '../../../../helpers/archive-context.js';
import { fixtureMessages } from '../../../../helpers/mail-files.js';

const mail = (id: string, date?: string) =>
  `From: ${id}@example.org\n${date ? `Date: ${date}\n` : ''}Message-ID: <${id}@example.org>\nSubject: ${id}\n\nbody\n`;

describe('maildir source', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'listminer-maildir-'));
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder));
    writeFileSync(join(root, 'cur', '1704708000.1.host:2,S'), mail('jan', 'Mon, 08 Jan 2024 10:00:00 +0000'));
    writeFileSync(join(root, 'new', '1706781600.2.host'), mail('feb', 'Thu, 01 Feb 2024 10:00:00 +0000'));
    // No Date header: the delivery time in the name (2024-03-02) files it.
    writeFileSync(join(root, 'new', '1709366400.3.host'), mail('named'));
    // Neither: the file's modification month.
    writeFileSync(join(root, 'cur', 'odd-name:2,'), mail('mtime'));
    utimesSync(join(root, 'cur', 'odd-name:2,'), new Date('2023-11-20T00:00:00Z'), new Date('2023-11-20T00:00:00Z'));
    writeFileSync(join(root, 'tmp', '1704708001.9.host'), mail('still-delivering', 'Mon, 08 Jan 2024 10:00:00 +0000'));
  });

  async function ids(path: string, months: string[]) {
    const source = createSource();
    const context = sourceContext('maildir', path);
    const out: Record<string, string[]> = {};
    for (const month of months) {
      const got = await collectMessages(source.fetchMonth(context, month));
      if (got.length) out[month] = got.map((m) => /Subject: (\S+)/.exec(m.raw.toString())![1]!);
    }
    return out;
  }

  it('reads cur/ and new/ (not tmp/) and files each message by Date, delivery time, then modification month', async () => {
    expect(await ids(root, monthsBetween('2023-01', '2024-12'))).toEqual({
      '2023-11': ['mtime'],
      '2024-01': ['jan'],
      '2024-02': ['feb'],
      '2024-03': ['named'],
    });
    expect(await createSource().firstMonth(sourceContext('maildir', root))).toBe('2023-11');
  });

  it('sees a message that moved from new/ to cur/ on the next read', async () => {
    const context = sourceContext('maildir', root);
    const source = createSource();
    expect(await collectMessages(source.fetchMonth(context, '2024-02'))).toHaveLength(1);
    renameSync(join(root, 'new', '1706781600.2.host'), join(root, 'cur', '1706781600.2.host:2,S'));
    const after = await collectMessages(source.fetchMonth(context, '2024-02'));
    expect(after.map((m) => m.sourceRef)).toEqual([join(root, 'cur', '1706781600.2.host:2,S')]);
  });

  it('refuses a folder that is not a Maildir as a permanent failure', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'listminer-not-maildir-'));
    await expect(createSource().firstMonth(sourceContext('maildir', plain))).rejects.toMatchObject({
      kind: 'permanent',
    });
  });
});

describe('maildir source on delivered list mail', () => {
  it('gives each of its messages once over all months', async () => {
    const root = mkdtempSync(join(tmpdir(), 'listminer-maildir-list-'));
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder));
    const messages = ['kernel/series.mbox', 'kernel/revisions.mbox', 'threads/ghost-root.mbox'].flatMap(
      fixtureMessages,
    );
    messages.forEach((raw, i) =>
      writeFileSync(join(root, i % 3 ? 'cur' : 'new', `${1704800000 + i}.M${i}P77.host${i % 3 ? ':2,S' : ''}`), raw),
    );
    const got = await collectAllMonths(createSource(), sourceContext('maildir', root));
    expect(got).toHaveLength(messages.length);
    expect(new Set(got.map((item) => item.sourceRef)).size).toBe(messages.length);
  });
});
