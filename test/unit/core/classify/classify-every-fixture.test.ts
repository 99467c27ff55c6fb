import { describe, expect, it } from 'vitest';
import { classifyEveryMessage } from '../../../helpers/classify-every-message.js';
import { fixtureMailFiles, fixtureMessages } from '../../../helpers/mail-files.js';

describe('every message of test/fixtures', () => {
  it('is classified with a JSON-safe envelope of its size, never crashes the run', async () => {
    const { classified, shunted } = await classifyEveryMessage(fixtureMailFiles(), fixtureMessages);
    expect(classified).toBeGreaterThan(100);
    expect(shunted).toEqual([]);
  });
});
