import { describe, expect, it } from 'vitest';
import { firstField, firstHeaderField, readHeaderBlock } from '../../src/core/archive/raw-headers.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';

describe.skipIf(corpusMissing)('one header field read alone, on the mail corpus', () => {
  it('is the field the whole header block gives, for every corpus message', () => {
    const differ: string[] = [];
    let messages = 0;
    for (const file of corpusMailFiles()) {
      for (const [index, raw] of corpusMessages(file).entries()) {
        messages++;
        const block = readHeaderBlock(raw);
        for (const field of ['date', 'message-id', 'subject', 'received']) {
          if (firstHeaderField(raw, field) !== firstField(block, field)) differ.push(`${file} #${index} ${field}`);
        }
      }
    }
    expect(messages).toBeGreaterThan(500);
    expect(differ).toEqual([]);
  });
});
