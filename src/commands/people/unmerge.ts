import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { unmergePeople } from '../../core/people/change-people.js';

export default class PeopleUnmerge extends BaseCommand<typeof PeopleUnmerge> {
  static override summary = 'Undo a merge: what it moved goes back to the person it absorbed.';
  static override examples = ['<%= config.bin %> people unmerge 7'];
  static override args = {
    merge: Args.integer({ description: 'the merge id (see `people show PERSON`)', required: true }),
  };

  async run(): Promise<{ personId: number }> {
    const result = await this.withStore((store) => unmergePeople(store, this.args.merge));
    this.show(`merge ${this.args.merge} undone; person ${result.personId} stands alone again.`);
    return this.finish(result);
  }
}
