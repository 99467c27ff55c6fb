import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
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

/** One rule whose expression backtracks without end on a run of a's with something after it. */
function backtrackingRules(): CompiledRule[] {
  const systems = validateSystems(
    'mine.yaml',
    `systems:\n  mine:\n    backend: mbox\n    rules:\n      - name: nested\n        class: vote\n        subject: '^(a+)+$'\n`,
  );
  return [...compileRules(systems.value!).value!.rulesOf('mine')];
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
    const rules = backtrackingRules();
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('stopped')), 50);
    const slow = Array.from({ length: 1000 }, () => message({ subject: `${'a'.repeat(60)}!` }));
    await expect(matchWithinBudget(rules, slow, {}, 100, stop.signal)).rejects.toThrow('stopped');
  });

  it('hears a signal that came during a timed call before it starts the next: within one budget', async () => {
    const rules = backtrackingRules();
    const stop = new AbortController();
    const onSignal = () => stop.abort(new Error('stopped'));
    process.once('SIGUSR2', onSignal);
    const budget = 1000;
    // The signal arrives while the first timed call runs, as a Ctrl-C does; its handler can run only between calls.
    execFile('sh', ['-c', `sleep 0.2; kill -USR2 ${process.pid}`]);
    const slow = Array.from({ length: 10 }, () => message({ subject: `${'a'.repeat(60)}!` }));
    // Started from an I/O callback, as a stage's batch is: the loop is in its poll phase, where signals are heard.
    await readFile(fileURLToPath(import.meta.url));
    const began = Date.now();
    try {
      await expect(matchWithinBudget(rules, slow, {}, budget, stop.signal)).rejects.toThrow('stopped');
    } finally {
      process.removeListener('SIGUSR2', onSignal);
    }
    // One budget and what surrounds it; hearing it only after the next message's own call took two.
    expect(Date.now() - began).toBeLessThan(1.8 * budget);
  }, 30_000);
});
