import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../src/core/classify/classify-message.js';
import type { MsgClass } from '../../src/core/classify/envelope.js';
import { loadRuleBook } from '../../src/core/classify/rule-set.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';

/**
 * The bundled rules against a hand-labelled set: every message of the list
 * archives in the shared corpus, each given the class a careful reader gives
 * it (test/fixtures/classify/corpus-labels.tsv). Agreement must stay at 98%
 * or more for each system's rules; docs/systems.md records the figures.
 */
const FOLDERS = [
  'b4',
  'grimoirelab-perceval',
  'hyperkitty',
  'incubator-ponymail-foal',
  'james-project',
  'notmuch',
  'patchwork',
  'public-inbox',
];

/** The rules a researcher would read each archive with: its system's, or `generic` for local files of any list. */
function systemOf(path: string): string {
  if (path.startsWith('incubator-ponymail-foal/') || /^james-project\/.*\/mail[1-4]\.eml$/.test(path))
    return 'apache_ponymail';
  if (/^(?:public-inbox|b4|notmuch\/test\/corpora\/lkml)\//.test(path)) return 'public_inbox';
  return 'generic';
}

interface Label {
  path: string;
  index: number;
  messageId: string;
  expected: MsgClass;
  note: string;
}

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/classify/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.split('\t'));

const labels: Label[] = fixture('corpus-labels.tsv').map(([path, index, messageId, expected, note]) => ({
  path: path!,
  index: Number(index),
  messageId: messageId ?? '',
  expected: expected as MsgClass,
  note: note ?? '',
}));
const excluded = fixture('corpus-excluded.tsv').map(([path]) => path!);
const isExcluded = (path: string) =>
  excluded.some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));

describe.skipIf(corpusMissing)('the bundled rules on the hand-labelled corpus', () => {
  const book = loadRuleBook(loadSystems());

  it('labels or excludes every message of the list archives in the corpus', () => {
    const labelled = new Set(labels.map((label) => `${label.path}#${label.index}`));
    const missing: string[] = [];
    for (const folder of FOLDERS)
      for (const file of corpusMailFiles(folder)) {
        const count = corpusMessages(file).length;
        for (let index = 0; index < count; index++)
          if (!labelled.has(`${file}#${index}`) && !isExcluded(file)) missing.push(`${file}#${index}`);
      }
    expect(missing).toEqual([]);
  });

  it('agrees with the hand labels on at least 98% of the messages of every system', async () => {
    const bySystem = new Map<string, { total: number; agreed: number; misses: string[] }>();
    for (const label of labels) {
      const raw = corpusMessages(label.path)[label.index];
      expect(raw, `${label.path}#${label.index} is not in the corpus`).toBeDefined();
      const system = systemOf(label.path);
      const verdict = await classifyMessage(raw!, book.rulesOf(system));
      if ('error' in verdict) throw new Error(`${label.path}#${label.index}: ${verdict.error}`);
      // The Message-ID guards against a label drifting onto another message of the file.
      expect(verdict.envelope.messageId ?? '').toBe(label.messageId);
      const tally = bySystem.get(system) ?? { total: 0, agreed: 0, misses: [] };
      tally.total++;
      if (verdict.classification.msgClass === label.expected) tally.agreed++;
      else
        tally.misses.push(
          `${label.path}#${label.index}: rules say ${verdict.classification.msgClass} (${verdict.classification.source}), label ${label.expected}${label.note ? ` — ${label.note}` : ''}`,
        );
      bySystem.set(system, tally);
    }
    for (const [system, { total, agreed, misses }] of [...bySystem].sort()) {
      console.log(
        `${system}: ${agreed}/${total} agree (${((100 * agreed) / total).toFixed(1)}%)${misses.map((miss) => `\n  ${miss}`).join('')}`,
      );
    }
    expect([...bySystem.keys()].sort()).toEqual(['apache_ponymail', 'generic', 'public_inbox']);
    for (const [system, { total, agreed }] of bySystem) expect(agreed / total, system).toBeGreaterThanOrEqual(0.98);
  });
});
