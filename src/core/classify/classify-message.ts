import type { Classification, Envelope } from './envelope.js';
import { MATCH_BUDGET_MS, matchWithinBudget } from './match-within-budget.js';
import { parseEnvelope } from './parse-envelope.js';
import type { CompiledRule, ListContext } from './rule-set.js';

export type MessageVerdict = { envelope: Envelope; classification: Classification } | { error: string };

/**
 * Parses one raw message and runs the rules over it. A message that cannot
 * be parsed, or that the rules cannot match within the budget, is not an
 * error of the run: it comes back with the reason, to be shunted with its
 * bytes kept.
 */
export async function classifyMessage(raw: Buffer, rules: readonly CompiledRule[], list: ListContext = {}, budgetMs = MATCH_BUDGET_MS): Promise<MessageVerdict> {
  return (await classifyMessages([raw], rules, list, budgetMs))[0]!;
}

/** A batch of raw messages of one list: each parsed, then all matched in one timed call (match-within-budget.ts). */
export async function classifyMessages(
  raws: readonly Buffer[],
  rules: readonly CompiledRule[],
  list: ListContext = {},
  budgetMs = MATCH_BUDGET_MS,
  signal?: AbortSignal,
): Promise<MessageVerdict[]> {
  const parsed: (Envelope | { error: string })[] = [];
  for (const raw of raws) {
    try {
      parsed.push(await parseEnvelope(raw));
    } catch (error) {
      parsed.push({ error: `cannot parse the message: ${(error as Error).message ?? String(error)}` });
    }
  }
  const envelopes = parsed.map((p) => ('error' in p ? undefined : p));
  const matched = await matchWithinBudget(rules, envelopes, list, budgetMs, signal);
  return parsed.map((p, index) => {
    if ('error' in p) return p;
    const verdict = matched[index]!;
    return 'error' in verdict ? { error: `cannot classify the message: ${verdict.error}` } : { envelope: p, classification: verdict };
  });
}

/** A verdict ready for the store: the envelope already as JSON (done where the parsing happened, off the main thread). */
export type StoredVerdict = { envelopeJson: string; classification: Classification } | { error: string };

export function toStoredVerdict(verdict: MessageVerdict): StoredVerdict {
  return 'error' in verdict ? verdict : { envelopeJson: JSON.stringify(verdict.envelope), classification: verdict.classification };
}
