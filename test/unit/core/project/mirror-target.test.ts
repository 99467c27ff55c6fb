import { describe, expect, it } from 'vitest';
import { mirrorTarget } from '../../../../src/core/project/mirror-target.js';

describe('mirrorTarget', () => {
  it('reads the captured number, else the git.apache.org Message-ID', () => {
    expect(mirrorTarget({ number: '262', kind: 'pull_request' }, null)).toEqual({ number: 262, kind: 'pull_request' });
    expect(mirrorTarget(null, 'git-pr-262-activemq-artemis@git.apache.org')).toEqual({
      number: 262,
      kind: 'pull_request',
    });
  });

  it('takes no number longer than GitHub gives (nine digits), which no issue table column holds', () => {
    expect(mirrorTarget({ number: '3000000000' }, null)).toBeNull();
    expect(mirrorTarget({ number: '99999999999999999999999' }, null)).toBeNull();
    expect(mirrorTarget(null, 'git-pr-99999999999-x@git.apache.org')).toBeNull();
    expect(mirrorTarget({ number: '999999999' }, null)).toEqual({ number: 999999999, kind: null });
  });
});
