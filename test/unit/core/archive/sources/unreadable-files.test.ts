import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Month, SkippedEntry } from '../../../../../src/core/archive/archive-source.js';
import { collectMessages, sourceContext } from '../../../../helpers/archive-context.js';

/**
 * Tests run as root, for whom no file is unreadable: permission errors are
 * injected into node:fs/promises for paths named in `locked`.
 */
const locked = new Set<string>();
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const guard =
    <A extends unknown[], R>(fn: (path: never, ...rest: A) => Promise<R>) =>
    (path: unknown, ...rest: A): Promise<R> => {
      if (typeof path === 'string' && locked.has(path)) {
        return Promise.reject(
          Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: 'EACCES', path }),
        );
      }
      return fn(path as never, ...rest);
    };
  return { ...real, open: guard(real.open), readFile: guard(real.readFile) };
});

const { createSource: createMaildirSource } = await import('../../../../../src/core/archive/sources/maildir.js');
const { createSource: createMboxSource } = await import('../../../../../src/core/archive/sources/mbox-files.js');

const mail = (id: string, day: number) =>
  `From: ${id}@example.org\nDate: Mon, ${String(day).padStart(2, '0')} Jan 2024 10:00:00 +0000\nMessage-ID: <${id}@example.org>\nSubject: ${id}\n\nbody\n`;

function recording(backend: 'mbox' | 'maildir', path: string) {
  const context = sourceContext(backend, path);
  const skipped: Array<SkippedEntry & { month?: Month }> = [];
  context.onSkippedEntry = (entry, month) => skipped.push({ ...entry, ...(month ? { month } : {}) });
  return { context, skipped };
}

describe('local sources and files they may not read', () => {
  it('a Maildir skips a message file it may not open and reads the others', async () => {
    const root = mkdtempSync(join(tmpdir(), 'listminer-maildir-eacces-'));
    for (const folder of ['cur', 'new']) mkdirSync(join(root, folder));
    writeFileSync(join(root, 'cur', '1704708000.1.host:2,S'), mail('one', 8));
    writeFileSync(join(root, 'cur', '1704708000.2.host:2,S'), mail('two', 9));
    locked.add(join(root, 'cur', '1704708000.2.host:2,S'));
    const { context, skipped } = recording('maildir', root);
    const got = await collectMessages(createMaildirSource().fetchMonth(context, '2024-01'));
    expect(got.map((m) => m.sourceRef)).toEqual([join(root, 'cur', '1704708000.1.host:2,S')]);
    expect(skipped).toEqual([
      { path: join(root, 'cur', '1704708000.2.host:2,S'), reason: 'cannot be read: permission denied' },
    ]);
    locked.clear();
  });

  it('a Maildir message that becomes unreadable after it was indexed is skipped, and its month reported unfinished', async () => {
    const root = mkdtempSync(join(tmpdir(), 'listminer-maildir-eacces-late-'));
    mkdirSync(join(root, 'cur'));
    writeFileSync(join(root, 'cur', '1704708000.1.host:2,S'), mail('one', 8));
    writeFileSync(join(root, 'cur', '1704708000.2.host:2,S'), mail('two', 9));
    const { context, skipped } = recording('maildir', root);
    const source = createMaildirSource();
    expect(await source.firstMonth(context)).toBe('2024-01');
    locked.add(join(root, 'cur', '1704708000.1.host:2,S'));
    const got = await collectMessages(source.fetchMonth(context, '2024-01'));
    expect(got).toHaveLength(1);
    expect(skipped).toEqual([
      {
        path: join(root, 'cur', '1704708000.1.host:2,S'),
        reason: 'cannot be read: permission denied',
        month: '2024-01',
      },
    ]);
    locked.clear();
  });

  it('an mbox folder skips a file it may not open and reads the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-mbox-eacces-'));
    writeFileSync(join(dir, 'a.mbox'), `From x Mon Jan  8 10:00:00 2024\n${mail('a', 8)}\n`);
    writeFileSync(join(dir, 'b.mbox'), `From x Mon Jan  9 10:00:00 2024\n${mail('b', 9)}\n`);
    locked.add(join(dir, 'b.mbox'));
    const { context, skipped } = recording('mbox', dir);
    const source = createMboxSource();
    expect(await source.firstMonth(context)).toBe('2024-01');
    expect((await collectMessages(source.fetchMonth(context, '2024-01'))).map((m) => m.sourceRef)).toEqual([
      `${join(dir, 'a.mbox')}#0`,
    ]);
    expect(new Set(skipped.map((s) => `${s.path}: ${s.reason}`))).toEqual(
      new Set([`${join(dir, 'b.mbox')}: cannot be read: permission denied`]),
    );
    locked.clear();
  });
});
