import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Three layers, one vitest project each (README, "Tests"):
 * - repository: the repository alone, what `npm test` runs;
 * - real: suites that serve real archive software installed from Debian (`npm run test:real`);
 * - corpus: suites that read the shared real-mail corpus (`npm run test:corpus`).
 * Each test makes its own database, temp folder and servers on free ports, so
 * files run in parallel: LISTMINER_TEST_WORKERS workers, by default 3 (the
 * end-to-end files mostly wait on the CLI processes they spawn, so a third
 * worker still gains on two cores).
 */
const workers = Number(process.env.LISTMINER_TEST_WORKERS ?? 3);

/**
 * vitest runs the files that took longest last time first; on a fresh clone,
 * with no such record, the reliability suites (minutes each) go first so
 * they do not start last and hold up the end of the run.
 */
class ReliabilityFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (file: TestSpecification) => /[/\\]test[/\\]reliability[/\\]/.test(file.moduleId);
    return [...sorted.filter(first), ...sorted.filter((file) => !first(file))];
  }
}

export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/helpers/postgres-teardown.ts'],
    maxWorkers: workers,
    minWorkers: 1,
    sequence: { sequencer: ReliabilityFirst },
    // A guard against a hang, not a measure of speed: an end-to-end test of a dozen CLI runs takes
    // 20–30 s on a quiet 2-core machine and over 60 s when the machine is busy with other work.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: process.env.CI === 'true' ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results.json' },
    projects: [
      { extends: true, test: { name: 'repository', include: ['test/{unit,store,e2e,reliability}/**/*.test.ts'] } },
      { extends: true, test: { name: 'real', include: ['test/real/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'corpus', include: ['test/corpus/**/*.test.ts'], setupFiles: ['test/corpus/require-corpus.ts'] },
      },
    ],
  },
});
