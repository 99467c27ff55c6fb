import { describe, expect, it } from 'vitest';
import {
  externalKeyOfTitle,
  itemRepository,
  readIssuesItem,
  readPullsItem,
} from '../../../../src/core/registry/map-github-item.js';

const issue = {
  id: 2_000_001,
  number: 7,
  title: '[KAFKA-7] Fix it',
  state: 'open',
  user: { login: 'jane', id: 1, type: 'User' },
  html_url: 'https://github.com/apache/kafka/issues/7',
  repository_url: 'https://api.github.com/repos/apache/kafka',
  comments: 3,
  created_at: '2024-01-02T03:04:05Z',
  updated_at: '2024-01-03T03:04:05Z',
};

const pull = {
  id: 900_001,
  number: 8,
  title: 'Add a thing',
  state: 'closed',
  user: { login: 'joe' },
  html_url: 'https://github.com/apache/kafka/pull/8',
  created_at: '2024-02-01T00:00:00Z',
  updated_at: '2024-02-02T00:00:00Z',
  merged_at: '2024-02-02T00:00:00Z',
  base: { repo: { full_name: 'apache/kafka' } },
};

describe('readIssuesItem', () => {
  it('maps an issue to its issues row, with the Jira key of its title and its comment count', () => {
    expect(readIssuesItem(issue)).toEqual({
      value: {
        kind: 'issue',
        issue: {
          id: 2_000_001,
          number: 7,
          title: '[KAFKA-7] Fix it',
          state: 'open',
          author: { login: 'jane', email: null },
          url: 'https://github.com/apache/kafka/issues/7',
          createdAt: '2024-01-02T03:04:05.000Z',
          updatedAt: '2024-01-03T03:04:05.000Z',
          externalKey: 'KAFKA-7',
          commentCount: 3,
        },
      },
    });
  });

  it('maps an item with a pull_request key to a pull request under its issue id, with merged_at when the listing gives it', () => {
    const item = {
      ...issue,
      title: 'Fix',
      state: 'closed',
      html_url: 'https://github.com/apache/kafka/pull/7',
      pull_request: { merged_at: '2024-01-05T00:00:00Z' },
    };
    expect(readIssuesItem(item).value).toEqual({
      kind: 'pull_request',
      pullRequest: {
        id: 2_000_001,
        idOf: 'issue',
        number: 7,
        title: 'Fix',
        state: 'closed',
        author: { login: 'jane', email: null },
        url: 'https://github.com/apache/kafka/pull/7',
        createdAt: '2024-01-02T03:04:05.000Z',
        mergedAt: '2024-01-05T00:00:00.000Z',
      },
    });
    expect(readIssuesItem({ ...item, pull_request: { url: 'x' } }).value).toMatchObject({
      pullRequest: { mergedAt: null },
    });
  });

  it('keeps an e-mail address the API gives, lower-cased, and no author for a deleted user', () => {
    expect(readIssuesItem({ ...issue, user: { login: 'Jane', email: 'Jane@Example.ORG' } }).value).toMatchObject({
      issue: { author: { login: 'Jane', email: 'jane@example.org' } },
    });
    expect(readIssuesItem({ ...issue, user: null }).value).toMatchObject({ issue: { author: null } });
  });

  it('says what is wrong with an item that is no issue', () => {
    expect(readIssuesItem('x').error).toMatch(/not a JSON object/);
    expect(readIssuesItem({ ...issue, id: '5' }).error).toMatch(/numeric id/);
    expect(readIssuesItem({ ...issue, id: -5 }).error).toMatch(/numeric id/);
    expect(readIssuesItem({ ...issue, number: undefined }).error).toMatch(/number/);
    expect(readIssuesItem({ ...issue, created_at: 'yesterday' }).error).toMatch(/created_at/);
    expect(readIssuesItem({ message: 'Not Found', documentation_url: 'https://docs.github.com' }).error).toMatch(
      /GitHub's error answer "Not Found"/,
    );
  });
});

describe('readPullsItem', () => {
  it('maps a pull request of /pulls under its own id, with merged_at', () => {
    expect(readPullsItem(pull)).toEqual({
      value: {
        id: 900_001,
        idOf: 'pull_request',
        number: 8,
        title: 'Add a thing',
        state: 'closed',
        author: { login: 'joe', email: null },
        url: 'https://github.com/apache/kafka/pull/8',
        createdAt: '2024-02-01T00:00:00.000Z',
        mergedAt: '2024-02-02T00:00:00.000Z',
      },
    });
    expect(readPullsItem({ ...pull, merged_at: null }).value!.mergedAt).toBeNull();
  });
});

describe('externalKeyOfTitle', () => {
  it('is the [KEY-123] prefix of a title, upper-cased as Jira writes it', () => {
    expect(externalKeyOfTitle('[KAFKA-7] Fix it')).toBe('KAFKA-7');
    expect(externalKeyOfTitle('  [flink_ml-12]: Fix')).toBe('FLINK_ML-12');
  });

  it('is null when the title does not start with a bracketed key', () => {
    expect(externalKeyOfTitle('Fix [KAFKA-7]')).toBeNull();
    expect(externalKeyOfTitle('[MINOR] Fix')).toBeNull();
    expect(externalKeyOfTitle('KAFKA-7: Fix')).toBeNull();
    expect(externalKeyOfTitle('[7-KAFKA] Fix')).toBeNull();
  });
});

describe('itemRepository', () => {
  it('is owner/name of an issue (repository_url) or a pull request (base.repo), lower-cased', () => {
    expect(itemRepository(issue)).toBe('apache/kafka');
    expect(itemRepository({ ...pull, base: { repo: { full_name: 'Apache/Kafka' } } })).toBe('apache/kafka');
    expect(itemRepository({ id: 1 })).toBeUndefined();
  });
});
