import { describe, expect, it } from 'vitest';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import { compareReaders } from '../helpers/envelope-agreement.js';

describe.skipIf(corpusMissing)('our reader and mailparser on the corpus', () => {
  it('give the same envelope for every corpus message our reader takes, single-part and multipart', async () => {
    const agreement = await compareReaders(corpusMailFiles(), corpusMessages);
    console.log(`corpus: ${JSON.stringify(agreement)}`);
    // About four in five corpus messages (docs/classify.md); a reader that declined far more would compare little.
    expect(agreement.compared).toBeGreaterThan(1600);
    expect(agreement.multipart).toBeGreaterThan(250);
    expect(agreement.withDateHeader).toBeGreaterThan(1500);
  });
});
