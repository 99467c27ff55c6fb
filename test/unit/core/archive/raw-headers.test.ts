import { describe, expect, it } from 'vitest';
import { firstField, firstHeaderField, readHeaderBlock } from '../../../../src/core/archive/raw-headers.js';

/** Header blocks at the edges of what fetch meets: folding, stray lines, CR LF and lone CRs, no blank line. */
const BLOCKS: Record<string, string> = {
  plain: 'From: a@x\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nSubject: hi\n\nbody\n',
  crlf: 'From: a@x\r\nDate: Mon, 1 Jan 2024 10:00:00 +0000\r\nSubject: hi\r\n\r\nbody\r\n',
  folded: 'Subject: a long\n  subject line\n\tthat goes on\nDate: Mon,\n 1 Jan 2024\n  10:00:00 +0000\nFrom: a@x\n\n',
  'two dates': 'Date: Tue, 2 Jan 2024 10:00:00 +0000\nDATE: Wed, 3 Jan 2024 10:00:00 +0000\n\n',
  'space before the colon': 'From: a@x\nDate : Mon, 1 Jan 2024 10:00:00 +0000\n\n',
  'stray lines': 'a line with no colon\nFrom: a@x\nnot a field\n continued after a stray line\n:no name\nDate: d\n\n',
  'continuation before any field': ' Date: Mon, 1 Jan 2024 10:00:00 +0000\n more\nFrom: a@x\n\n',
  'lone carriage returns': 'Subject: a\rb\r\nDate: d\r\r\nFrom: a@x\r',
  'no blank line': 'From: a@x\nDate: d',
  'empty values': 'Date:\nSubject:   \n\n',
  'no header': '\nbody only\n',
  empty: '',
};

describe('the header block of a raw message', () => {
  it('reads fields in order, unfolded, with stray lines apart', () => {
    const block = readHeaderBlock(Buffer.from(BLOCKS['stray lines']!));
    expect([...block.fields]).toEqual([
      ['from', ['a@x continued after a stray line']],
      ['date', ['d']],
    ]);
    expect(block.strayLines).toEqual(['a line with no colon', 'not a field', ':no name']);
    expect(readHeaderBlock(Buffer.from(BLOCKS.folded!)).fields.get('subject')).toEqual([
      'a long subject line that goes on',
    ]);
    // A CR is a line's end only before a LF, and the last line of a block with no blank line ends the block.
    expect([...readHeaderBlock(Buffer.from(BLOCKS['lone carriage returns']!)).fields]).toEqual([
      ['subject', ['a\rb']],
      ['date', ['d']],
      ['from', ['a@x']],
    ]);
    expect(readHeaderBlock(Buffer.from(BLOCKS.crlf!)).bodyOffset).toBe(BLOCKS.crlf!.indexOf('body'));
  });

  it('reads one field alone as the whole block gives it', () => {
    for (const [name, text] of Object.entries(BLOCKS)) {
      const raw = Buffer.from(text, 'latin1');
      for (const field of ['date', 'from', 'subject', 'message-id']) {
        expect(firstHeaderField(raw, field), `${field} of ${name}`).toBe(firstField(readHeaderBlock(raw), field));
      }
    }
    expect(firstHeaderField(Buffer.from(BLOCKS.folded!), 'date')).toBe('Mon, 1 Jan 2024 10:00:00 +0000');
    expect(firstHeaderField(Buffer.from(BLOCKS['two dates']!), 'date')).toBe('Tue, 2 Jan 2024 10:00:00 +0000');
    expect(firstHeaderField(Buffer.from(BLOCKS['continuation before any field']!), 'date')).toBe(
      'Mon, 1 Jan 2024 10:00:00 +0000 more',
    );
  });
});
