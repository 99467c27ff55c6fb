import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMbox } from '../../src/core/archive/mbox-reader.js';
import { corpusFiles, corpusMissing, corpusPath } from '../helpers/corpus.js';

/**
 * Files where counting separator lines gives the wrong answer, each checked
 * by reading the file: the true number of messages and why.
 */
const TRUE_COUNTS: Record<string, { messages: number; why: string }> = {
  'notmuch/test/corpora/insert/mbox-attachment.eml': {
    messages: 1,
    why: 'line 28 is a git patch attached unquoted inside a MIME part',
  },
  'patchwork/patchwork/tests/data/fuzz/codec-null.mbox': {
    messages: 1,
    why: '"From xl.org, netdev@…" is a body line with no date',
  },
  'patchwork/patchwork/tests/data/fuzz/name-len.mbox': {
    messages: 1,
    why: '"From xl.org, netdev@…" is a body line with no date',
  },
};

/**
 * An independent, deliberately plain count: lines that start with "From " at
 * the top of the file or after a blank line, plus one for a file that starts
 * straight with headers.
 */
function countSeparatorLines(bytes: Buffer): number {
  const lines = bytes.toString('latin1').split('\n');
  let count = 0;
  let previousBlank = true;
  let sawContent = false;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (!sawContent && line.trim() !== '') {
      sawContent = true;
      if (!line.startsWith('From ')) count++;
    }
    if (line.startsWith('From ') && previousBlank) count++;
    previousBlank = line === '';
  }
  return count;
}

function isMbox(path: string, bytes: Buffer): boolean {
  if (/\.mbox(\.gz|\.template)?$/.test(path)) return true;
  // Anything else is an mbox when it opens with a From_ line (a single .eml or a Maildir file does not).
  return bytes.subarray(0, 5).toString('latin1') === 'From ';
}

const files = corpusFiles()
  .filter((path) => !path.endsWith('MANIFEST.md'))
  .map((path) => ({ path, bytes: readFileSync(corpusPath(path)) }))
  .filter(({ path, bytes }) => isMbox(path, bytes));

describe.skipIf(corpusMissing)('readMbox on the mail corpus', () => {
  it('finds the corpus mbox files', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.map((f) => f.path)).toContain(
      'incubator-ponymail-foal/test/resources/users_ponymail_apache_org_2022-01.mbox',
    );
  });

  it.each(files.map((f) => [f.path, f.bytes] as const))(
    'reads %s with the right message count',
    async (path, bytes) => {
      const expected = TRUE_COUNTS[path]?.messages ?? countSeparatorLines(bytes);
      let count = 0;
      for await (const raw of readMbox(corpusPath(path))) {
        expect(raw.length).toBeGreaterThan(0);
        count++;
      }
      expect(count).toBe(expected);
    },
  );

  it('agrees with the manifest counts for the Pony Mail month downloads', async () => {
    const manifest: Record<string, number> = {
      'incubator-ponymail-foal/test/resources/users_ponymail_apache_org_2019-09.mbox': 4,
      'incubator-ponymail-foal/test/resources/users_ponymail_apache_org_2022-01.mbox': 6,
      'incubator-ponymail-foal/test/resources/dev_ponymail_apache_org_2020-10.mbox': 1,
      'grimoirelab-perceval/tests/data/pipermail/pipermail_2015_november.mbox': 4,
      'grimoirelab-perceval/tests/data/mbox/mbox_no_fields.mbox': 6,
    };
    for (const [path, messages] of Object.entries(manifest)) {
      let count = 0;
      for await (const _ of readMbox(corpusPath(path))) count++;
      expect(count, path).toBe(messages);
    }
  });
});
