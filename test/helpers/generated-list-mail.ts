import { writeFileSync } from 'node:fs';

type GenerateMessage = (i: number) => string;

// The benchmark's generator, shared so tests and bench see the same traffic; plain JS, loaded by URL.
const { generateMessage } = (await import(new URL('../../bench/generate-mbox.js', import.meta.url).href)) as {
  generateMessage: GenerateMessage;
};

/** First message's date; each next one is `stepHours` later, so the mail spreads over many months. */
const START = Date.UTC(2021, 0, 3, 9, 0, 0);

/**
 * An mbox of `count` list messages shaped like real traffic (the benchmark's
 * mix of plain, quoted-printable, multipart, patches, Jira and GitHub mail),
 * dated `stepHours` apart from January 2021 so a fetch reads them month by
 * month. Message-IDs carry `tag`, so two lists never share a message.
 */
export function generateListMbox(count: number, options: { tag: string; stepHours?: number }): Buffer {
  const step = (options.stepHours ?? 6) * 3_600_000;
  const parts: string[] = [];
  for (let i = 0; i < count; i++) {
    const date = new Date(START + i * step);
    const message = generateMessage(i)
      .replace(/^Date: .*$/m, `Date: ${date.toUTCString().replace('GMT', '+0000')}`)
      .replace(/<bench-(-?\d+)@example\.org>/g, `<${options.tag}-$1@example.org>`);
    parts.push(
      `From person${i % 50}@example.org ${date.toUTCString().replace(/,/g, '')}\n${message.replace(/^(>*From )/gm, '>$1')}\n`,
    );
  }
  return Buffer.from(parts.join('\n'));
}

export function writeListMbox(path: string, count: number, options: { tag: string; stepHours?: number }): string {
  writeFileSync(path, generateListMbox(count, options));
  return path;
}
