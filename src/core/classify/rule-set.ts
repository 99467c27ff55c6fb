import { InputError } from '../errors.js';
import { isPlainObject, refuseProblems, type Problem, type Validation } from '../config/yaml-document.js';
import type { Systems } from '../systems/load-systems.js';
import { MSG_CLASSES, type Classification, type Envelope, type MsgClass } from './envelope.js';

/**
 * The rule language of systems.yaml (docs/systems.md). A rule names a class
 * and one or more matchers; it matches when every matcher it names matches,
 * and the first rule that matches decides. Rules are validated and compiled
 * once per file; classifying a message only runs the compiled expressions.
 */
export const MATCHER_FIELDS = ['subject', 'sender', 'body', 'list_id', 'list_address'] as const;
export type MatcherField = (typeof MATCHER_FIELDS)[number];

const RULE_FIELDS = new Set<string>([
  ...MATCHER_FIELDS,
  'name',
  'class',
  'has_patch',
  'case_sensitive',
  'set',
  'description',
]);

/** Matchers see bounded text, so no message can keep an expression busy for long. */
export const BODY_LIMIT = 64 * 1024;
const FIELD_LIMIT = 2 * 1024;

export interface CompiledRule {
  name: string;
  msgClass: MsgClass;
  matchers: { field: MatcherField; pattern: RegExp }[];
  hasPatch?: boolean;
  set: Record<string, string>;
}

/** What matchers look at beside the message: the registered list fills in a missing List-Id or address. */
export interface ListContext {
  listId?: string | null;
  listAddress?: string | null;
}

export type MatchInput = Pick<
  Envelope,
  'subject' | 'fromName' | 'fromAddress' | 'body' | 'listId' | 'listAddress' | 'hasPatch'
>;

export class RuleBook {
  constructor(private readonly bySystem: ReadonlyMap<string, readonly CompiledRule[]>) {}

  /** The rules a system's mail goes through (after `include`s are spliced in). */
  rulesOf(system: string): readonly CompiledRule[] {
    const rules = this.bySystem.get(system);
    if (!rules) {
      throw new InputError(
        `The systems file has no system "${system}" whose rules a list asks for.`,
        `Add it to the systems file, or change the list with \`listminer lists add --rules SYSTEM\`. Known: ${this.systems.join(', ')}.`,
      );
    }
    return rules;
  }

  get systems(): string[] {
    return [...this.bySystem.keys()];
  }
}

const compiled = new WeakMap<Systems, RuleBook>();

/** The compiled rules of a systems file; a bad rule is refused with its line and reason (exit code 2). */
export function loadRuleBook(systems: Systems): RuleBook {
  const cached = compiled.get(systems);
  if (cached) return cached;
  const result = compileRules(systems);
  if (!result.value)
    refuseProblems(result.errors, 'Fix the rules in the systems file; docs/systems.md describes the rule language.');
  compiled.set(systems, result.value);
  return result.value;
}

export function compileRules(systems: Systems): Validation<RuleBook> {
  const errors: Problem[] = [];
  const own = new Map<string, (CompiledRule | { include: string })[]>();
  for (const system of systems.systems.values()) {
    const rules: (CompiledRule | { include: string })[] = [];
    system.rules.forEach((raw, index) => {
      const at = ['systems', system.name, 'rules', index];
      const rule = compileRule(raw, `${system.name}#${index + 1}`, (path, message) =>
        errors.push(systems.yaml.problem([...at, ...path], message)),
      );
      if (rule && 'include' in rule && !systems.systems.has(rule.include)) {
        errors.push(systems.yaml.problem([...at, 'include'], `include names unknown system "${rule.include}"`));
      } else if (rule) rules.push(rule);
    });
    own.set(system.name, rules);
  }
  if (errors.length) return { errors, warnings: [] };
  const flat = new Map<string, CompiledRule[]>();
  const expand = (name: string, trail: string[]): CompiledRule[] => {
    if (trail.includes(name)) {
      errors.push(
        systems.yaml.problem(
          ['systems', trail[0]!, 'rules'],
          `rules include each other in a circle: ${[...trail, name].join(' → ')}`,
        ),
      );
      return [];
    }
    return own.get(name)!.flatMap((rule) => ('include' in rule ? expand(rule.include, [...trail, name]) : [rule]));
  };
  for (const system of systems.systems.values()) flat.set(system.name, expand(system.rulesFrom, []));
  if (errors.length) return { errors: errors.slice(0, 1), warnings: [] };
  return { value: new RuleBook(flat), errors: [], warnings: [] };
}

