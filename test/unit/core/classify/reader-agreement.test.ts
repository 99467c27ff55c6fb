import { describe, expect, it } from 'vitest';
import { compareReaders } from '../../../helpers/envelope-agreement.js';
import { fixtureMailFiles, fixtureMessages } from '../../../helpers/mail-files.js';

describe('our reader and mailparser on the fixtures', () => {
  it('give the same envelope for every fixture message our reader takes, single-part and multipart', async () => {
    const agreement = await compareReaders(fixtureMailFiles(), fixtureMessages);
    expect(agreement.compared).toBeGreaterThan(100);
    expect(agreement.multipart).toBeGreaterThanOrEqual(3);
  });
});
