import type { Classification, Envelope } from './envelope.js';
import { storableText } from './decode-text.js';
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
export async function classifyMessage(
  raw: Buffer,
  rules: readonly CompiledRule[],
  list: ListContext = {},
  budgetMs = MATCH_BUDGET_MS,
): Promise<MessageVerdict> {
  return (await classifyMessages([raw], rules, { list, budgetMs }))[0]!;
}

/** Messages parsed before their rules run in one timed call: enough to make the call's cost vanish, few enough that their envelopes stay small. */
const MATCH_CHUNK = 64;

export interface ClassifyBatchOptions {
  list?: ListContext;
  budgetMs?: number;
  signal?: AbortSignal;
}

/**
 * A batch of raw messages of one list: parsed, then matched a chunk at a
 * time in one timed call each (match-within-budget.ts). `keep` turns each
 * verdict into what the caller holds (toStoredVerdict for the store) as its
 * chunk is done, so a batch's envelopes are never all held at once.
 */
export async function classifyMessages<T = MessageVerdict>(
  raws: readonly Buffer[],
  rules: readonly CompiledRule[],
  { list = {}, budgetMs = MATCH_BUDGET_MS, signal }: ClassifyBatchOptions = {},
  keep: (verdict: MessageVerdict) => T = (verdict) => verdict as T,
): Promise<T[]> {
  const kept: T[] = [];
  for (let from = 0; from < raws.length; from += MATCH_CHUNK) {
    const parsed: (Envelope | { error: string })[] = [];
    for (const raw of raws.slice(from, from + MATCH_CHUNK)) {
      try {
        parsed.push(await parseEnvelope(raw));
      } catch (error) {
        parsed.push({ error: `cannot parse the message: ${(error as Error).message ?? String(error)}` });
      }
    }
    const matched = await matchWithinBudget(
      rules,
      parsed.map((p) => ('error' in p ? undefined : p)),
      list,
      budgetMs,
      signal,
    );
    parsed.forEach((p, index) => {
      if ('error' in p) return kept.push(keep(p));
      const verdict = matched[index]!;
      return kept.push(
        keep(
          'error' in verdict
            ? { error: `cannot classify the message: ${verdict.error}` }
            : { envelope: p, classification: storableCaptures(verdict) },
        ),
      );
    });
  }
  return kept;
}

/** A rule's pattern can capture half of a surrogate pair; captures are stored text like the envelope's. */
function storableCaptures(classification: Classification): Classification {
  const captures = Object.fromEntries(
    Object.entries(classification.captures).map(([name, value]) => [name, storableText(value)]),
  );
  return { ...classification, captures };
}

/** A verdict ready for the store: the envelope already as JSON (done where the parsing happened, off the main thread). */
export type StoredVerdict = { envelopeJson: string; classification: Classification } | { error: string };

export function toStoredVerdict(verdict: MessageVerdict): StoredVerdict {
  return 'error' in verdict
    ? verdict
    : { envelopeJson: JSON.stringify(verdict.envelope), classification: verdict.classification };
}
