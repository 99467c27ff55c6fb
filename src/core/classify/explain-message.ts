import { DEFAULT_MAX_MESSAGE_BYTES } from '../config/load-config.js';
import { InputError } from '../errors.js';
import { LISTMINER_VERSION } from '../listminer-version.js';
import { tooLargeReason } from '../pipeline/too-large-reason.js';
import { selectLists, type ListSelection } from '../registry/select-lists.js';
import type { ProvenLabel } from '../store/classify-records.js';
import type { StagedStatus } from '../store/staging-records.js';
import type { Store } from '../store/store.js';
import type { Systems } from '../systems/load-systems.js';
import { classifyMessage } from './classify-message.js';
import { rulesSystemOf } from './classify-staged.js';
import type { Classification } from './envelope.js';
import { MATCH_BUDGET_MS } from './match-within-budget.js';
import { explainEnvelope, loadRuleBook, type ListContext, type RuleTrial } from './rule-set.js';

export interface ExplainOptions {
  selection?: ListSelection;
  /** A message larger than this is not parsed (the config's max_message_bytes). */
  maxMessageBytes?: number;
  budgetMs?: number;
}

/** Why a stored message gets the class it gets from the rules given, step by step. */
export interface MessageExplanation {
  message: { system: string; list: string; messageKey: string; status: StagedStatus };
  /** The system whose rules the list's mail goes through. */
  rules: string;
  /** The rules explained (sha256 of the systems file's text) and this listminer. */
  rulesHash: string;
  listminerVersion: string;
  /** The label the store holds now, with the rules that made it (null: none yet). */
  stored: ProvenLabel | null;
  /** Every rule tried, in order; empty when the message could not be parsed or matched (see `error`). */
  trials: RuleTrial[];
  /** The label these rules give; null when the message cannot be labelled (see `error`). */
  winner: Classification | null;
  /** Rules after the winner, not tried. */
  untried: number;
  /** Why the message cannot be labelled: it does not parse, is too large, or the rules overran their budget on it. */
  error?: string;
}

/**
 * Explains one stored message, found by its Message-ID (with or without
 * <>) or its message key, on the lists of the selection. Reads its raw
 * bytes and writes nothing. The message is first classified as classify
 * does, under the match budget; only when that finishes are its rules run
 * again with every step kept, so a hostile expression cannot hang it.
 */
export async function explainMessage(
  store: Store,
  systems: Systems,
  reference: string,
  options: ExplainOptions = {},
): Promise<MessageExplanation> {
  const book = loadRuleBook(systems);
  const lists = await selectLists(store, options.selection ?? {});
  const found = await store.classify.find(
    reference,
    lists.map((list) => list.id),
  );
  const where = options.selection?.names?.length
    ? ` on ${lists.map((list) => `${list.system} ${list.name}`).join(', ')}`
    : '';
  if (found.length === 0) {
    throw new InputError(
      `No stored message has the Message-ID or message key "${reference}"${where}.`,
      'Give the Message-ID as the mail carries it (with or without <>) or a message_key from the store; fetch the list first if its mail is not stored yet.',
    );
  }
  if (found.length > 1) {
    const listOf = new Map(lists.map((list) => [list.id, list]));
    const candidates = found
      .map((m) => `${listOf.get(m.listId)!.system} ${listOf.get(m.listId)!.name}: ${m.messageKey}`)
      .join('; ');
    throw new InputError(
      `"${reference}" names ${found.length} stored messages: ${candidates}.`,
      'Add --list to choose the list, or give the message key of the one to explain.',
    );
  }
  const message = found[0]!;
  const list = lists.find((l) => l.id === message.listId)!;
  const rulesName = rulesSystemOf(systems, list);
  const rules = book.rulesOf(rulesName);
  const context: ListContext = { listId: list.listId, listAddress: list.listAddress };
  const explanation: MessageExplanation = {
    message: { system: list.system, list: list.name, messageKey: message.messageKey, status: message.status },
    rules: rulesName,
    rulesHash: systems.rulesHash,
    listminerVersion: LISTMINER_VERSION,
    stored: message.label,
    trials: [],
    winner: null,
    untried: 0,
  };
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (message.size > maxBytes) return { ...explanation, error: tooLargeReason(message.size, maxBytes) };
  const verdict = await classifyMessage(
    await store.classify.raw(message.id),
    rules,
    context,
    options.budgetMs ?? MATCH_BUDGET_MS,
  );
  if ('error' in verdict) return { ...explanation, error: verdict.error };
  return { ...explanation, ...explainEnvelope(rules, verdict.envelope, context) };
}
