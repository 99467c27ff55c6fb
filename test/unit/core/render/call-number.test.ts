import { describe, expect, it } from 'vitest';
import { callNumber, listKey, listSlug } from '../../../../src/core/render/call-number.js';

describe('call numbers', () => {
  it('are ten base32 characters fixed by the list and the message key', () => {
    // A fixed value: a change here moves every address of every rendered site.
    expect(callNumber('dev@kafka.apache.org', 'abc@example.com')).toBe(
      callNumber('dev@kafka.apache.org', 'abc@example.com'),
    );
    expect(callNumber('dev@kafka.apache.org', 'abc@example.com')).toMatch(/^[a-z2-7]{10}$/);
    expect(callNumber('dev@kafka.apache.org', 'abc@example.com')).toBe('tsd52yywlm');
    expect(callNumber('users@kafka.apache.org', 'abc@example.com')).not.toBe(
      callNumber('dev@kafka.apache.org', 'abc@example.com'),
    );
  });

  it('name a local archive by its file name, so another machine renders the same addresses', () => {
    expect(listKey({ system: 'mbox', name: '/home/a/archives/net.mbox' })).toBe('net.mbox');
    expect(listKey({ system: 'maildir', name: '/srv/mail/lkml' })).toBe('lkml');
    expect(listKey({ system: 'public_inbox', name: 'netdev' })).toBe('netdev');
    expect(listSlug({ system: 'mbox', name: '/home/a/net.mbox' })).toBe(
      listSlug({ system: 'mbox', name: '/other/place/net.mbox' }),
    );
    expect(listSlug({ system: 'mbox', name: '/a/net.mbox' })).not.toBe(
      listSlug({ system: 'maildir', name: '/a/net.mbox' }),
    );
    expect(listSlug({ system: 'hyperkitty', name: 'Dev@Example.ORG' })).toMatch(/^dev-example-org-[a-z2-7]{4}$/);
  });
});
