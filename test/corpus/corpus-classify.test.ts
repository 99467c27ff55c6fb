import { describe, expect, it } from 'vitest';
import { classifyEveryMessage } from '../helpers/classify-every-message.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';

describe.skipIf(corpusMissing)('every message of the corpus', () => {
  it('is classified or shunted, never crashes the run', async () => {
    const { classified, shunted } = await classifyEveryMessage(corpusMailFiles(), corpusMessages);
    expect(classified).toBeGreaterThan(850);
    // Only files that are not mail at all (a bare diff, a digest's body) are shunted.
    expect(shunted.filter((file) => !/\.patch$|msg_19\.txt$/.test(file))).toEqual([]);
  });
});
