import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { mergePeopleByHand, type MergeOutcome } from '../../core/people/change-people.js';

export default class PeopleMerge extends BaseCommand<typeof PeopleMerge> {
  static override summary = "Merge person B into person A: B's addresses, logins, mail and authorships become A's.";
  static override description =
    'Recorded in person_merges; `people unmerge MERGE_ID` takes it back. A and B are ids, addresses or GitHub logins.';
  static override examples = ['<%= config.bin %> people merge user@kernel.org user@vendor.com'];
  static override args = {
    a: Args.string({ description: 'the person that stays', required: true }),
    b: Args.string({ description: 'the person merged into it', required: true }),
  };

  async run(): Promise<MergeOutcome> {
    const result = await this.withStore((store) => mergePeopleByHand(store, this.args.a, this.args.b));
    this.show(
      result.mergeId === null
        ? `${this.args.a} and ${this.args.b} are one person (${result.personId}) already.`
        : `merged into person ${result.personId} (merge ${result.mergeId}).`,
    );
    return this.finish(result);
  }
}
