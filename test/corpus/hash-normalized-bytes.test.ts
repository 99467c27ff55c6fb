import { describe, expect, it } from 'vitest';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import { expectSameDigests } from '../helpers/message-identity.js';

describe.skipIf(corpusMissing)('the content hash read from bytes, on the mail corpus', () => {
  it('hashes every corpus message as the string reading does', () => {
    expect(expectSameDigests(corpusMailFiles(), corpusMessages)).toBeGreaterThan(500);
  });
});
