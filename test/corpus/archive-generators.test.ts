import { describe, it } from 'vitest';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';
import { expectCycledArchive } from '../helpers/cycled-archive.js';

describe.skipIf(corpusMissing)('the corpus benchmark archive on the mail corpus', () => {
  it('cycles the corpus to the count asked for, every Message-ID new, replies pointing into their own cycle', () => {
    expectCycledArchive(corpusMailFiles().map(corpusMessages));
  });
});
