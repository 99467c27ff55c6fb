import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { describePipeline } from '../helpers/pipeline-runs.js';

describePipeline(
  'the pipeline on the mail corpus, $dialect',
  () => ({
    apache: corpusPath('incubator-ponymail-foal/test/resources'),
    lkml: corpusPath('notmuch/test/corpora/lkml'),
  }),
  corpusMissing,
);
