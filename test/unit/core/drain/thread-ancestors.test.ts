import { describe, expect, it } from 'vitest';
import { threadAncestors } from '../../../../src/core/drain/thread-ancestors.js';

describe('threadAncestors', () => {
  it('lists References oldest first, then an In-Reply-To they did not name', () => {
    expect(threadAncestors({ messageId: 'm@x', references: ['a@x', 'b@x'], inReplyTo: 'c@x' }, 'm@x')).toEqual([
      'a@x',
      'b@x',
      'c@x',
    ]);
    expect(threadAncestors({ messageId: 'm@x', references: ['a@x', 'b@x'], inReplyTo: 'b@x' }, 'm@x')).toEqual([
      'a@x',
      'b@x',
    ]);
  });

  it('reads ids out of an RFC 822 In-Reply-To phrase and bracketed values', () => {
    expect(
      threadAncestors(
        { messageId: 'm@x', references: ['<a@x> <b@x>'], inReplyTo: 'Your message of "Mon, 1 Jan 2024" <p@x>' },
        'm@x',
      ),
    ).toEqual(['a@x', 'b@x', 'p@x']);
    expect(
      threadAncestors({ messageId: 'm@x', references: [], inReplyTo: 'message from jane of Mon p@x' }, 'm@x'),
    ).toEqual(['p@x']);
  });

  it('never names the message itself or an id twice', () => {
    expect(
      threadAncestors({ messageId: 'm@x', references: ['m@x', 'a@x', 'a@x'], inReplyTo: 'm@x' }, 'm@x#abc'),
    ).toEqual(['a@x']);
  });

  it('survives an envelope without references', () => {
    expect(threadAncestors({ messageId: null, references: undefined as never, inReplyTo: null }, 'k')).toEqual([]);
  });
});