type Report = (path: (string | number)[], message: string) => void;

function compileRule(
  raw: unknown,
  fallbackName: string,
  report: Report,
): CompiledRule | { include: string } | undefined {
  if (!isPlainObject(raw)) {
    report([], 'a rule must be a mapping (class: and at least one matcher)');
    return undefined;
  }
  if ('include' in raw) {
    const others = Object.keys(raw).filter((key) => key !== 'include');
    if (others.length) report([others[0]!], `an include entry takes no other fields (found "${others[0]}")`);
    if (typeof raw.include !== 'string') report(['include'], 'include must name a system');
    return typeof raw.include === 'string' && !others.length ? { include: raw.include } : undefined;
  }
  let ok = true;
  const fail: Report = (path, message) => {
    ok = false;
    report(path, message);
  };
  for (const key of Object.keys(raw)) {
    if (!RULE_FIELDS.has(key)) fail([key], `unknown field "${key}" (known: ${[...RULE_FIELDS, 'include'].join(', ')})`);
  }
  const msgClass = raw.class;
  if (typeof msgClass !== 'string' || !MSG_CLASSES.includes(msgClass as MsgClass)) {
    fail(['class'], `unknown class ${JSON.stringify(msgClass ?? null)} (known: ${MSG_CLASSES.join(', ')})`);
  }
  if (raw.name !== undefined && (typeof raw.name !== 'string' || !/^[\w.-]+$/.test(raw.name))) {
    fail(['name'], 'name must be letters, digits, "_", "-" or "."');
  }
  if (raw.case_sensitive !== undefined && typeof raw.case_sensitive !== 'boolean')
    fail(['case_sensitive'], 'case_sensitive must be true or false');
  if (raw.has_patch !== undefined && typeof raw.has_patch !== 'boolean')
    fail(['has_patch'], 'has_patch must be true or false');
  const set: Record<string, string> = {};
  if (raw.set !== undefined) {
    if (!isPlainObject(raw.set)) fail(['set'], 'set must be a mapping of capture name to text');
    else
      for (const [key, value] of Object.entries(raw.set)) {
        if (typeof value !== 'string' && typeof value !== 'number') fail(['set', key], `set.${key} must be text`);
        else set[key] = String(value);
      }
  }
  const flags = raw.case_sensitive === true ? '' : 'i';
  const matchers: CompiledRule['matchers'] = [];
  for (const field of MATCHER_FIELDS) {
    const source = raw[field];
    if (source === undefined) continue;
    if (typeof source !== 'string' || source === '') {
      fail([field], `${field} must be a regular expression`);
      continue;
    }
    try {
      matchers.push({ field, pattern: new RegExp(source, field === 'body' ? `${flags}m` : flags) });
    } catch (error) {
      fail(
        [field],
        `${field} is not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`,
      );
    }
  }
  if (matchers.length === 0 && raw.has_patch === undefined && ok)
    fail([], 'a rule needs at least one matcher (subject, sender, body, list_id, list_address or has_patch)');
  if (!ok) return undefined;
  return {
    name: typeof raw.name === 'string' ? raw.name : fallbackName,
    msgClass: msgClass as MsgClass,
    matchers,
    hasPatch: raw.has_patch as boolean | undefined,
    set,
  };
}

function matcherText(field: MatcherField, input: MatchInput, list: ListContext): string {
  switch (field) {
    case 'subject':
      return input.subject.slice(0, FIELD_LIMIT);
    case 'sender':
      return `${input.fromName ?? ''} <${input.fromAddress ?? ''}>`.slice(0, FIELD_LIMIT);
    case 'body':
      return input.body.length > BODY_LIMIT ? input.body.slice(0, BODY_LIMIT) : input.body;
    case 'list_id':
      return (input.listId ?? list.listId ?? '').slice(0, FIELD_LIMIT);
    case 'list_address':
      return (input.listAddress ?? list.listAddress ?? '').toLowerCase().slice(0, FIELD_LIMIT);
  }
}

