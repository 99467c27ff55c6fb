import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { corpusFiles, corpusMissing, corpusPath } from '../helpers/corpus.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { expectStoredCompressed } from '../helpers/stage-classified.js';

describeOnDialects('raw bytes of the mail corpus in the store on $dialect', (getStore) => {
  it.skipIf(Boolean(corpusMissing))('stores real list mail in well under its size', async () => {
    const messages = corpusFiles('notmuch/test/corpora').map((file) => readFileSync(corpusPath(file)));
    // deflate takes this mail to 0.46 of its size; the bound leaves room for another zlib build.
    await expectStoredCompressed(getStore(), messages, 0.6);
  });
});
