import { describe, expect, it } from 'vitest';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';
import { expectedClasses } from '../../../../src/core/verify/expected-classes.js';
import { judgeBranches, requiredGaps, type CoverageFigures } from '../../../../src/core/verify/coverage-branches.js';

const systems = loadSystems();
const list = (system: string, name: string, rulesSystem: string | null = null) => ({ system, name, rulesSystem });
const figures = (expected: CoverageFigures['expected'], classes: Record<string, number>): CoverageFigures => ({
  lists: 1,
  backends: new Map([['mbox', 10]]),
  classes: new Map(Object.entries(classes)),
  routing: new Map([['none', 10]]),
  mail: {
    total: 10,
    replies: 4,
    signaledCaptured: 0,
    signaledResolved: 0,
    bots: 0,
    humans: 10,
    humansResolved: 0,
    issueEvents: 0,
    issueEventsWithKey: 0,
  },
  prEquivalents: 0,
  expected,
});

describe('expectedClasses', () => {
  it("takes a list's expectations from the system it chose rules from, else its own system", () => {
    const expected = expectedClasses(
      [
        list('apache_ponymail', 'dev@kafka.apache.org'),
        list('mbox', '/data/quarry.mbox', 'apache_ponymail'),
        list('public_inbox', 'netdev'),
        list('mbox', '/data/other.mbox'),
      ],
      systems,
    );
    expect(Object.fromEntries(expected)).toEqual({
      issue_event: [
        {
          system: 'apache_ponymail',
          source: 'systems',
          file: systems.file,
          lists: ['dev@kafka.apache.org', '/data/quarry.mbox'],
        },
      ],
      patch_submission: [{ system: 'public_inbox', source: 'systems', file: systems.file, lists: ['netdev'] }],
      review: [{ system: 'public_inbox', source: 'systems', file: systems.file, lists: ['netdev'] }],
    });
  });

  it("lets the config file's verify_expects replace a system's expects", () => {
    const expected = expectedClasses([list('public_inbox', 'netdev'), list('mbox', '/m')], systems, {
      file: '/c.yaml',
      expects: { public_inbox: ['review'], mbox: ['discuss'] },
    });
    expect([...expected.keys()].sort()).toEqual(['discuss', 'review']);
    expect(expected.get('discuss')).toEqual([{ system: 'mbox', source: 'config', file: '/c.yaml', lists: ['/m'] }]);
  });

  it('refuses an unknown class or system, saying where it is written', () => {
    expect(() => expectedClasses([], systems, { file: '/c.yaml', expects: { mbox: ['revew'] } })).toThrow(
      /\/c\.yaml \(verify_expects\.mbox\): unknown class "revew"/,
    );
    expect(() => expectedClasses([], systems, { file: '/c.yaml', expects: { lore: [] } })).toThrow(/"lore"/);
  });
});

describe('judgeBranches', () => {
  it('makes a class required only when a system expects it, and says who does', () => {
    const expected = expectedClasses([list('public_inbox', 'netdev')], systems);
    const branches = judgeBranches(figures(expected, { patch_submission: 3, discuss: 7 }));
    const byName = Object.fromEntries(branches.map((b) => [b.name, b]));
    expect(byName['class:issue_event']).toMatchObject({ weight: 'informational', status: 'EMPTY' });
    expect(byName['class:review']).toMatchObject({ weight: 'required', status: 'EMPTY', why: 'public_inbox (1 list)' });
    expect(byName['lists']).toMatchObject({ weight: 'required', why: 'every store' });
    expect(requiredGaps(branches)).toEqual(['class:review']);
  });
});
