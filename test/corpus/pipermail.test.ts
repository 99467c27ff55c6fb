import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { parseIndex } from '../../src/core/archive/sources/pipermail.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';

const data = (name: string) => readFileSync(corpusPath('grimoirelab-perceval/tests/data/pipermail', name));

describe.skipIf(corpusMissing)('pipermail source on the Perceval pipermail samples', () => {
  it('reads the months a real index page links, .txt and .txt.gz', () => {
    const months = parseIndex(data('pipermail_index.html').toString(), 'https://lists.example.org/pipermail/example/');
    expect([...months.entries()].sort()).toEqual([
      ['2015-11', 'https://lists.example.org/pipermail/example/2015-November.txt.gz'],
      ['2016-03', 'https://lists.example.org/pipermail/example/2016-March.txt'],
      ['2016-04', 'https://lists.example.org/pipermail/example/2016-April.txt'],
    ]);
    expect(parseIndex(data('pipermail_index_empty.html').toString(), 'https://x.org/')).toEqual(new Map());
  });

  it('splits each real month into its messages', () => {
    const count = (name: string) => splitMboxBuffer(data(name)).filter((raw) => raw.length > 0).length;
    expect([
      count('pipermail_2015_november.mbox'),
      count('pipermail_2016_march.mbox'),
      count('pipermail_2016_april.mbox'),
    ]).toEqual([4, 1, 3]);
  });
});
