import { describe, expect, it } from 'vitest';
import { nextPageUrl, parseLinkHeader } from '../../../../src/core/github/link-header.js';

describe('parseLinkHeader', () => {
  it("reads each link of GitHub's Link header by its rel", () => {
    const header =
      '<https://api.github.com/repositories/1/issues?state=all&per_page=100&page=2>; rel="next", ' +
      '<https://api.github.com/repositories/1/issues?state=all&per_page=100&page=9>; rel="last"';
    expect(parseLinkHeader(header)).toEqual({
      next: 'https://api.github.com/repositories/1/issues?state=all&per_page=100&page=2',
      last: 'https://api.github.com/repositories/1/issues?state=all&per_page=100&page=9',
    });
  });

  it('reads several rels on one link, unquoted rels and stray spacing', () => {
    expect(
      parseLinkHeader(' <https://x.test/a?page=3> ;rel=next ,<https://x.test/a?page=1>; rel="first prev"'),
    ).toEqual({
      next: 'https://x.test/a?page=3',
      first: 'https://x.test/a?page=1',
      prev: 'https://x.test/a?page=1',
    });
  });

  it('reads a URL that holds a comma or a semicolon', () => {
    expect(parseLinkHeader('<https://x.test/a?labels=a,b;c&page=2>; rel="next"')).toEqual({
      next: 'https://x.test/a?labels=a,b;c&page=2',
    });
  });
});

describe('nextPageUrl', () => {
  it('is the rel="next" link, resolved against the page it came with', () => {
    expect(nextPageUrl('</repos/o/r/issues?page=2>; rel="next"', 'http://127.0.0.1:8080/repos/o/r/issues?page=1')).toBe(
      'http://127.0.0.1:8080/repos/o/r/issues?page=2',
    );
  });

  it('is undefined on the last page, or with no Link header', () => {
    expect(
      nextPageUrl(
        '<https://x.test/a?page=1>; rel="first", <https://x.test/a?page=1>; rel="prev"',
        'https://x.test/a?page=2',
      ),
    ).toBeUndefined();
    expect(nextPageUrl(undefined, 'https://x.test/a')).toBeUndefined();
  });
});
