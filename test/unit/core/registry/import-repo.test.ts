import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/core/errors.js';
import { requireGitHubRepo } from '../../../../src/core/registry/import-repo.js';

describe('requireGitHubRepo', () => {
  it('takes a GitHub URL or OWNER/NAME, spelled as repos add spells it', () => {
    expect(requireGitHubRepo('apache/kafka')).toEqual({
      url: 'https://github.com/apache/kafka',
      host: 'github.com',
      owner: 'apache',
      name: 'kafka',
    });
    expect(requireGitHubRepo('https://github.com/Apache/Kafka.git').url).toBe('https://github.com/apache/kafka');
    expect(requireGitHubRepo(' git@github.com:apache/kafka-site ').url).toBe('https://github.com/apache/kafka-site');
  });

  it('refuses a repository of another host, and text that is no repository', () => {
    expect(() => requireGitHubRepo('https://gitlab.com/acme/widget')).toThrow(InputError);
    expect(() => requireGitHubRepo('https://gitlab.com/acme/widget')).toThrow(/not a GitHub repository/);
    expect(() => requireGitHubRepo('kafka')).toThrow(InputError);
  });
});
