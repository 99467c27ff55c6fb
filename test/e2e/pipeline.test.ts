import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { fixtureMessages, fixturePath } from '../helpers/mail-files.js';
import { describePipeline } from '../helpers/pipeline-runs.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Kernel mail delivered to a Maildir, as a mail client or getmail leaves it: one file per message in cur/. */
function kernelMaildir(): string {
  const root = join(dir, 'lkml');
  for (const folder of ['cur', 'new', 'tmp']) mkdirSync(join(root, folder), { recursive: true });
  ['kernel/series.mbox', 'kernel/revisions.mbox', 'classify/formats/kernel.mbox']
    .flatMap(fixtureMessages)
    .forEach((raw, i) => {
      writeFileSync(join(root, 'cur', `${1704800000 + i}.M${i}P4242.host:2,S`), raw);
    });
  return root;
}

describePipeline('the pipeline on list mail, $dialect', () => ({
  apache: fixturePath('ponymail'),
  lkml: kernelMaildir(),
}));
