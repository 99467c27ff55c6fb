import type { MessageExplanation } from '../core/classify/explain-message.js';
import type { MatcherStep } from '../core/classify/rule-set.js';

/** `classify --explain` for a reader: the message, the label it has, each rule tried and why, the winner. */
export function renderExplanation(explanation: MessageExplanation): string {
  const { message, stored } = explanation;
  const lines = [
    `${message.system} ${message.list}: message ${message.messageKey} (${message.status})`,
    `rules of ${explanation.rules}, systems file sha256 ${shortHash(explanation.rulesHash)}, listminer ${explanation.listminerVersion}`,
    stored
      ? `stored label: ${stored.msgClass} by ${stored.source} (rules ${stored.rulesHash ? shortHash(stored.rulesHash) : 'not recorded'}, listminer ${stored.listminerVersion ?? 'not recorded'})`
      : 'stored label: none yet',
  ];
  if (explanation.error) return [...lines, `cannot label it: ${explanation.error}`].join('\n');
  lines.push('');
  explanation.trials.forEach((trial, index) => {
    lines.push(
      `${String(index + 1).padStart(3)}. ${trial.name} → ${trial.msgClass}: ${trial.matched ? 'MATCHED' : 'no match'}`,
    );
    for (const step of trial.steps) lines.push(`       ${describeStep(step)}`);
    if (trial.captures && Object.keys(trial.captures).length > 0) {
      lines.push(
        `       captures: ${Object.entries(trial.captures)
          .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
          .join(', ')}`,
      );
    }
  });
  const winner = explanation.winner!;
  const untried = explanation.untried ? ` (${explanation.untried} later rule(s) not tried)` : '';
  const verdict =
    winner.source === 'default'
      ? `no rule matched: ${winner.msgClass} (default)`
      : `${winner.msgClass} by ${winner.source}${untried}`;
  lines.push('', `winner: ${verdict}`);
  return lines.join('\n');
}

function describeStep(step: MatcherStep): string {
  if (step.field === 'has_patch') {
    return `has_patch: the rule wants ${step.pattern}, the message has ${step.seen} — ${step.matched ? 'matched' : 'failed'}`;
  }
  const seen = `${JSON.stringify(step.seen)}${step.seenLength > step.seen.length ? ` (first ${step.seen.length} of ${step.seenLength} characters)` : ''}`;
  return step.matched
    ? `${step.field} ${step.pattern} matched ${JSON.stringify(step.match)}`
    : `${step.field} ${step.pattern} did not match ${seen}`;
}

function shortHash(hash: string): string {
  return hash.slice(0, 12);
}
