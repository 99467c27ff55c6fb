import { describe, expect, it } from 'vitest';
import {
  classifyEnvelope,
  compileRules,
  explainEnvelope,
  loadRuleBook,
} from '../../../../src/core/classify/rule-set.js';
import { matchInput } from '../../../helpers/match-input.js';
import { validateSystems } from '../../../../src/core/systems/load-systems.js';

function book(rulesYaml: string, extra = '') {
  const text = `systems:\n  mine:\n    backend: mbox\n    rules:\n${rulesYaml}${extra}`;
  const systems = validateSystems('test.yaml', text);
  if (!systems.value) throw new Error(JSON.stringify(systems.errors));
  return compileRules(systems.value);
}

const message = matchInput;

describe('rule language', () => {
  it('lets the first matching rule decide and names it and its matcher as the source', () => {
    const rules = book(
      `      - name: a\n        class: vote\n        subject: '\\[vote\\]'\n      - name: b\n        class: discuss\n        subject: 'vote'\n`,
    ).value!.rulesOf('mine');
    expect(classifyEnvelope(rules, message({ subject: '[VOTE] x' }))).toEqual({
      msgClass: 'vote',
      source: 'a:subject',
      captures: {},
    });
    expect(classifyEnvelope(rules, message({ subject: 'a vote' })).source).toBe('b:subject');
    expect(classifyEnvelope(rules, message({ subject: 'nothing' }))).toEqual({
      msgClass: 'unclassified',
      source: 'default',
      captures: {},
    });
  });

  it('needs every matcher a rule names to match', () => {
    const rules = book(
      `      - class: issue_event\n        sender: '<jira@apache\\.org>'\n        subject: '\\((?<external_key>[A-Z]+-\\d+)\\)'\n`,
    ).value!.rulesOf('mine');
    expect(
      classifyEnvelope(rules, message({ subject: 'x (KAFKA-1)', fromAddress: 'jira@apache.org' })).captures,
    ).toEqual({ external_key: 'KAFKA-1' });
    expect(
      classifyEnvelope(rules, message({ subject: 'x (KAFKA-1)', fromAddress: 'someone@apache.org' })).msgClass,
    ).toBe('unclassified');
  });

  it('is case-insensitive unless told, and merges set: with named captures', () => {
    const rules = book(
      `      - class: github_mirror\n        subject: '^\\[PR\\]'\n        case_sensitive: true\n        set: { kind: pull_request }\n      - class: announce\n        subject: 'announce'\n`,
    ).value!.rulesOf('mine');
    expect(classifyEnvelope(rules, message({ subject: '[PR] x' }))).toMatchObject({
      msgClass: 'github_mirror',
      captures: { kind: 'pull_request' },
    });
    expect(classifyEnvelope(rules, message({ subject: '[pr] x' })).msgClass).toBe('unclassified');
    expect(classifyEnvelope(rules, message({ subject: 'ANNOUNCE' })).msgClass).toBe('announce');
  });

  it('lets body match line starts and has_patch test the envelope', () => {
    const rules = book(
      `      - class: review\n        body: '^Reviewed-by:'\n      - class: patch_submission\n        has_patch: true\n`,
    ).value!.rulesOf('mine');
    expect(classifyEnvelope(rules, message({ body: 'Looks good.\nReviewed-by: A <a@x>\n' })).msgClass).toBe('review');
    expect(classifyEnvelope(rules, message({ hasPatch: true })).source).toBe('mine#2:has_patch');
  });

  it('matches list_id and list_address, taking the registered list when the message has none', () => {
    const rules = book(`      - class: support\n        list_address: '^users@'\n`).value!.rulesOf('mine');
    expect(classifyEnvelope(rules, message(), { listAddress: 'users@kafka.apache.org' }).msgClass).toBe('support');
    expect(
      classifyEnvelope(rules, message({ listAddress: 'dev@kafka.apache.org' }), {
        listAddress: 'users@kafka.apache.org',
      }).msgClass,
    ).toBe('unclassified');
  });

  it('splices another system in with include', () => {
    const result = book(
      `      - class: vote\n        subject: 'x'\n      - include: other\n`,
      `  other:\n    backend: mbox\n    rules:\n      - class: announce\n        subject: 'y'\n`,
    );
    const rules = result.value!.rulesOf('mine');
    expect(rules.map((r) => r.msgClass)).toEqual(['vote', 'announce']);
  });

  it('shows a hostile body to matchers only up to a fixed size', () => {
    const rules = book(`      - class: review\n        body: 'needle'\n`).value!.rulesOf('mine');
    expect(classifyEnvelope(rules, message({ body: `${'a'.repeat(70_000)}needle` })).msgClass).toBe('unclassified');
    expect(classifyEnvelope(rules, message({ body: `${'a'.repeat(1000)}needle` })).msgClass).toBe('review');
  });
});

