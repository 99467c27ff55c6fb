import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../../../src/core/errors.js';
import { isDeletion, type ArchiveItem, type SourceContext } from '../../../../../src/core/archive/archive-source.js';
import { identifyMessage } from '../../../../../src/core/archive/message-key.js';
import { monthOf } from '../../../../../src/core/archive/month.js';
import { createSource } from '../../../../../src/core/archive/sources/public-inbox.js';
import type { ListRecord } from '../../../../../src/core/store/list-records.js';
import { kernelMail, PublicInboxArchive } from '../../../../helpers/public-inbox-archive.js';

const at = (iso: string) => new Date(iso);

function contextFor(archive: PublicInboxArchive, cacheDir: string): SourceContext {
  const list = { id: 1, system: 'public_inbox', name: archive.inbox, baseUrl: archive.baseUrl } as ListRecord;
  return { list, system: { name: 'public_inbox' }, baseUrl: archive.baseUrl, cacheDir };
}

async function collect(items: AsyncIterable<ArchiveItem>): Promise<ArchiveItem[]> {
  const out: ArchiveItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const ids = (items: ArchiveItem[]) =>
  items
    .filter((i) => !isDeletion(i))
    .map((i) => identifyMessage(i.raw).messageId)
    .sort();

describe('public_inbox source', () => {
  let dir: string;
  let archive: PublicInboxArchive;
  let cacheDir: string;
  const mail = kernelMail();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-pi-'));
    archive = new PublicInboxArchive(join(dir, 'archive'), 'linux-test');
    cacheDir = join(dir, 'cache');
    archive.addCommits(0, [
      { raw: mail[0]!, at: at('2023-11-05T10:00:00Z') },
      { raw: mail[1]!, at: at('2023-11-20T10:00:00Z') },
      { raw: mail[2]!, at: at('2023-12-01T00:00:01Z') },
    ]);
    archive.addCommits(1, [
      { raw: mail[3]!, at: at('2023-12-15T10:00:00Z') },
      { raw: mail[1]!, at: at('2023-12-16T10:00:00Z'), kind: 'd' },
      { raw: mail[4]!, at: at('2024-01-02T10:00:00Z') },
    ]);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts at the month of the oldest commit over every epoch', async () => {
    const source = createSource();
    expect(await source.firstMonth(contextFor(archive, cacheDir))).toBe('2023-11');
    await source.close?.();
  });

  it('files commits of all epochs by committer month and yields d commits as deletions', async () => {
    const source = createSource();
    const context = contextFor(archive, cacheDir);
    const november = await collect(source.fetchMonth(context, '2023-11'));
    expect(ids(november)).toEqual([identifyMessage(mail[0]!).messageId, identifyMessage(mail[1]!).messageId].sort());
    const december = await collect(source.fetchMonth(context, '2023-12'));
    expect(ids(december)).toEqual([identifyMessage(mail[2]!).messageId, identifyMessage(mail[3]!).messageId].sort());
    const deletions = december.filter(isDeletion);
    expect(deletions).toHaveLength(1);
    expect(deletions[0]!.raw.equals(mail[1]!)).toBe(true);
    expect(deletions[0]!.sourceRef).toBe(`1.git/${archive.commits(1)[1]}`);
    expect(deletions[0]!.deletedAt).toBe('2023-12-16T10:00:00.000Z');
    expect(await collect(source.fetchMonth(context, '2023-10'))).toEqual([]);
    await source.close?.();
  });

  it('hands over the exact bytes of each message', async () => {
    const source = createSource();
    const [item] = await collect(source.fetchMonth(contextFor(archive, cacheDir), '2024-01'));
    expect(item!.raw.equals(mail[4]!)).toBe(true);
    await source.close?.();
  });

  it('fetches new mail and new epochs into the existing mirror on a later run', async () => {
    const current = monthOf(new Date());
    const first = createSource();
    expect(await collect(first.fetchMonth(contextFor(archive, cacheDir), current))).toEqual([]);
    await first.close?.();
    archive.addCommits(1, [{ raw: mail[5]!, at: new Date() }]);
    archive.addCommits(2, [{ raw: mail[6]!, at: new Date() }]);
    const second = createSource();
    const now = await collect(second.fetchMonth(contextFor(archive, cacheDir), current));
    expect(ids(now)).toEqual([mail[5]!, mail[6]!].map((m) => identifyMessage(m).messageId).sort());
    await second.close?.();
  });

  it('files a commit that arrives late with an old or future date under the current month, never a month already read', async () => {
    const first = createSource();
    const context = contextFor(archive, cacheDir);
    await collect(first.fetchMonth(context, '2023-11'));
    await first.close?.();
    const current = monthOf(new Date());
    archive.addCommits(1, [
      { raw: mail[5]!, at: at('2023-11-25T10:00:00Z') },
      { raw: mail[6]!, at: at('2999-01-01T00:00:00Z') },
    ]);
    const second = createSource();
    expect(ids(await collect(second.fetchMonth(context, '2023-11')))).toHaveLength(2);
    const now = await collect(second.fetchMonth(context, current));
    expect(ids(now)).toEqual([mail[5]!, mail[6]!].map((m) => identifyMessage(m).messageId).sort());
    await second.close?.();
  });

  it('keeps the true months when building the index of a new mirror', async () => {
    archive.addCommits(1, [{ raw: mail[5]!, at: at('2023-11-25T10:00:00Z') }]);
    const source = createSource();
    expect(ids(await collect(source.fetchMonth(contextFor(archive, cacheDir), '2023-11')))).toHaveLength(3);
    await source.close?.();
  });

  it('refuses an inbox the archive does not have as a permanent error', async () => {
    const source = createSource();
    const missing = new PublicInboxArchive(archive.root, 'no-such-inbox');
    const error = await source.firstMonth(contextFor(missing, cacheDir)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).kind).toBe('permanent');
  });
});
