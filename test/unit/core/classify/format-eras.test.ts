import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../../../src/core/archive/mbox-reader.js';
import { classifyMessage } from '../../../../src/core/classify/classify-message.js';
import { loadRuleBook } from '../../../../src/core/classify/rule-set.js';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';

/**
 * One written message per format that real archives hold across the years
 * (test/fixtures/classify/formats): every era of Apache's GitHub mirror,
 * Jira, Bugzilla and Debian's tracker, svn and git commit mail, kernel
 * patches, replies and bots, and plain human and automated mail. Each
 * message names the rules it is read with (X-Listminer-System) and the class
 * and captures it must get (X-Listminer-Expect: class key=value …).
 */
const FORMATS = new URL('../../../fixtures/classify/formats/', import.meta.url);

interface Case {
  file: string;
  subject: string;
  system: string;
  expected: string;
  captures: Record<string, string>;
  raw: Buffer;
}

const header = (text: string, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(text)?.[1]?.trim() ?? '';

const cases: Case[] = readdirSync(FORMATS)
  .filter((name) => name.endsWith('.mbox'))
  .sort()
  .flatMap((file) =>
    splitMboxBuffer(readFileSync(new URL(file, FORMATS))).map((raw) => {
      const head = raw.toString('utf8').split(/\n\n/, 1)[0]!;
      const [expected, ...pairs] = header(head, 'X-Listminer-Expect').split(/\s+/);
      return {
        file,
        subject: header(head, 'Subject'),
        system: header(head, 'X-Listminer-System'),
        expected: expected!,
        captures: Object.fromEntries(pairs.map((pair) => pair.split('=', 2) as [string, string])),
        raw,
      };
    }),
  );

describe('the bundled rules on mail of every era', () => {
  const book = loadRuleBook(loadSystems());

  it('has a written message for each format', () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
    expect(new Set(cases.map((c) => c.system))).toEqual(new Set(['apache_ponymail', 'public_inbox', 'generic']));
  });

  it.each(cases)('$file: $subject → $expected', async ({ raw, system, expected, captures }) => {
    const verdict = await classifyMessage(raw, book.rulesOf(system));
    if ('error' in verdict) throw new Error(verdict.error);
    expect(verdict.classification.msgClass, verdict.classification.source).toBe(expected);
    expect(verdict.classification.captures).toMatchObject(captures);
  });

  it('gives every archive system the same rules for the same mail', async () => {
    // apache_ponymail and public_inbox include generic: an Apache or kernel archive read from an mbox is classified the same.
    for (const { raw } of cases) {
      const classes = await Promise.all(
        ['generic', 'apache_ponymail', 'public_inbox', 'mbox', 'maildir', 'pipermail', 'hyperkitty'].map(
          async (system) => {
            const verdict = await classifyMessage(raw, book.rulesOf(system));
            return 'error' in verdict ? verdict.error : verdict.classification.msgClass;
          },
        ),
      );
      expect(new Set(classes).size).toBe(1);
    }
  });
});
