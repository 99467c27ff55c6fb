import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { corpusMailFiles } from '../helpers/corpus-mail.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { hostilePipeline, PIPELINE_TIMEOUT_MS } from '../helpers/hostile-pipeline.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed } from '../helpers/seeded-random.js';

/**
 * Byte-mutated copies of every mail file of the real-mail corpus through
 * fetch → classify → drain → project in the built CLI, as
 * test/reliability/hostile-input.test.ts sends the repository's own mail.
 */
const random = suiteSeed('hostile-input', 20_240_603);
/** Copies of each corpus mail file, each with its own mutations. */
const FUZZ_COPIES = shortOrLong(1, 5);

describeOnDialectDatabases(
  'byte-mutated corpus mail through every stage on $dialect',
  (databases) => {
    const { dialect } = databases;
    const { expectFuzzedFilesStored } = hostilePipeline(databases);
    it.skipIf(dialect === 'postgres' && !LONG_MODE)(
      'runs byte-mutated copies of every corpus mail file through every stage without a crash, under 500 MB, each read message ending drained, deferred or shunted',
      () =>
        expectFuzzedFilesStored(
          'fuzz',
          corpusMailFiles().map((file) => ({ name: file, bytes: readFileSync(corpusPath(file)) })),
          FUZZ_COPIES,
          random.fork(`fuzz-${dialect}`),
        ),
      PIPELINE_TIMEOUT_MS,
    );
  },
  { skip: corpusMissing },
);
