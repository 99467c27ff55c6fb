import { describe, expect, it } from 'vitest';
import { loadSystems, validateSystems } from '../../../../src/core/systems/load-systems.js';

describe('systems file', () => {
  it('loads the bundled systems.yaml', () => {
    const systems = loadSystems();
    expect([...systems.systems.keys()]).toEqual(
      expect.arrayContaining(['apache_ponymail', 'public_inbox', 'pipermail', 'hyperkitty', 'mbox', 'maildir']),
    );
    expect(systems.systems.get('apache_ponymail')).toMatchObject({
      backend: 'apache_ponymail',
      projectionPolicy: 'clean_fit',
    });
    expect(systems.systems.get('mbox')?.rulesFrom).toBe('generic');
  });

  it('refuses an unknown backend at its line', () => {
    const text = 'systems:\n  a:\n    backend: mbox\n  b:\n    backend: gopher\n';
    const { errors } = validateSystems('s.yaml', text);
    expect(errors).toEqual([
      expect.objectContaining({ line: 5, message: expect.stringContaining('backend must be one of') }),
    ]);
  });

  it('refuses rules_from naming a system that does not exist', () => {
    const { errors } = validateSystems('s.yaml', 'systems:\n  a:\n    backend: mbox\n    rules_from: nothing\n');
    expect(errors[0]).toMatchObject({ line: 4, message: 'rules_from names unknown system "nothing"' });
  });

  it('reads what each bundled system expects: issue mail of Apache lists, patches and review of kernel lists, nothing of the others', () => {
    const systems = loadSystems();
    const expects = Object.fromEntries([...systems.systems.values()].map((system) => [system.name, system.expects]));
    expect(expects).toMatchObject({
      apache_ponymail: ['issue_event'],
      public_inbox: ['patch_submission', 'review'],
      mbox: [],
      maildir: [],
      pipermail: [],
      hyperkitty: [],
    });
  });

  it('takes a system without expects as expecting nothing, and refuses expects that is not a list of names', () => {
    expect(validateSystems('s.yaml', 'systems:\n  a:\n    backend: mbox\n').value?.systems.get('a')?.expects).toEqual(
      [],
    );
    const { errors } = validateSystems('s.yaml', 'systems:\n  a:\n    backend: mbox\n    expects: review\n');
    expect(errors[0]).toMatchObject({
      line: 4,
      message: expect.stringContaining('expects must be a list of class names'),
    });
  });
});
