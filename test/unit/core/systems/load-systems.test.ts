import { describe, expect, it } from 'vitest';
import { loadSystems, validateSystems } from '../../../../src/core/systems/load-systems.js';

describe('systems file', () => {
  it('loads the bundled systems.yaml', () => {
    const systems = loadSystems();
    expect([...systems.systems.keys()]).toEqual(expect.arrayContaining(['apache_ponymail', 'public_inbox', 'pipermail', 'hyperkitty', 'mbox', 'maildir']));
    expect(systems.systems.get('apache_ponymail')).toMatchObject({ backend: 'apache_ponymail', projectionPolicy: 'clean_fit' });
    expect(systems.systems.get('mbox')?.rulesFrom).toBe('generic');
  });

  it('refuses an unknown backend at its line', () => {
    const text = 'systems:\n  a:\n    backend: mbox\n  b:\n    backend: nntp\n';
    const { errors } = validateSystems('s.yaml', text);
    expect(errors).toEqual([expect.objectContaining({ line: 5, message: expect.stringContaining('backend must be one of') })]);
  });

  it('refuses rules_from naming a system that does not exist', () => {
    const { errors } = validateSystems('s.yaml', 'systems:\n  a:\n    backend: mbox\n    rules_from: nothing\n');
    expect(errors[0]).toMatchObject({ line: 4, message: 'rules_from names unknown system "nothing"' });
  });
});
