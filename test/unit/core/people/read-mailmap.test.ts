import { describe, expect, it } from 'vitest';
import { foldMailmap, readMailmap } from '../../../../src/core/people/read-mailmap.js';

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

  it('refuses stray and unclosed brackets and text after the last address, as lines it cannot read', () => {
    const bad = [
      'A <a@x.example> trailing',
      'A >a@x.example<',
      'A <a@x.example',
      'A <b <a@x.example>>',
      '<a> <b@x.example>',
    ];
    const { value, errors } = readMailmap(bad.join('\n'));
    expect(value).toEqual([]);
    expect(errors.map((error) => error.split(':')[0])).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
  });

  it('reads a line of a million characters in one pass, and quotes only its start in the error', () => {
    // The regular expression it replaced was tried again from every position of such a line: minutes for 200,000 characters.
    const long = 'x'.repeat(1_000_000);
    const started = performance.now();
    const { errors } = readMailmap(
      `${long}\nA <${long}@x.example\nA <a@x.example> ${long}\nProper <p@x.example> <c@x.example>\n`,
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error.length).toBeLessThan(300);
      expect(error).toMatch(/…" \(the first \d+ of 1,00\d,\d{3} characters\)/);
    }
  }, 20_000);
});

describe('foldMailmap', () => {
  const fold = (lines: string[]) => foldMailmap(readMailmap(lines.join('\n')).value);

  it('lets a later line for the same commit address replace the proper address an earlier one gave', () => {
    expect(fold(['<c1@x.example> <dup@x.example>', '<c2@x.example> <dup@x.example>'])).toEqual([
      { line: 2, properName: null, properEmail: 'c2@x.example', commitName: null, commitEmail: 'dup@x.example' },
    ]);
  });

  it('replaces only what the later line gives when it names no commit name: a name keeps the earlier address', () => {
    expect(fold(['<p@x.example> <c@x.example>', 'Proper Name <C@x.example>', 'Other <o@x.example>'])).toEqual([
      { line: 1, properName: 'Proper Name', properEmail: 'p@x.example', commitName: null, commitEmail: 'c@x.example' },
      { line: 3, properName: 'Other', properEmail: null, commitName: null, commitEmail: 'o@x.example' },
    ]);
  });

  it('replaces a whole entry for the same commit name and address, the name in any case, and keeps other commit names apart', () => {
    const folded = fold([
      'A <a@x.example> Joe <j@x.example>',
      'B <b@x.example> JOE <j@x.example>',
      'C <c@x.example> Jim <j@x.example>',
    ]);
    expect(folded.map((entry) => [entry.line, entry.properEmail, entry.commitName])).toEqual([
      [2, 'b@x.example', 'JOE'],
      [3, 'c@x.example', 'Jim'],
    ]);
  });
});
