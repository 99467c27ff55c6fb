import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { corpusFiles, corpusMissing, corpusPath } from '../helpers/corpus.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { expectDrainAccountsForEveryMessage } from '../helpers/drain-fixtures.js';

const read = (folder: string) => corpusFiles(folder).map((file) => readFileSync(corpusPath(file)));

describeOnDialects('drain of the mail corpus on $dialect', (getStore) => {
  it.skipIf(Boolean(corpusMissing))(
    'accounts for every staged message per list, and a second drain changes nothing',
    async () => {
      await expectDrainAccountsForEveryMessage(getStore(), {
        withRepo: read('notmuch/test/corpora/default'),
        kernel: read('notmuch/test/corpora/lkml'),
        noRepo: read('notmuch/test/corpora/threading'),
      });
    },
  );
});
