import { BaseCommand } from '../../cli/base-command.js';
import { naming, renderTable } from '../../cli/render-table.js';
import type { RepoRecord } from '../../core/store/repo-records.js';

export default class ReposLs extends BaseCommand<typeof ReposLs> {
  static override summary = 'Show the registered repositories.';
  static override examples = ['<%= config.bin %> repos ls', '<%= config.bin %> repos ls --json'];

  async run(): Promise<{ repos: RepoRecord[] }> {
    const repos = await this.withStore((store) => store.repos.all());
    if (repos.length === 0) this.note('No repositories are registered; add one with `listminer repos add URL`.');
    else
      this.show(
        renderTable(
          [naming('id'), naming('url'), 'owner', 'name'],
          repos.map((r) => [r.id, r.url, r.owner, r.name]),
        ),
      );
    return this.finish({ repos });
  }
}
