import { describe, expect, it } from 'vitest';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import { collidedBefore } from '../helpers/message-identity.js';

/** Corpus messages whose old key did not read their text, checked by hand. */
const COLLIDED_BEFORE: Record<string, string> = {
  'cpython/Lib/test/test_email/data/msg_18.txt #0': 'no identity field, no body', // only Content-Type and X- fields
  'cpython/Lib/test/test_email/data/msg_19.txt #0': 'no identity field, text above a blank line', // a digest's preamble with no header
  'cpython/Lib/test/test_email/data/msg_35.txt #0': 'no Message-ID, text with no blank line', // "counter to RFC 2822, there's no separating newline here"
  'patchwork/patchwork/tests/data/patches/0001-add-line.patch #0': 'no identity field, no body', // a bare diff
  'patchwork/patchwork/tests/data/patches/0002-utf-8.patch #0': 'no identity field, no body',
  'public-inbox/t/git.fast-import-data #0': 'no identity field, text above a blank line', // git fast-import data, not mail
  'public-inbox/t/solve/bare.patch #0': 'no identity field, no body',
};

describe.skipIf(corpusMissing)('message identity on the mail corpus', () => {
  it('keys every corpus message as before, except the ones whose old key ignored their text', () => {
    const files = corpusMailFiles();
    expect(files.reduce((n, file) => n + corpusMessages(file).length, 0)).toBeGreaterThan(500);
    expect(collidedBefore(files, corpusMessages)).toEqual(COLLIDED_BEFORE);
  });
});
