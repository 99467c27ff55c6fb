import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../src/core/classify/classify-message.js';
import { MSG_CLASSES } from '../../src/core/classify/envelope.js';
import { loadRuleBook } from '../../src/core/classify/rule-set.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';

describe.skipIf(corpusMissing)('every message of the corpus', () => {
  it('is classified or shunted, never crashes the run', async () => {
    const rules = loadRuleBook(loadSystems()).rulesOf('apache_ponymail');
    let classified = 0;
    const shunted: string[] = [];
    for (const file of corpusMailFiles()) {
      for (const raw of corpusMessages(file)) {
        const verdict = await classifyMessage(raw, rules);
        if ('error' in verdict) {
          shunted.push(file);
          continue;
        }
        expect(MSG_CLASSES).toContain(verdict.classification.msgClass);
        expect(verdict.envelope.size).toBe(raw.length);
        expect(JSON.parse(JSON.stringify(verdict.envelope))).toEqual(verdict.envelope);
        classified++;
      }
    }
    expect(classified).toBeGreaterThan(850);
    // Only files that are not mail at all (a bare diff, a digest's body) are shunted.
    expect(shunted.filter((file) => !/\.patch$|msg_19\.txt$/.test(file))).toEqual([]);
  });
});
