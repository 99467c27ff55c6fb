import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSource } from '../../src/core/archive/sources/mbox-files.js';
import { collectAllMonths, sourceContext } from '../helpers/archive-context.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { messagesOf } from '../helpers/mail-files.js';

describe.skipIf(corpusMissing)('mbox source on corpus files', () => {
  it('gives every message of every file exactly once over all months', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listminer-corpus-mbox-'));
    const files = [
      'grimoirelab-perceval/tests/data/mbox/mbox_no_fields.mbox',
      'grimoirelab-perceval/tests/data/mbox/mbox_complex.mbox',
      'grimoirelab-perceval/tests/data/pipermail/pipermail_2015_november.mbox',
      'incubator-ponymail-foal/test/resources/users_ponymail_apache_org_2022-01.mbox',
      'patchwork/patchwork/tests/data/series/bugs-spamming.mbox',
    ];
    files.forEach((file, i) => copyFileSync(corpusPath(file), join(dir, `${i}.mbox`)));
    const got = await collectAllMonths(createSource(), sourceContext('mbox', dir));
    expect(got.map((item) => item.raw.toString('base64')).sort()).toEqual(
      files
        .flatMap((file) => messagesOf(corpusPath(file)))
        .map((raw) => raw.toString('base64'))
        .sort(),
    );
  });
});
