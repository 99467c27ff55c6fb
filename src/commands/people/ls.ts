import { Flags } from '@oclif/core';
import { BaseCommand, MAX_COUNT } from '../../cli/base-command.js';
import { ids, renderTable } from '../../cli/render-table.js';
import type { Person } from '../../core/store/people-records.js';

export default class PeopleLs extends BaseCommand<typeof PeopleLs> {
  static override summary = 'Show people, most mail first: each with its addresses and messages.';
  static override description = 'A person is a contributor no merge absorbed; docs/people.md says what counts as one.';
  static override examples = ['<%= config.bin %> people ls', '<%= config.bin %> people ls --limit 500 --json'];
  static override flags = {
    limit: Flags.integer({ description: 'show at most this many people', default: 50, min: 1, max: MAX_COUNT }),
  };

  async run(): Promise<{ people: Person[] }> {
    const people = await this.withStore((store) => store.people.list(this.flags.limit));
    if (people.length === 0) this.note('No people yet: drain some mail, or import a repository.');
    else
      this.show(
        renderTable(
          [ids('id'), 'name', 'address', 'login', 'addresses', 'messages'],
          people.map((p) => [p.id, p.name, p.email, p.githubLogin, p.addresses, p.messages]),
        ),
      );
    return this.finish({ people });
  }
}
