import { expect } from 'vitest';
import { classifyMessage } from '../../src/core/classify/classify-message.js';
import { MSG_CLASSES } from '../../src/core/classify/envelope.js';
import { loadRuleBook } from '../../src/core/classify/rule-set.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';

/**
 * Classifies every message of `files` under the apache_ponymail rules,
 * expecting a known class and a JSON-safe envelope of the message's size for
 * each one classified; the files of the messages shunted, and how many were classified.
 */
export async function classifyEveryMessage(
  files: readonly string[],
  messagesOf: (file: string) => Buffer[],
): Promise<{ classified: number; shunted: string[] }> {
  const rules = loadRuleBook(loadSystems()).rulesOf('apache_ponymail');
  let classified = 0;
  const shunted: string[] = [];
  for (const file of files) {
    for (const raw of messagesOf(file)) {
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
  return { classified, shunted };
}
