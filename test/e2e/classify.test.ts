import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLED_SYSTEMS } from '../../src/core/systems/load-systems.js';
import { describeClassifyRuns } from '../helpers/classify-runs.js';
import { runCli } from '../helpers/cli.js';
import { fixtureMessages } from '../helpers/mail-files.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-classify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('classify refuses a broken systems file', () => {
  it('exits 2 naming the file and the line of the bad rule', async () => {
    const bad = join(dir, 'bad.yaml');
    const text = readFileSync(BUNDLED_SYSTEMS, 'utf8').replace(
      '      - name: announce\n        class: announce\n',
      '      - name: announce\n        class: anounce\n',
    );
    writeFileSync(bad, text);
    const line = text.split('\n').findIndex((l) => l.includes('class: anounce')) + 1;
    const result = await runCli(['classify', '--systems', bad, '--db', join(dir, 'unused.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}:${line}`);
    expect(result.stderr).toMatch(/unknown class "anounce"/);
  });

  it('exits 2 for a regular expression that does not compile', async () => {
    const bad = join(dir, 'regex.yaml');
    writeFileSync(
      bad,
      `systems:\n  mbox:\n    backend: mbox\n    rules:\n      - class: vote\n        subject: '[unclosed'\n`,
    );
    const result = await runCli(['classify', '--systems', bad, '--db', join(dir, 'unused.db')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`${bad}:6 .*subject is not a valid regular expression`));
  });
});

describeClassifyRuns(
  'classify on $dialect',
  {
    apache: [
      'ponymail/users_ponymail_apache_org_2022-01.mbox',
      'classify/formats/issue-trackers.mbox',
      'classify/formats/commit-mail.mbox',
      'project/kafka-dev.mbox',
    ].map(fixtureMessages),
    kernel: ['kernel/series.mbox', 'kernel/revisions.mbox', 'classify/formats/kernel.mbox'].map(fixtureMessages),
  },
  { patches: 10, reviews: 3 },
);
