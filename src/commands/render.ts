import { Flags } from '@oclif/core';
import { BaseCommand, listFlags } from '../cli/base-command.js';
import { renderTable } from '../cli/render-table.js';
import { renderSite, type RenderResult } from '../core/render/render-site.js';

export default class Render extends BaseCommand<typeof Render> {
  static override summary =
    'Write the stored mail as a static archive site: lists, months, threads, people, search, raw messages.';
  static override description =
    "Writes a site into --out that reads from disk (file://) or from any static web server, with no script on its reading pages: a front page of the lists, per list an overview (messages per month by class, top posters, patch series waiting for review), its months and a search page (an index of subjects, senders and text built at render time), per month its threads, per thread its reply tree and every message (quotes and signatures folded, patches as diffs, links to the issue or pull request, the raw .eml, the thread as mbox), per person the lists they write to and their messages by month. Addresses come from each message's identity and never change. Only files whose content changed are written; render-manifest.json in --out keeps their hashes. With --since, month and thread pages of earlier months are left as they are.";
  static override examples = [
    '<%= config.bin %> render --out site/',
    '<%= config.bin %> render --out site/ --list dev@kafka.apache.org --since 2025-01',
  ];
  static override flags = {
    ...listFlags,
    out: Flags.string({
      description: 'folder of the site (made when missing; a site rendered there before is updated)',
      required: true,
    }),
    since: Flags.string({ description: 'only write month and thread pages of this UTC month (YYYY-MM) and later' }),
    workers: Flags.integer({
      description:
        'threads that make the site, the main thread included: 1 alone, 2 hands the writing of files to a thread, 3 the search indexes too',
      default: 3,
      min: 1,
      max: 3,
    }),
  };

  async run(): Promise<RenderResult> {
    const { flags } = this;
    const signal = this.stopSignal();
    const result = await this.withStore((store) =>
      this.withProgress('render', (progress) =>
        renderSite(
          store,
          {
            outDir: flags.out,
            selection: { names: flags.list, system: flags.system },
            since: flags.since,
            workers: flags.workers,
            signal,
          },
          progress,
        ),
      ),
    );
    if (result.interrupted)
      return this.finish(result, {
        stopped: `Stopped by a signal after writing ${result.written} files; run the render again to finish (written pages are kept).`,
      });
    this.show(
      renderTable(
        ['list', 'messages', 'threads', 'page'],
        result.lists.map((l) => [`${l.system} ${l.name}`, l.messages, l.threads, l.path]),
      ),
    );
    this.note(`wrote ${result.written} files, ${result.skipped} unchanged; open ${result.outDir}/index.html`);
    return this.finish(result);
  }
}
