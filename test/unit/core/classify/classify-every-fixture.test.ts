import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../../../src/core/classify/classify-message.js';
import { MSG_CLASSES } from '../../../../src/core/classify/envelope.js';
import { loadRuleBook } from '../../../../src/core/classify/rule-set.js';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';
import { fixtureMailFiles, fixtureMessages } from '../../../helpers/mail-files.js';

describe('every message of test/fixtures', () => {
  it('is classified with a JSON-safe envelope of its size, never crashes the run', async () => {
    const rules = loadRuleBook(loadSystems()).rulesOf('apache_ponymail');
    const shunted: string[] = [];
    let classified = 0;
    for (const file of fixtureMailFiles()) {
      for (const raw of fixtureMessages(file)) {
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
    expect(classified).toBeGreaterThan(100);
    expect(shunted).toEqual([]);
  });
});
