import { corpusMissing } from '../helpers/corpus.js';

/**
 * The corpus layer (`npm run test:corpus`) exists to read the corpus: under
 * CI=true a missing corpus fails the layer instead of skipping it whole.
 */
if (corpusMissing && process.env.CI === 'true')
  throw new Error(`${corpusMissing}; under CI=true the corpus suites must run`);
