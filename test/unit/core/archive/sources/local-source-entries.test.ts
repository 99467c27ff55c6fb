import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { Month, SkippedEntry, SourceContext } from '../../../../../src/core/archive/archive-source.js';
import { monthsBetween } from '../../../../../src/core/archive/month.js';
import { createSource as createMaildirSource } from '../../../../../src/core/archive/sources/maildir.js';
import { createSource as createMboxSource } from '../../../../../src/core/archive/sources/mbox-files.js';
import { collectMessages, sourceContext } from '../../../../helpers/archive-context.js';

const mboxMessage = (id: string, date: string) =>
  `From ${id}@example.org Mon Jan  1 00:00:00 2001\nFrom: ${id}@example.org\nDate: ${date}\nMessage-ID: <${id}@example.org>\nSubject: ${id}\n\nbody of ${id}\n\n`;
const mail = (id: string, date: string) =>
  `From: ${id}@example.org\nDate: ${date}\nMessage-ID: <${id}@example.org>\nSubject: ${id}\n\nbody\n`;
const JAN = 'Mon, 08 Jan 2024 10:00:00 +0000';
const FEB = 'Thu, 01 Feb 2024 10:00:00 +0000';
const MAR = 'Fri, 01 Mar 2024 10:00:00 +0000';
const temp = (name: string) => mkdtempSync(join(tmpdir(), `listminer-${name}-`));

/** A context that remembers what the source skipped. */
function recordingContext(backend: 'mbox' | 'maildir', path: string, cacheDir?: string) {
  const context = sourceContext(backend, path);
  if (cacheDir) context.cacheDir = cacheDir;
  const skipped: Array<SkippedEntry & { month?: Month }> = [];
  context.onSkippedEntry = (entry, month) => skipped.push({ ...entry, ...(month ? { month } : {}) });
  return { context, skipped };
}

async function subjects(
  source: ReturnType<typeof createMboxSource>,
  context: SourceContext,
  months = monthsBetween('2024-01', '2024-03'),
) {
  const out: Record<string, string[]> = {};
  for (const month of months) {
    const got = await collectMessages(source.fetchMonth(context, month));
    if (got.length) out[month] = got.map((m) => /Subject: (\S+)/.exec(m.raw.toString())![1]!);
  }
  return out;
}

describe('mbox source: months that change', () => {
  it('changes a month fingerprint only when that month gains, loses or changes mail', async () => {
    const dir = temp('mbox-fp');
    const file = join(dir, 'list.mbox');
    writeFileSync(file, mboxMessage('a', JAN) + mboxMessage('b', FEB));
    const cacheDir = temp('cache');
    const before = await createMboxSource().monthFingerprints!(recordingContext('mbox', file, cacheDir).context);
    expect([...before.keys()].sort()).toEqual(['2024-01', '2024-02']);
    appendFileSync(file, mboxMessage('c', FEB) + mboxMessage('d', MAR));
    const after = await createMboxSource().monthFingerprints!(recordingContext('mbox', file, cacheDir).context);
    expect(after.get('2024-01')).toBe(before.get('2024-01'));
    expect(after.get('2024-02')).not.toBe(before.get('2024-02'));
    expect(after.has('2024-03')).toBe(true);
  });

  it('changes the fingerprint of the months a new file of a folder holds', async () => {
    const dir = temp('mbox-folder-fp');
    writeFileSync(join(dir, 'a.mbox'), mboxMessage('a', JAN) + mboxMessage('b', FEB));
    const before = await createMboxSource().monthFingerprints!(recordingContext('mbox', dir).context);
    writeFileSync(join(dir, 'b.mbox.gz'), gzipSync(mboxMessage('c', JAN)));
    const after = await createMboxSource().monthFingerprints!(recordingContext('mbox', dir).context);
    expect(after.get('2024-01')).not.toBe(before.get('2024-01'));
    expect(after.get('2024-02')).toBe(before.get('2024-02'));
  });
});

