import type { Classification, Envelope } from './envelope.js';
import { storableText } from './decode-text.js';
import { parseEnvelope } from './parse-envelope.js';
import { classifyEnvelope, type CompiledRule, type ListContext } from './rule-set.js';

export type MessageVerdict = { envelope: Envelope; classification: Classification } | { error: string };

/**
 * Parses one raw message and runs the rules over it. A message that cannot
 * be parsed is not an error of the run: it comes back with the reason, to
 * be shunted with its bytes kept.
 */
export async function classifyMessage(raw: Buffer, rules: readonly CompiledRule[], list: ListContext = {}): Promise<MessageVerdict> {
  let envelope: Envelope;
  try {
    envelope = await parseEnvelope(raw);
  } catch (error) {
    return { error: `cannot parse the message: ${(error as Error).message ?? String(error)}` };
  }
  return { envelope, classification: storableCaptures(classifyEnvelope(rules, envelope, list)) };
}

/** A rule's pattern can capture half of a surrogate pair; captures are stored text like the envelope's. */
function storableCaptures(classification: Classification): Classification {
  const captures = Object.fromEntries(Object.entries(classification.captures).map(([name, value]) => [name, storableText(value)]));
  return { ...classification, captures };
}

/** A verdict ready for the store: the envelope already as JSON (done where the parsing happened, off the main thread). */
export type StoredVerdict = { envelopeJson: string; classification: Classification } | { error: string };

export function toStoredVerdict(verdict: MessageVerdict): StoredVerdict {
  return 'error' in verdict ? verdict : { envelopeJson: JSON.stringify(verdict.envelope), classification: verdict.classification };
}
