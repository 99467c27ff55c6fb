import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { ids, renderTable } from '../../cli/render-table.js';
import { showPerson, type PersonView } from '../../core/people/show-person.js';

export default class PeopleShow extends BaseCommand<typeof PeopleShow> {
  static override summary = 'Show a person: its identities, where each came from, and the merges that made it.';
  static override examples = ['<%= config.bin %> people show 42', '<%= config.bin %> people show kuba@example.org'];
  static override args = {
    person: Args.string({ description: 'a person: its id, one of its addresses, or its GitHub login', required: true }),
  };

  async run(): Promise<PersonView> {
    const view = await this.withStore((store) => showPerson(store, this.args.person));
    const { person } = view;
    this.show(
      `person ${person.id}: ${person.name ?? '(no name)'}, ${person.messages} message(s) from ${person.addresses} address(es)`,
    );
    this.show(
      renderTable(
        [ids('identity'), 'kind', 'value', 'seen with', 'source', 'seen at'],
        view.identities.map((i) => [i.id, i.kind, i.value, i.seenWith, i.source, i.seenAt]),
      ),
    );
    if (view.merges.length > 0) {
      this.show(
        renderTable(
          [ids('merge'), 'rule', ids('kept'), ids('merged'), 'reason', 'undone'],
          view.merges.map((m) => [m.id, m.rule, m.keptId, m.mergedId, m.reason, m.undoneAt ?? '']),
        ),
      );
    }
    return this.finish(view);
  }
}
