import { describe, expect, it } from 'vitest';
import { requireGitHubOrg } from '../../../../src/core/registry/org-repos.js';
import { parseRepoList } from '../../../../src/core/registry/repo-list-file.js';

describe('parseRepoList', () => {
  it('reads one URL a line, in their one spelling, skipping blank lines and # comments', () => {
    const text =
      '# the repos mail names\nhttps://github.com/Apache/Kafka.git   # 40 messages\n\n  git@github.com:acme/widget.git\r\nhttps://gitbox.apache.org/repos/asf/quarry\n';
    expect(parseRepoList('r.txt', text)).toEqual({
      value: [
        'https://github.com/apache/kafka',
        'https://github.com/acme/widget',
        'https://gitbox.apache.org/repos/asf/quarry',
      ],
      errors: [],
      warnings: [],
    });
  });

  it('names every line that is no repository URL', () => {
    const { value, errors } = parseRepoList(
      'r.txt',
      'https://github.com/acme/widget\nwidget\n\nhttps://github.com/acme\n',
    );
    expect(value).toBeUndefined();
    expect(errors.map((e) => [e.line, e.message])).toEqual([
      [2, '"widget" is not a repository URL'],
      [4, '"https://github.com/acme" is not a repository URL'],
    ]);
  });
});

describe('requireGitHubOrg', () => {
  it('takes github.com/ORG, its https URL or the bare name', () => {
    for (const input of ['github.com/Apache', 'https://github.com/apache/', 'apache', ' www.github.com/apache '])
      expect(requireGitHubOrg(input), input).toBe('apache');
  });

  it('refuses a repository or anything else', () => {
    for (const input of ['github.com/apache/kafka', 'https://gitlab.com/apache', '', 'a b'])
      expect(() => requireGitHubOrg(input), input).toThrow(/not a GitHub organization/);
  });
});
