import { describe, expect, it } from 'vitest';
import { normalizeRepoUrl } from '../../../../src/core/registry/repo-url.js';

describe('normalizeRepoUrl', () => {
  it.each([
    ['https://github.com/apache/kafka', 'https://github.com/apache/kafka'],
    ['https://github.com/Apache/Kafka.git', 'https://github.com/apache/kafka'],
    ['http://www.github.com/apache/kafka/', 'https://github.com/apache/kafka'],
    ['github.com/apache/kafka', 'https://github.com/apache/kafka'],
    ['git@github.com:apache/kafka.git', 'https://github.com/apache/kafka'],
    [
      'https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git',
      'https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux',
    ],
  ])('spells %s as %s', (input, url) => {
    expect(normalizeRepoUrl(input)?.url).toBe(url);
  });

  it('keeps owner and name apart', () => {
    expect(normalizeRepoUrl('https://github.com/apache/kafka')).toEqual({
      url: 'https://github.com/apache/kafka',
      host: 'github.com',
      owner: 'apache',
      name: 'kafka',
    });
  });

  it.each([
    'not a url',
    'https://github.com/apache',
    'https://github.com/apache/kafka/pull/12',
    'ftp://example.org/x',
    'https://localhost/x',
    `https://github.com/${'o'.repeat(40)}/kafka`,
    `https://github.com/apache/${'n'.repeat(101)}`,
  ])('refuses %s', (input) => {
    expect(normalizeRepoUrl(input)).toBeUndefined();
  });

  it("takes a GitHub owner and name at GitHub's longest, 39 and 100 characters", () => {
    const owner = 'o'.repeat(39);
    const name = 'n'.repeat(100);
    expect(normalizeRepoUrl(`https://github.com/${owner}/${name}.git`)).toMatchObject({ owner, name });
  });
});
