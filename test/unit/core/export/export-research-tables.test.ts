import { describe, expect, it } from 'vitest';
import { listSlug, sentWindow } from '../../../../src/core/export/export-research-tables.js';
import { InputError } from '../../../../src/core/errors.js';

describe('sentWindow', () => {
  it('turns --since and --until into a half-open UTC range covering both months whole', () => {
    expect(sentWindow('2024-03', '2024-12')).toEqual({
      sentFrom: '2024-03-01T00:00:00.000Z',
      sentBefore: '2025-01-01T00:00:00.000Z',
    });
    expect(sentWindow(undefined, '2024-02')).toEqual({ sentBefore: '2024-03-01T00:00:00.000Z' });
    expect(sentWindow(undefined, undefined)).toEqual({});
  });

  it('refuses a month that is not YYYY-MM, and --since after --until', () => {
    expect(() => sentWindow('2024-3', undefined)).toThrow(InputError);
    expect(() => sentWindow(undefined, '2024-13')).toThrow(/--until 2024-13 is not a month/);
    expect(() => sentWindow('2024-05', '2024-04')).toThrow(/--since 2024-05 is after --until 2024-04/);
  });
});

describe('listSlug', () => {
  it('names a list by its id and the last part of its name, safe for a file name', () => {
    expect(listSlug({ id: 3, system: 'mbox', name: '/data/lists/kernel net.mbox' })).toBe('3-kernel_net.mbox');
    expect(listSlug({ id: 12, system: 'apache_ponymail', name: 'dev@kafka.apache.org' })).toBe(
      '12-dev@kafka.apache.org',
    );
    expect(listSlug({ id: 5, system: 'mbox', name: '/' })).toBe('5');
  });
});
