import { describe, expect, it } from 'vitest';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import { bytesDigest, stringDigest } from '../helpers/message-identity.js';

describe.skipIf(corpusMissing)('the content hash read from bytes, on the mail corpus', () => {
  it('hashes every corpus message as the string reading does', () => {
    let messages = 0;
    for (const file of corpusMailFiles()) {
      for (const raw of corpusMessages(file)) {
        messages++;
        expect(bytesDigest(raw), `${file} #${messages}`).toEqual(stringDigest(raw));
      }
    }
    expect(messages).toBeGreaterThan(500);
  });
});