describe('mbox source: entries that cannot be read', () => {
  it('skips a dangling symlink, a FIFO and a link to a folder with a reason, and reads the rest, links to files included', async () => {
    const dir = temp('mbox-bad-entries');
    writeFileSync(join(dir, 'a.mbox'), mboxMessage('a', JAN));
    const elsewhere = temp('mbox-elsewhere');
    writeFileSync(join(elsewhere, 'real.mbox'), mboxMessage('linked', FEB));
    symlinkSync(join(elsewhere, 'real.mbox'), join(dir, 'b.mbox'));
    symlinkSync(join(elsewhere, 'missing.mbox'), join(dir, 'c.mbox'));
    symlinkSync(elsewhere, join(dir, 'd-folder'));
    execFileSync('mkfifo', [join(dir, 'e.fifo')]);
    const { context, skipped } = recordingContext('mbox', dir);
    const source = createMboxSource();
    expect(await source.firstMonth(context)).toBe('2024-01');
    expect(await subjects(source, context)).toEqual({ '2024-01': ['a'], '2024-02': ['linked'] });
    const reasons = Object.fromEntries(skipped.map((s) => [s.path, s.reason]));
    expect(reasons).toEqual({
      [join(dir, 'c.mbox')]: `is a symbolic link to ${join(elsewhere, 'missing.mbox')}, which does not exist`,
      [join(dir, 'd-folder')]: 'is a symbolic link to a folder, which listminer does not follow',
      [join(dir, 'e.fifo')]: 'is a FIFO (named pipe), not a message file',
    });
  });
});

describe('mbox source: a gzip file cut short', () => {
  const body = (n: number) => 'line of text that does not compress away '.repeat(40 + n) + '\n';
  const messages = [
    ['j1', JAN],
    ['j2', JAN],
    ['f1', FEB],
    ['f2', FEB],
    ['m1', MAR],
    ['m2', MAR],
    ['m3', MAR],
  ].map(([id, date], i) => mboxMessage(id!, date!).replace('\n\n', `\n\n${body(i)}`));

  function cutFile() {
    const dir = temp('mbox-cut');
    const whole = gzipSync(messages.join(''), { level: 1 });
    const file = join(dir, 'list.mbox.gz');
    // Cut inside the last message: the six before it are whole.
    const plain = Buffer.from(messages.join(''));
    const cutAt = plain.indexOf('From m3@');
    for (let length = whole.length - 1; length > 0; length--) {
      writeFileSync(file, whole.subarray(0, length));
      let out: Buffer = Buffer.alloc(0);
      try {
        execFileSync('gzip', ['-dc', file], { stdio: ['ignore', 'pipe', 'ignore'] });
      } catch (error) {
        out = (error as { stdout: Buffer }).stdout;
      }
      if (out.length > cutAt + 40 && out.length < plain.length - 10) return { dir, file, whole };
    }
    throw new Error('no cut found');
  }

  it('gives the whole messages before the cut, then fails only the month the cut is in, naming the file', async () => {
    const { file } = cutFile();
    const { context } = recordingContext('mbox', file);
    const source = createMboxSource();
    expect(await source.firstMonth(context)).toBe('2024-01');
    expect((await collectMessages(source.fetchMonth(context, '2024-01'))).length).toBe(2);
    expect((await collectMessages(source.fetchMonth(context, '2024-02'))).length).toBe(2);
    const march: string[] = [];
    const reading = (async () => {
      for await (const item of source.fetchMonth(context, '2024-03'))
        march.push(/Subject: (\S+)/.exec(item.raw.toString())![1]!);
    })();
    await expect(reading).rejects.toMatchObject({
      kind: 'transient',
      message: `${file} ends early (its gzip data is cut short): the messages before the damage were staged, the rest cannot be read, so 2024-03 stays unfinished and is read again on the next fetch.`,
    });
    expect(march).toEqual(['m1', 'm2']);
  });

  it('reads the file whole once it is replaced by the complete one, and changes the cut month fingerprint', async () => {
    const { file, whole } = cutFile();
    const cacheDir = temp('cache');
    const cut = await createMboxSource().monthFingerprints!(recordingContext('mbox', file, cacheDir).context);
    writeFileSync(file, whole);
    const source = createMboxSource();
    const { context } = recordingContext('mbox', file, cacheDir);
    const fixed = await source.monthFingerprints!(context);
    expect(fixed.get('2024-01')).toBe(cut.get('2024-01'));
    expect(fixed.get('2024-03')).not.toBe(cut.get('2024-03'));
    expect((await collectMessages(source.fetchMonth(context, '2024-03'))).length).toBe(3);
  });
});

