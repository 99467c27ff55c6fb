import { expect } from 'vitest';

interface ArchiveItem {
  raw: Buffer;
  arrived: Date;
}

// The benchmark is plain JS, loaded by URL.
const { cycleCorpus } = (await import(new URL('../../bench/corpus-archive.js', import.meta.url).href)) as {
  cycleCorpus: (files: Array<Array<{ raw: Buffer; sender: string }>>, messages: number) => Iterable<ArchiveItem>;
};

/** The (unfolded) value of a header field of raw mail. */
export function mailHeader(raw: Buffer, name: string): string | undefined {
  const head = raw.toString('latin1').split('\n\n')[0]!;
  return new RegExp(`^${name}: (.*(?:\\n[ \\t].*)*)`, 'im').exec(head)?.[1];
}

/**
 * The benchmark's cycled archive over the files (the messages of each) that
 * hold two or more messages: cycled to 2.5 times their size, every Message-ID
 * new, replies pointing into their own cycle, arrival times over 2023-2024.
 */
export function expectCycledArchive(messagesByFile: Buffer[][]): void {
  const files = messagesByFile
    .filter((messages) => messages.length >= 2)
    .map((messages) => messages.map((raw) => ({ raw, sender: 'corpus@example.org' })));
  const total = files.reduce((sum, file) => sum + file.length, 0);
  const count = Math.floor(total * 2.5);
  const messages = [...cycleCorpus(files, count)];
  expect(messages).toHaveLength(count);
  const ids = messages.map((m) => /<([^>]*)>/.exec(mailHeader(m.raw, 'Message-ID') ?? '')?.[1]);
  expect(new Set(ids).size).toBe(count);
  const known = new Set(ids);
  let resolved = 0;
  for (const message of messages) {
    const parent = /<([^>]*)>/.exec(mailHeader(message.raw, 'In-Reply-To') ?? '')?.[1];
    if (!parent) continue;
    const cycle = /^(c\d+)f/.exec(parent)?.[1];
    expect(cycle).toBe(/^(c\d+)f/.exec(/<([^>]*)>/.exec(mailHeader(message.raw, 'Message-ID')!)![1]!)![1]);
    if (known.has(parent)) resolved++;
  }
  expect(resolved).toBeGreaterThan(0);
  const times = messages.map((m) => m.arrived.getTime());
  expect(new Date(times[0]!).getUTCFullYear()).toBe(2023);
  expect(new Date(times[times.length - 1]!).getUTCFullYear()).toBe(2024);
}
