import { describeClassifyRuns } from '../helpers/classify-runs.js';
import { corpusMailFiles, corpusMessages } from '../helpers/corpus-mail.js';
import { corpusMissing } from '../helpers/corpus.js';

const folders = (...names: string[]) => names.flatMap((folder) => corpusMailFiles(folder)).map(corpusMessages);

describeClassifyRuns(
  'classify of the mail corpus on $dialect',
  { apache: folders('incubator-ponymail-foal', 'james-project'), kernel: folders('b4', 'patchwork') },
  { patches: 21, reviews: 6 },
  corpusMissing,
);
