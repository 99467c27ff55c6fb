import { describe, expect, it } from 'vitest';
import { countEmbeddedMessages, judgeMergedMessages } from '../../../../src/core/verify/merged-messages.js';

const swallowed = (n: number) =>
  `From poster${n} at example.org  Mon May  3 13:15:3${n} 2004\nFrom: poster${n} at example.org (Poster)\nDate: Mon, 03 May 2004 13:15:3${n} +0000\nSubject: topic ${n}\nMessage-ID: <${n}@example.org>\n\nbody ${n}\n`;

describe('merged messages', () => {
  it('counts the whole messages a body holds after its own', () => {
    expect(
      countEmbeddedMessages(
        `first body\n-------------- next part --------------\nUrl : http://x/a.bin\n${swallowed(1)}${swallowed(2)}`,
      ),
    ).toBe(2);
  });

  it('does not count body lines that merely start with "From ", nor a forwarded header block', () => {
    expect(
      countEmbeddedMessages('From now on please use the tracker.\nFrom what I understand, it works.\nSubject: none\n'),
    ).toBe(0);
    expect(
      countEmbeddedMessages(
        '---------- Forwarded message ----------\nFrom: a@example.org\nDate: Mon, 3 May 2004\nSubject: x\n',
      ),
    ).toBe(0);
    expect(countEmbeddedMessages('From the log at 12:30 in 2004:\nStatus: ok\n')).toBe(0);
  });

  it('names the stored messages that hold others', () => {
    const result = judgeMergedMessages(
      [
        { listId: 1, messageKey: 'a@example.org', body: `hi\n${swallowed(1)}` },
        { listId: 1, messageKey: 'b@example.org', body: 'From now on\nSubject: x\n' },
      ],
      () => 'pipermail dev@x.org',
    );
    expect(result).toEqual({
      name: 'no-merged-messages',
      ok: false,
      violations: 1,
      details: ['pipermail dev@x.org: a@example.org holds 1 more message'],
    });
  });
});