/** First matching rule wins; no match is `unclassified` from `default`. `onRule` hears of each rule before it runs. */
export function classifyEnvelope(
  rules: readonly CompiledRule[],
  input: MatchInput,
  list: ListContext = {},
  onRule?: (rule: CompiledRule) => void,
): Classification {
  for (const rule of rules) {
    onRule?.(rule);
    const captures = tryRule(rule, input, list);
    if (captures) return { msgClass: rule.msgClass, source: sourceOf(rule), captures };
  }
  return UNMATCHED;
}

const UNMATCHED: Classification = { msgClass: 'unclassified', source: 'default', captures: {} };

/** What class_source says of a label: the rule's name and the field that decided it. */
function sourceOf(rule: CompiledRule): string {
  return `${rule.name}:${rule.matchers[0]?.field ?? 'has_patch'}`;
}

/** One matcher of a rule over one message, as `classify --explain` shows it. */
export interface MatcherStep {
  field: MatcherField | 'has_patch';
  /** The expression as written with its flags (`/…/i`), or for has_patch the value the rule asks for. */
  pattern: string;
  matched: boolean;
  /** The start of the text the matcher saw (for has_patch, whether the message has a patch), and its whole length. */
  seen: string;
  seenLength: number;
  /** What the expression matched, when it did. */
  match?: string;
}

/** One rule tried on a message: matched or not, each matcher it ran (it stops at the first that fails), its captures when it matched. */
export interface RuleTrial {
  name: string;
  msgClass: MsgClass;
  matched: boolean;
  steps: MatcherStep[];
  captures?: Record<string, string>;
}

export interface RulesExplanation {
  /** Every rule tried, in order: those that did not match, then the winner (none when no rule matched). */
  trials: RuleTrial[];
  /** The label the message gets, as classify stores it. */
  winner: Classification;
  /** Rules after the winner, never tried. */
  untried: number;
}

const SEEN_LIMIT = 160;

/** The same matching as classifyEnvelope, every step of it kept: why a message got its class. */
export function explainEnvelope(
  rules: readonly CompiledRule[],
  input: MatchInput,
  list: ListContext = {},
): RulesExplanation {
  const trials: RuleTrial[] = [];
  for (const [index, rule] of rules.entries()) {
    const steps: MatcherStep[] = [];
    const captures = tryRule(rule, input, list, (step) => steps.push(step));
    trials.push({
      name: rule.name,
      msgClass: rule.msgClass,
      matched: captures !== undefined,
      steps,
      ...(captures ? { captures } : {}),
    });
    if (captures)
      return {
        trials,
        winner: { msgClass: rule.msgClass, source: sourceOf(rule), captures },
        untried: rules.length - index - 1,
      };
  }
  return { trials, winner: UNMATCHED, untried: 0 };
}

/** The rule's captures when every matcher it names matches; `step` hears of each matcher it runs. */
function tryRule(
  rule: CompiledRule,
  input: MatchInput,
  list: ListContext,
  step?: (step: MatcherStep) => void,
): Record<string, string> | undefined {
  if (rule.hasPatch !== undefined) {
    const matched = rule.hasPatch === input.hasPatch;
    step?.({
      field: 'has_patch',
      pattern: String(rule.hasPatch),
      matched,
      seen: String(input.hasPatch),
      seenLength: String(input.hasPatch).length,
    });
    if (!matched) return undefined;
  }
  const captures: Record<string, string> = { ...rule.set };
  for (const { field, pattern } of rule.matchers) {
    const text = matcherText(field, input, list);
    const match = pattern.exec(text);
    step?.({
      field,
      pattern: String(pattern),
      matched: match !== null,
      seen: text.slice(0, SEEN_LIMIT),
      seenLength: text.length,
      ...(match ? { match: match[0].slice(0, SEEN_LIMIT) } : {}),
    });
    if (!match) return undefined;
    for (const [key, value] of Object.entries(match.groups ?? {}))
      if (value !== undefined) captures[key] = value.trim();
  }
  return captures;
}
