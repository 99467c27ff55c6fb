import { Script, createContext } from 'node:vm';
import type { Classification } from './envelope.js';
import { classifyEnvelope, type CompiledRule, type ListContext, type MatchInput } from './rule-set.js';

/** How long the rules may take over one message before it is shunted: far beyond any sane rule, which takes microseconds. */
export const MATCH_BUDGET_MS = 2000;
/** The longest budget --match-budget takes: an hour a message is already no budget at all. */
export const MAX_MATCH_BUDGET_MS = 3_600_000;

export type MatchVerdict = Classification | { error: string };

// One empty context and one compiled call for the process: the script only calls back into this module.
const sandbox = createContext({ step: () => {} });
const callStep = new Script('step()');

/**
 * Runs the rules over every input, no message taking more than `budgetMs`.
 * A regular expression that backtracks exponentially (a rule of the user's,
 * or a bundled one on a subject nobody foresaw) cannot be stopped from
 * JavaScript once it runs; V8 can stop it when the call runs under a `vm`
 * timeout, whose watchdog thread interrupts the expression. All the inputs
 * go in one timed call (a timed call costs a thread wake-up, too much per
 * message); when the timer fires, the message being matched starts a new
 * call with a budget of its own, and only a message that overruns a call it
 * started is shunted, naming the rule that was running. A stop asked for
 * meanwhile ends the matching with the signal's reason.
 */
export async function matchWithinBudget(
  rules: readonly CompiledRule[],
  inputs: readonly (MatchInput | undefined)[],
  list: ListContext,
  budgetMs = MATCH_BUDGET_MS,
  signal?: AbortSignal,
): Promise<(MatchVerdict | undefined)[]> {
  const verdicts = new Array<MatchVerdict | undefined>(inputs.length);
  let next = 0;
  let running = '';
  const track = (rule: CompiledRule) => (running = rule.name);
  const step = () => {
    for (; next < inputs.length; next++) {
      const input = inputs[next];
      verdicts[next] = input && classifyEnvelope(rules, input, list, track);
    }
  };
  while (next < inputs.length) {
    const first = next;
    try {
      sandbox.step = step; // set before each call: another batch may have used the context while this one waited
      callStep.runInContext(sandbox, { timeout: budgetMs });
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw error;
      // Between timed calls the event loop runs, so a SIGTERM is heard within a budget however slow the rules are.
      // A signal's handler runs in the loop's poll phase: two turns make sure one came between (one can
      // end in the same turn's check phase, and the next message would get a budget of its own first).
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      if (next === first) {
        verdicts[next] = {
          error: `the rules took more than ${budgetMs} ms over this message (rule "${running}" was running): its regular expression backtracks without end on this text; make the pattern unambiguous (docs/systems.md)`,
        };
        next++;
      }
    }
  }
  sandbox.step = () => {};
  return verdicts;
}