describe('rule validation', () => {
  const problem = (rulesYaml: string) => {
    const result = book(rulesYaml);
    expect(result.value).toBeUndefined();
    return result.errors[0]!;
  };

  it('refuses an unknown class with its line', () => {
    const p = problem(`      - class: vote\n        subject: a\n      - class: revew\n        subject: b\n`);
    expect(p).toMatchObject({ file: 'test.yaml', line: 7 });
    expect(p.message).toMatch(/unknown class "revew"/);
  });

  it('refuses a bad regular expression with its line', () => {
    const p = problem(`      - class: vote\n        subject: '(unclosed'\n`);
    expect(p.line).toBe(6);
    expect(p.message).toMatch(/subject is not a valid regular expression/);
  });

  it('refuses an unknown field with its line', () => {
    const p = problem(`      - class: vote\n        subjet: a\n`);
    expect(p.line).toBe(6);
    expect(p.message).toMatch(/unknown field "subjet"/);
  });

  it('refuses a rule without matchers and an include of an unknown system', () => {
    expect(problem(`      - class: vote\n`).message).toMatch(/needs at least one matcher/);
    expect(problem(`      - include: nowhere\n`).message).toMatch(/unknown system "nowhere"/);
  });

  it('refuses includes that go round in a circle', () => {
    const result = book(`      - include: other\n`, `  other:\n    backend: mbox\n    rules:\n      - include: mine\n`);
    expect(result.errors[0]!.message).toMatch(/circle/);
  });

  it('accepts the bundled systems.yaml', async () => {
    const { loadSystems } = await import('../../../../src/core/systems/load-systems.js');
    const rules = loadRuleBook(loadSystems());
    expect(rules.rulesOf('apache_ponymail').length).toBeGreaterThan(20);
    expect(rules.rulesOf('hyperkitty')).toBe(rules.rulesOf('hyperkitty'));
  });
});

describe('explaining a message', () => {
  const rules = () =>
    book(
      `      - name: patches\n        class: patch_submission\n        has_patch: true\n` +
        `      - name: jira\n        class: issue_event\n        sender: '<jira@'\n        subject: '\\((?<external_key>[A-Z]+-\\d+)\\)'\n` +
        `      - name: votes\n        class: vote\n        subject: '^\\[vote\\]'\n` +
        `      - name: any\n        class: discuss\n        subject: '.'\n`,
    ).value!.rulesOf('mine');

  it('gives the label classify gives, with every rule tried up to the winner and why each failed', () => {
    const input = message({ subject: 'Re: (KAFKA-1) x', fromAddress: 'bob@example.org', fromName: 'Bob' });
    const explained = explainEnvelope(rules(), input);
    expect(explained.winner).toEqual(classifyEnvelope(rules(), input));
    expect(explained.trials.map((t) => [t.name, t.matched])).toEqual([
      ['patches', false],
      ['jira', false],
      ['votes', false],
      ['any', true],
    ]);
    expect(explained.trials[0]!.steps).toEqual([
      { field: 'has_patch', pattern: 'true', matched: false, seen: 'false', seenLength: 5 },
    ]);
    // Matchers run subject first: the subject matched, the sender did not.
    expect(explained.trials[1]!.steps).toEqual([
      {
        field: 'subject',
        pattern: '/\\((?<external_key>[A-Z]+-\\d+)\\)/i',
        matched: true,
        seen: 'Re: (KAFKA-1) x',
        seenLength: 15,
        match: '(KAFKA-1)',
      },
      { field: 'sender', pattern: '/<jira@/i', matched: false, seen: 'Bob <bob@example.org>', seenLength: 21 },
    ]);
    expect(explained.trials[3]).toMatchObject({
      matched: true,
      steps: [{ field: 'subject', matched: true, match: 'R' }],
      captures: {},
    });
    expect(explained.untried).toBe(0);
  });

  it('stops at the winner, counts the rules not tried and keeps the captures', () => {
    const explained = explainEnvelope(
      rules(),
      message({ subject: 'Created (KAFKA-7)', fromAddress: 'jira@apache.org' }),
    );
    expect(explained.trials).toHaveLength(2);
    expect(explained.trials[1]).toMatchObject({ name: 'jira', matched: true, captures: { external_key: 'KAFKA-7' } });
    expect(explained.winner).toEqual({
      msgClass: 'issue_event',
      source: 'jira:subject',
      captures: { external_key: 'KAFKA-7' },
    });
    expect(explained.untried).toBe(2);
  });

  it('shows the start of a long text and its length, and the default when nothing matches', () => {
    const explained = explainEnvelope(rules().slice(0, 3), message({ subject: 'x'.repeat(500) }));
    expect(explained.winner).toEqual({ msgClass: 'unclassified', source: 'default', captures: {} });
    expect(explained.trials[2]!.steps[0]).toMatchObject({
      field: 'subject',
      matched: false,
      seen: 'x'.repeat(160),
      seenLength: 500,
    });
  });
});
