import { describe, expect, it } from 'vitest';
import { readSeries } from '../../../../src/core/classify/read-series.js';
import { readTrailers } from '../../../../src/core/classify/read-trailers.js';

describe('patch-series facts from a subject', () => {
  it.each([
    ['[PATCH v3 2/7] mm: x', { version: 3, index: 2, total: 7, rfc: false, resend: false, gitPull: false }],
    ['[PATCHv2] mm: x', { version: 2, index: null, total: null, rfc: false, resend: false, gitPull: false }],
    ['[RFC PATCH] x', { version: null, index: null, total: null, rfc: true, resend: false, gitPull: false }],
    ['[RFC][PATCH 06/10] cifs: x', { version: null, index: 6, total: 10, rfc: true, resend: false, gitPull: false }],
    ['[PATCH RESEND v2 0/3] x', { version: 2, index: 0, total: 3, rfc: false, resend: true, gitPull: false }],
    [
      '[GIT PULL] soc: updates for v5.5',
      { version: null, index: null, total: null, rfc: false, resend: false, gitPull: true },
    ],
    ['Re: [dpdk-dev] [PATCH V2 4/4] x', { version: 2, index: 4, total: 4, rfc: false, resend: false, gitPull: false }],
    ['[PATCH 1 of 2] contrib: x', { version: null, index: 1, total: 2, rfc: false, resend: false, gitPull: false }],
    ['[net,v2,1/2] net: x', { version: 2, index: 1, total: 2, rfc: false, resend: false, gitPull: false }],
    [
      '[PATCH net-next v3 0/4] net: dsa: Multi-CPU ground work (v3)',
      { version: 3, index: 0, total: 4, rfc: false, resend: false, gitPull: false },
    ],
  ])('%s', (subject, expected) => {
    expect(readSeries(subject)).toEqual(expected);
  });

  it('gives null for subjects without a patch tag, and ignores tags in the title', () => {
    expect(readSeries('[VOTE] Release 1.0')).toBeNull();
    expect(readSeries('Fix [PATCH] handling in parser')).toBeNull();
  });
});

describe('trailers', () => {
  it('reads the kinds with name and lower-cased address, skipping quoted lines and the signature', () => {
    const body = [
      'Looks fine.',
      '> Signed-off-by: Author <author@example.org>',
      'Reviewed-by: Jane Doe <Jane@Example.ORG>',
      'acked-by: bob@example.org (Bob)',
      'Tested-by: Someone',
      '-- ',
      'Nacked-by: Sig <sig@example.org>',
    ].join('\n');
    expect(readTrailers(body)).toEqual([
      { kind: 'Reviewed-by', name: 'Jane Doe', address: 'jane@example.org' },
      { kind: 'Acked-by', name: 'Bob', address: 'bob@example.org' },
      { kind: 'Tested-by', name: 'Someone', address: null },
    ]);
  });
});
