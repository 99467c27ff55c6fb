import { describe, expect, it } from 'vitest';
import { readMailmap } from '../../../../src/core/people/read-mailmap.js';

describe('readMailmap', () => {
  it("reads each of gitmailmap(5)'s four forms, addresses in their normal form", () => {
    const { value, errors } = readMailmap(
      [
        'Proper Name <Commit@Email.xx>',
        '<proper@email.xx> <commit@email.xx>',
        'Proper Name <proper@email.xx> <commit@email.xx>',
        'Proper Name <proper@email.xx> Commit Name <commit@bücher.example>',
      ].join('\n'),
    );
    expect(errors).toEqual([]);
    expect(value).toEqual([
      { line: 1, properName: 'Proper Name', properEmail: null, commitName: null, commitEmail: 'commit@email.xx' },
      { line: 2, properName: null, properEmail: 'proper@email.xx', commitName: null, commitEmail: 'commit@email.xx' },
      {
        line: 3,
        properName: 'Proper Name',
        properEmail: 'proper@email.xx',
        commitName: null,
        commitEmail: 'commit@email.xx',
      },
      {
        line: 4,
        properName: 'Proper Name',
        properEmail: 'proper@email.xx',
        commitName: 'Commit Name',
        commitEmail: 'commit@xn--bcher-kva.example',
      },
    ]);
  });

  it('skips comments and blank lines, keeps a # inside an address, and reports lines it cannot read', () => {
    const { value, errors, warnings } = readMailmap(
      '# a comment\n\nA B <a#b@x.example> # trailing\nnot a line\n<lonely@x.example>\n',
    );
    expect(value).toEqual([
      { line: 3, properName: 'A B', properEmail: null, commitName: null, commitEmail: 'a#b@x.example' },
    ]);
    expect(errors).toEqual([expect.stringContaining('line 4')]);
    expect(warnings).toEqual([expect.stringContaining('line 5')]);
  });
});
