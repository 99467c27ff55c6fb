import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPipermailSource } from '../../src/core/archive/sources/pipermail.js';
import { HttpClient } from '../../src/core/net/http-client.js';
import { Pacer } from '../../src/core/net/pacer.js';
import { fakeClock } from '../helpers/archive-server.js';
import { collectMessages, sourceContext } from '../helpers/archive-context.js';
import { corpusMissing, corpusPath } from '../helpers/corpus.js';
import { serveFolder } from '../helpers/folder-server.js';

describe.skipIf(corpusMissing)('pipermail source on the canorus-devel snapshot', () => {
  it('reads a month whatever size the index states for it (2014-January: 709 bytes stated, 947 served)', async () => {
    const folder = corpusPath('berlios-canorus-devel-maillist');
    const server = await serveFolder(folder, '/pipermail/canorus-devel');
    try {
      const source = createPipermailSource({
        client: new HttpClient({ pacer: new Pacer({ clock: fakeClock() }), retries: 1 }),
      });
      const context = sourceContext('pipermail', 'canorus-devel@lists.berlios.de', { baseUrl: server.url });
      expect((await source.monthFingerprints!(context)).get('2014-01')).toBe(
        "2014-January.txt.gz [ Gzip'd Text 709 bytes ]",
      );
      const pages = readdirSync(join(folder, '2014-January')).filter((name) => /^\d{6}\.html$/.test(name)).length;
      expect(await collectMessages(source.fetchMonth(context, '2014-01'))).toHaveLength(pages);
    } finally {
      await server.close();
    }
  });
});
