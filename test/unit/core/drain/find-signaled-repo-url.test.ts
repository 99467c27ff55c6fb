import { describe, expect, it } from 'vitest';
import { findSignaledRepoUrl } from '../../../../src/core/drain/find-signaled-repo-url.js';

const APACHE = 'https://github.com/apache/{repo}';

describe('findSignaledRepoUrl', () => {
  it('builds the URL from owner and repo captures', () => {
    expect(findSignaledRepoUrl({ owner: 'Apache', repo: 'Kafka' }, '', undefined)).toBe(
      'https://github.com/apache/kafka',
    );
  });

  it("fills the system's repo_url_template from a repo capture", () => {
    expect(findSignaledRepoUrl({ repo: 'kafka-site' }, '', APACHE)).toBe('https://github.com/apache/kafka-site');
  });

  it('prefers captures to a link in the body', () => {
    expect(findSignaledRepoUrl({ repo: 'kafka' }, 'https://github.com/other/thing', APACHE)).toBe(
      'https://github.com/apache/kafka',
    );
  });

  it('reads the first github.com repo link in the body, normalized', () => {
    const body = 'See https://github.com/settings/tokens and https://www.github.com/Apache/Spark.git/pull/42.';
    expect(findSignaledRepoUrl({}, body, APACHE)).toBe('https://github.com/apache/spark');
  });

  it('finds nothing when neither captures nor body name a repo', () => {
    expect(
      findSignaledRepoUrl({ external_key: 'KAFKA-1' }, 'no links here https://example.org/a/b', APACHE),
    ).toBeNull();
    expect(findSignaledRepoUrl({ repo: 'kafka' }, '', undefined)).toBeNull();
    expect(findSignaledRepoUrl(null, '', undefined)).toBeNull();
  });
});
