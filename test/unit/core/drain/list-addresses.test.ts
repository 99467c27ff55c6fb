import { describe, expect, it } from 'vitest';
import { ListAddresses } from '../../../../src/core/drain/list-addresses.js';

describe('a list’s own addresses', () => {
  const own = new ListAddresses(['Dev@Lists.Example.org', null, undefined]);

  it('are its posting address and the Mailman role addresses of it, VERP suffix included', () => {
    for (const address of [
      'dev@lists.example.org',
      'dev-bounces@lists.example.org',
      'dev-owner@lists.example.org',
      'dev-request@lists.example.org',
      'dev-admin@lists.example.org',
      'dev-bounces+jane=example.org@lists.example.org',
    ]) {
      expect(own.includes(address), address).toBe(true);
    }
  });

  it('are not its members, nor other lists of the host, nor the same mailbox elsewhere', () => {
    for (const address of [
      'jane@lists.example.org',
      'devops@lists.example.org',
      'users-bounces@lists.example.org',
      'dev@example.org',
      'dev-bounces@other.example.org',
    ]) {
      expect(own.includes(address), address).toBe(false);
    }
  });

  it('include the list address a message names itself (List-Post) when the list was registered without one', () => {
    const unregistered = new ListAddresses([null]);
    expect(unregistered.includes('users-bounces@lists.example.org', 'users@lists.example.org')).toBe(true);
    expect(unregistered.includes('jane@example.org', 'users@lists.example.org')).toBe(false);
    expect(unregistered.includes('jane@example.org')).toBe(false);
  });
});
