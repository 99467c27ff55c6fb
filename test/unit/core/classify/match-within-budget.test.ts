import { describe, expect, it } from 'vitest';
import { matchWithinBudget } from '../../../../src/core/classify/match-within-budget.js';
import { compileRules, loadRuleBook, type CompiledRule } from '../../../../src/core/classify/rule-set.js';
import { matchInput } from '../../../helpers/match-input.js';
import { loadSystems, validateSystems } from '../../../../src/core/systems/load-systems.js';

const message = matchInput;

/** Text built to make an ambiguous pattern backtrack: reply prefixes (French `RE : ` among them), list tags, blank runs, mixes. */
const HOSTILE = [
  'RE : '.repeat(40),
  'RE : '.repeat(40) + 'x',
  'Re:'.repeat(40) + ' [x',
  'AW: '.repeat(40) + 'x',
  'AW:'.repeat(40),
  'Sv : Antw : Fwd : WG : TR : '.repeat(8) + 'x',
  '[x]'.repeat(40) + 'x',
  '[x] '.repeat(40) + ':',
  'Re [2] : [dev] '.repeat(20) + '[jira',
  'RE : [PATCH v2 1/3] '.repeat(20) + '(',
  'Re: [GitHub] '.repeat(30) + 'a b pull request',
  'Re' + ' '.repeat(2000) + 'x',
  `a-bot${'-bot'.repeat(500)}`,
  '<a'.repeat(1000),
  'vote '.repeat(400),
  'a.'.repeat(1000),
  '[patch '.repeat(300),
  '['.repeat(2000),
  '[a #1'.repeat(400),
  '(via github'.repeat(150),
  'a'.repeat(2040),
];

/** Each matcher of each bundled rule alone, so no earlier rule or matcher hides it. */
function everyBundledMatcher(): CompiledRule[] {
  const rules = loadRuleBook(loadSystems()).rulesOf('generic');
  return rules.flatMap((rule) =>
    rule.matchers.map((matcher) => ({
      ...rule,
      name: `${rule.name}:${matcher.field}`,
      hasPatch: undefined,
      matchers: [matcher],
    })),
  );
}

describe('rules matched within a budget', () => {
  it('every bundled pattern gets through hostile subjects, senders and bodies within the budget', async () => {
    const inputs = HOSTILE.flatMap((text) => [
      message({ subject: text }),
      message({ fromName: text, fromAddress: 'a@b.c' }),
      message({ fromName: text }),
      message({ body: text.repeat(30) }),
      message({ listId: text, listAddress: text }),
    ]);
    const overruns: string[] = [];
    for (const rule of everyBundledMatcher()) {
      const verdicts = await matchWithinBudget([rule], inputs, {}, 500);
      verdicts.forEach((verdict, index) => {
        if (verdict && 'error' in verdict)
          overruns.push(`${rule.name} on ${JSON.stringify(HOSTILE[Math.floor(index / 5)]!.slice(0, 30))}…`);
      });
    }
    expect(overruns).toEqual([]);
  }, 300_000); // a pattern that backtracks costs its budget per input: the failure lists them rather than timing out

  it('shunts only the message a backtracking rule of the user cannot finish, naming the rule, and labels the rest', async () => {
    const systems = validateSystems(
      'mine.yaml',
      `systems:\n  mine:\n    backend: mbox\n    rules:\n      - name: nested\n        class: vote\n        subject: '^(a+)+$'\n      - name: rest\n        class: discuss\n        subject: ''\n`.replace(
        "subject: ''",
        "subject: '.'",
      ),
    );
    const rules = compileRules(systems.value!).value!.rulesOf('mine');
    const verdicts = await matchWithinBudget(
      rules,
      [
        message({ subject: 'hello' }),
        message({ subject: `${'a'.repeat(60)}!` }),
        undefined,
        message({ subject: 'aaa' }),
      ],
      {},
      200,
    );
    expect(verdicts[0]).toMatchObject({ msgClass: 'discuss' });
    expect(verdicts[1]).toMatchObject({ error: expect.stringMatching(/more than 200 ms .*rule "nested"/) });
    expect(verdicts[2]).toBeUndefined();
    expect(verdicts[3]).toMatchObject({ msgClass: 'vote' });
  });

  it('hears a stop between timed calls', async () => {
    const systems = validateSystems(
      'mine.yaml',
      `systems:\n  mine:\n    backend: mbox\n    rules:\n      - name: nested\n        class: vote\n        subject: '^(a+)+$'\n`,
    );
    const rules = compileRules(systems.value!).value!.rulesOf('mine');
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('stopped')), 50);
    const slow = Array.from({ length: 1000 }, () => message({ subject: `${'a'.repeat(60)}!` }));
    await expect(matchWithinBudget(rules, slow, {}, 100, stop.signal)).rejects.toThrow('stopped');
  });
});
