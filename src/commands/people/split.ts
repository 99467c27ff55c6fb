import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { splitPerson, type SplitOutcome } from '../../core/people/change-people.js';

export default class PeopleSplit extends BaseCommand<typeof PeopleSplit> {
  static override summary =
    'Take an identity (an address with its names, or a login) away from a person, with its mail.';
  static override description =
    'When a merge brought the identity, the person it came from gets it back (the whole merge is undone when nothing else it moved is left); otherwise the identity becomes a person of its own. Automatic rules never join it again.';
  static override examples = ['<%= config.bin %> people split 42 user@vendor.com'];
  static override args = {
    person: Args.string({ description: 'the person: id, address or GitHub login', required: true }),
    identity: Args.string({ description: 'the identity: its id, address or login', required: true }),
  };

  async run(): Promise<SplitOutcome> {
    const result = await this.withStore((store) => splitPerson(store, this.args.person, this.args.identity));
    this.show(
      `${this.args.identity} is person ${result.personId} now${result.undoneMergeId === null ? '' : ` (merge ${result.undoneMergeId} undone)`}.`,
    );
    return this.finish(result);
  }
}
