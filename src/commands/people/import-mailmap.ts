import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { importMailmap, type MailmapOutcome } from '../../core/people/change-people.js';
import { readMailmapFile } from '../../core/people/read-mailmap.js';

export default class PeopleImportMailmap extends BaseCommand<typeof PeopleImportMailmap> {
  static override summary =
    "Merge the addresses a git .mailmap names: each commit address joins its proper address's person.";
  static override description =
    'Reads gitmailmap(5) lines (`Proper Name <proper@email> [Commit Name] <commit@email>`, `Proper Name <commit@email>`, `<proper@email> <commit@email>`). Addresses no mail has shown yet are recorded, so later mail lands on the right person. Running it again changes nothing.';
  static override examples = ['<%= config.bin %> people import-mailmap ~/linux/.mailmap'];
  static override args = { file: Args.string({ description: 'the .mailmap file', required: true }) };

  async run(): Promise<MailmapOutcome> {
    const text = await readMailmapFile(this.args.file);
    const result = await this.withStore((store) => importMailmap(store, text));
    for (const problem of [...result.errors, ...result.warnings]) this.note(problem);
    this.show(
      `${result.entries} mailmap line(s): ${result.merges} merge(s), ${result.identitiesAdded} address(es) recorded, ${result.namesSet} name(s) set.`,
    );
    return this.finish(result);
  }
}