describe('maildir source: entries that cannot be read', () => {
  function maildir() {
    const root = temp('maildir-bad');
    for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder));
    writeFileSync(join(root, 'cur', '1704708000.1.host:2,S'), mail('jan', JAN));
    writeFileSync(join(root, 'new', '1706781600.2.host'), mail('feb', FEB));
    return root;
  }

  it('skips a dangling symlink, a folder and a FIFO in cur/ with a reason, and reads every other message', async () => {
    const root = maildir();
    const target = join(temp('maildir-target'), 'message');
    symlinkSync(target, join(root, 'cur', '1704708001.3.host:2,S'));
    mkdirSync(join(root, 'cur', '1704708002.4.host:2,S'));
    execFileSync('mkfifo', [join(root, 'cur', '1704708003.5.host:2,S')]);
    const { context, skipped } = recordingContext('maildir', root);
    const source = createMaildirSource();
    expect(await subjects(source, context)).toEqual({ '2024-01': ['jan'], '2024-02': ['feb'] });
    expect(Object.fromEntries(skipped.map((s) => [s.path, s.reason]))).toEqual({
      [join(root, 'cur', '1704708001.3.host:2,S')]: `is a symbolic link to ${target}, which does not exist`,
      [join(root, 'cur', '1704708002.4.host:2,S')]: 'is a folder where a message file was expected',
      [join(root, 'cur', '1704708003.5.host:2,S')]: 'is a FIFO (named pipe), not a message file',
    });
  });

  it('reports the skipped entries again from its cached index, and reads a link once its target appears', async () => {
    const root = maildir();
    const target = join(temp('maildir-target'), 'message');
    symlinkSync(target, join(root, 'cur', '1704708001.3.host:2,S'));
    const cacheDir = temp('cache');
    const first = recordingContext('maildir', root, cacheDir);
    await createMaildirSource().firstMonth(first.context);
    const again = recordingContext('maildir', root, cacheDir);
    const before = await createMaildirSource().monthFingerprints!(again.context);
    expect(again.skipped.map((s) => s.path)).toEqual([join(root, 'cur', '1704708001.3.host:2,S')]);
    writeFileSync(target, mail('late', JAN));
    const fixed = recordingContext('maildir', root, cacheDir);
    const source = createMaildirSource();
    const after = await source.monthFingerprints!(fixed.context);
    expect(fixed.skipped).toEqual([]);
    expect(after.get('2024-01')).not.toBe(before.get('2024-01'));
    expect(after.get('2024-02')).toBe(before.get('2024-02'));
    expect((await subjects(source, fixed.context))['2024-01']).toEqual(['jan', 'late']);
  });

  it('keeps a month fingerprint when a mail client moves a message from new/ to cur/ and flags it', async () => {
    const root = maildir();
    const before = await createMaildirSource().monthFingerprints!(recordingContext('maildir', root).context);
    renameSync(join(root, 'new', '1706781600.2.host'), join(root, 'cur', '1706781600.2.host:2,RS'));
    const after = await createMaildirSource().monthFingerprints!(recordingContext('maildir', root).context);
    expect(after).toEqual(before);
    writeFileSync(join(root, 'new', '1706781601.6.host'), mail('feb2', FEB));
    const grown = await createMaildirSource().monthFingerprints!(recordingContext('maildir', root).context);
    expect(grown.get('2024-02')).not.toBe(before.get('2024-02'));
    rmSync(root, { recursive: true, force: true });
  });
});
