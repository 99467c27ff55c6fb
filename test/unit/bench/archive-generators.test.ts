import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../../src/core/archive/mbox-reader.js';
import { parseEnvelope } from '../../../src/core/classify/parse-envelope.js';
import { expectCycledArchive, mailHeader as header } from '../../helpers/cycled-archive.js';
import { fixtureMailFiles, fixtureMessages } from '../../helpers/mail-files.js';

interface ArchiveItem {
  raw: Buffer;
  arrived: Date;
  sender: string;
}
interface Written {
  messages: number;
  mboxBytes: number;
  epochs: number;
}

// The benchmark is plain JS, loaded by URL.
const { syntheticArchive } = (await import(new URL('../../../bench/synthetic-archive.js', import.meta.url).href)) as {
  syntheticArchive: (options: { messages: number; seed?: number }) => Iterable<ArchiveItem>;
};
const { writeArchive, INBOX } = (await import(new URL('../../../bench/write-archive.js', import.meta.url).href)) as {
  writeArchive: (items: Iterable<ArchiveItem>, paths: { mbox: string; publicInbox?: string }) => Promise<Written>;
  INBOX: string;
};

const dir = mkdtempSync(join(tmpdir(), 'listminer-bench-gen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function digest(items: Iterable<ArchiveItem>): string {
  const hash = createHash('sha256');
  for (const item of items) hash.update(item.raw).update(item.arrived.toISOString()).update(item.sender);
  return hash.digest('hex');
}

describe('the synthetic benchmark archive', () => {
  const messages = [...syntheticArchive({ messages: 1500, seed: 7 })];

  it('is the same archive, byte for byte, for the same seed and count', () => {
    expect(digest(syntheticArchive({ messages: 1500, seed: 7 }))).toBe(digest(messages));
    expect(digest(syntheticArchive({ messages: 1500, seed: 8 }))).not.toBe(digest(messages));
  });

  it('yields the messages asked for, in arrival order, each with its own Message-ID', () => {
    expect(messages).toHaveLength(1500);
    const ids = messages.map((m) => header(m.raw, 'Message-ID'));
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(1500);
    const times = messages.map((m) => m.arrived.getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('holds the mix of list mail it promises', () => {
    const heads = messages.map((m) => m.raw.toString('latin1'));
    const share = (pattern: RegExp) => heads.filter((text) => pattern.test(text)).length / heads.length;
    expect(share(/^Content-Type: multipart\//m)).toBeGreaterThan(0.05);
    expect(share(/^Content-Type: multipart\//m)).toBeLessThan(0.15);
    expect(share(/^In-Reply-To: /m)).toBeGreaterThan(0.3);
    expect(share(/^Content-Transfer-Encoding: base64/m)).toBeGreaterThan(0);
    expect(share(/^Content-Transfer-Encoding: quoted-printable/m)).toBeGreaterThan(0);
    expect(share(/charset="(?:ISO-8859-1|windows-1252|KOI8-R|GB2312|ISO-8859-2)"/)).toBeGreaterThan(0);
    expect(share(/^(?:Subject|From): .*=\?[\w-]+\?[BQ]\?/m)).toBeGreaterThan(0);
    for (const tag of [
      /^Subject: \[PATCH v\d+ \d+\/\d+\]/m,
      /^Subject: \[jira\] \[Created\] \(KAFKA-\d+\)/m,
      /^From: GitBox <git@apache\.org>/m,
      /^Subject: \[VOTE\]/m,
      /^Subject: \[RESULT\]\[VOTE\]/m,
      /^Signed-off-by: /m,
      /^Reviewed-by: /m,
    ]) {
      expect(share(tag), String(tag)).toBeGreaterThan(0);
    }
    const senders = new Set(messages.map((m) => m.sender));
    expect(senders.size).toBeGreaterThan(100);
    const average = messages.reduce((sum, m) => sum + m.raw.length, 0) / messages.length;
    expect(average).toBeGreaterThan(1800);
    expect(average).toBeLessThan(3200);
  });

  it('encodes other charsets so that listminer decodes them back to the same text', async () => {
    const scripts: Record<string, RegExp> = {
      'KOI8-R': /[А-Яа-я]/,
      GB2312: /[\u4e00-\u9fff]/,
      'ISO-8859-1': /[À-ÿ]/,
      'windows-1252': /[À-ÿ“”…]/,
    };
    const seen: Record<string, number> = {};
    for (const { raw } of messages) {
      const charset = /charset="(KOI8-R|GB2312|ISO-8859-2|ISO-8859-1|windows-1252)"/.exec(raw.toString('latin1'))?.[1];
      if (!charset) continue;
      const envelope = await parseEnvelope(raw);
      expect(envelope.body).not.toContain('\ufffd');
      expect(envelope.subject).not.toMatch(/=\?/);
      if (scripts[charset]?.test(envelope.body) || scripts[charset]?.test(envelope.fromName ?? ''))
        seen[charset] = (seen[charset] ?? 0) + 1;
    }
    expect(seen['KOI8-R']).toBeGreaterThan(0);
    expect(seen.GB2312).toBeGreaterThan(0);
    expect(seen['ISO-8859-1']).toBeGreaterThan(0);
  });

  it('writes an mbox that listminer splits into the same messages, and a public-inbox epoch of one commit each', async () => {
    const mbox = join(dir, 'synthetic.mbox');
    const inbox = join(dir, 'inbox');
    const written = await writeArchive(syntheticArchive({ messages: 400, seed: 7 }), { mbox, publicInbox: inbox });
    expect(written).toMatchObject({ messages: 400, epochs: 1 });
    const split = splitMboxBuffer(readFileSync(mbox));
    expect(split).toHaveLength(400);
    const originals = [...syntheticArchive({ messages: 400, seed: 7 })].map((m) =>
      m.raw.toString('latin1').replace(/\n*$/, ''),
    );
    expect(split.map((raw) => raw.toString('latin1').replace(/\n*$/, ''))).toEqual(originals);
    const gitDir = join(inbox, INBOX, 'git', '0.git');
    expect(
      execFileSync('git', ['--git-dir', gitDir, 'rev-list', '--count', 'master'], { encoding: 'utf8' }).trim(),
    ).toBe('400');
    expect(execFileSync('git', ['--git-dir', gitDir, 'show', 'master:m']).toString('latin1').replace(/\n*$/, '')).toBe(
      originals[399],
    );
  });
});

describe('the corpus benchmark archive', () => {
  it('cycles list mail to the count asked for, every Message-ID new, replies pointing into their own cycle', () => {
    expectCycledArchive(fixtureMailFiles().map(fixtureMessages));
  });
});
