import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { YamlFile } from '../../../../src/core/config/yaml-document.js';
import {
  BUNDLED_SYSTEMS,
  loadSystems,
  readSystemsSnapshot,
  validateSystems,
} from '../../../../src/core/systems/load-systems.js';

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

  it('refuses a base_url its backend does not read, naming the schemes it reads', () => {
    const text = 'systems:\n  lists_imap:\n    backend: imap\n    base_url: https://mail.example.org\n';
    const { errors } = validateSystems('s.yaml', text);
    expect(errors).toEqual([
      expect.objectContaining({
        line: 4,
        message: 'The lists_imap system reads imaps:// or imap:// URLs, not "https://mail.example.org".',
      }),
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

describe('the bundled systems.yaml snapshot', () => {
  const text = readFileSync(BUNDLED_SYSTEMS, 'utf8');
  const sha256 = createHash('sha256').update(text).digest('hex');

  it('gives the systems and rules hash that parsing the YAML gives', () => {
    const parsed = validateSystems(BUNDLED_SYSTEMS, text).value!;
    const data = JSON.parse(JSON.stringify(parsed.yaml.data)) as unknown;
    const fromSnapshot = validateSystems(BUNDLED_SYSTEMS, text, { data }).value!;
    expect(fromSnapshot.systems).toEqual(parsed.systems);
    expect(fromSnapshot.rulesHash).toBe(parsed.rulesHash);
  });

  it('still places a problem on its line, parsing the text only then', () => {
    const bad = 'systems:\n  a:\n    backend: mbox\n  b:\n    backend: gopher\n';
    const { data } = new YamlFile('s.yaml', bad);
    expect(validateSystems('s.yaml', bad, { data }).errors).toEqual([
      expect.objectContaining({ line: 5, message: expect.stringContaining('backend must be one of') }),
    ]);
  });

  it('is used only while it was made from the very text of the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-snapshot-'));
    const file = join(dir, 'systems.json');
    writeFileSync(file, JSON.stringify({ sha256, data: { systems: {} } }));
    expect(readSystemsSnapshot(text, file)).toEqual({ data: { systems: {} } });
    expect(readSystemsSnapshot(`${text}\n# edited after the build\n`, file)).toBeUndefined();
    expect(readSystemsSnapshot(text, join(dir, 'missing.json'))).toBeUndefined();
    writeFileSync(file, '{ cut short');
    expect(readSystemsSnapshot(text, file)).toBeUndefined();
    rmSync(dir, { recursive: true });
  });
});
