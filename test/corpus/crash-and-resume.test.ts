import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { describeKilledPipeline } from '../helpers/killed-pipeline.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed } from '../helpers/seeded-random.js';

/**
 * The kill scenarios of test/reliability/crash-and-resume.test.ts over real
 * list archives of the corpus: Pony Mail's test mail with a repo, and
 * Perceval's mbox samples without one, whose mail stays deferred.
 */
describeKilledPipeline('real list archives killed with SIGKILL at random points on $dialect', {
  random: suiteSeed('crash-and-resume-corpus', 20_240_611),
  killPoints: { sqlite: shortOrLong(8, 24), postgres: shortOrLong(4, 16) },
  timeoutMs: LONG_MODE ? 3_600_000 : 600_000,
  lists: () => [
    {
      system: 'mbox',
      rules: 'apache_ponymail',
      name: corpusPath('incubator-ponymail-foal/test/resources'),
      repoUrl: 'https://github.com/apache/incubator-ponymail-foal',
    },
    { system: 'mbox', name: corpusPath('grimoirelab-perceval/tests/data/mbox') },
  ],
  leastMessages: 1,
  skip: corpusMissing,
});
