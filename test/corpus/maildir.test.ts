import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSource } from '../../src/core/archive/sources/maildir.js';
import { collectAllMonths, sourceContext } from '../helpers/archive-context.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';

describe.skipIf(corpusMissing)('maildir source on the notmuch lkml corpus', () => {
  it('gives each of its messages once over all months', async () => {
    const root = corpusPath('notmuch/test/corpora/lkml');
    const got = await collectAllMonths(createSource(), sourceContext('maildir', root));
    expect(got).toHaveLength(readdirSync(join(root, 'cur')).length);
    expect(new Set(got.map((item) => item.sourceRef)).size).toBe(got.length);
  });
});
