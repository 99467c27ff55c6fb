import { describe, expect, it } from 'vitest';
import { isGenericName } from '../../../../src/core/people/generic-names.js';
import { noreplyLogin } from '../../../../src/core/people/noreply-login.js';

describe('isGenericName', () => {
  it('calls single words, roles, addresses and a list’s own name generic', () => {
    for (const name of [
      'root',
      'Jenkins',
      'Linus',
      'Linux Admin',
      'Build Jenkins',
      'The Kafka Team',
      'jane@example.org',
      '',
      null,
    ]) {
      expect(isGenericName(name), String(name)).toBe(true);
    }
    expect(isGenericName('Netdev Digest', ['netdev'])).toBe(true);
  });

  it('trusts a full personal name', () => {
    for (const name of ['Ann Example', 'Tomasz Zielinski', 'Jürgen Müller', "Mary-Jane O'Neil"])
      expect(isGenericName(name), name).toBe(false);
  });
});

describe('noreplyLogin', () => {
  it('reads the login and id of a GitHub noreply address, old and new forms', () => {
    expect(noreplyLogin('12345+Dora-GH@users.noreply.github.com')).toEqual({ login: 'dora-gh', githubId: 12345 });
    expect(noreplyLogin('dora@users.noreply.github.com')).toEqual({ login: 'dora', githubId: null });
    expect(noreplyLogin('dora@example.org')).toBeUndefined();
    expect(noreplyLogin('noreply@github.com')).toBeUndefined();
  });
});
