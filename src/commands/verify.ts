import { Flags } from '@oclif/core';
import { BaseCommand, listFlags, systemsFlag } from '../cli/base-command.js';
import { renderTable } from '../cli/render-table.js';
import { ExitCode, ListminerError } from '../core/errors.js';
import { verifyStore, type VerifyResult } from '../core/verify/verify-store.js';

export default class Verify extends BaseCommand<typeof Verify> {
  static override summary = 'Check what kinds of mail the store covers, and that its invariants hold.';
  static override description =
    'Each branch (lists, backends, the eleven classes, routing outcomes, threading, signaled repos, senders, external keys, PR-equivalents) is PASS, EMPTY or DEFER with its count; each invariant (every staged message accounted for, drained mail stored once with its body, no month checkpointed past a failure, projection complete, no month left as a gap by fetch) holds or is named with its violations. With --strict, an empty required branch or a broken invariant exits 3. docs/verify.md explains each one.';
  static override examples = [
    '<%= config.bin %> verify',
    '<%= config.bin %> verify --strict',
    '<%= config.bin %> verify --list dev@kafka.apache.org --json',
  ];
  static override flags = {
    ...listFlags,
    strict: Flags.boolean({ description: 'exit 3 when a required branch is empty or an invariant is broken' }),
    systems: systemsFlag,
  };

  async run(): Promise<VerifyResult> {
    const { flags } = this;
    const systems = this.systems(flags.systems);
    const result = await this.withStore((store) =>
      verifyStore(
        store,
        systems,
        { names: flags.list, system: flags.system },
        { file: this.settings.path, expects: this.settings.verifyExpects },
      ),
    );
    this.show(
      renderTable(
        ['branch', 'weight', 'status', 'count', 'note'],
        result.branches.map((b) => [
          b.name,
          b.weight.replace('_', '-'),
          b.status,
          b.of === undefined ? b.count : `${b.count} of ${b.of}`,
          [b.why && `required by ${b.why}`, b.note].filter(Boolean).join('; '),
        ]),
      ),
    );
    this.show(
      renderTable(
        ['invariant', 'holds', 'violations', 'details'],
        result.invariants.map((i) => [i.name, i.ok ? 'yes' : 'NO', i.violations, i.details.join('\n')]),
      ),
    );
    if (result.failing.length === 0) return this.finish(result);
    const why = new Map(result.branches.map((b) => [b.name, b.why]));
    const named = result.failing.map((name) => (why.get(name) ? `${name} (required by ${why.get(name)})` : name));
    const message = `verify found ${result.failing.length} gap(s): ${named.join(', ')}.`;
    if (!flags.strict) {
      this.note(`${message} (--strict fails on them)`);
      return this.finish(result);
    }
    const hint =
      "An EMPTY required branch needs mail of that kind (a class is required because a system of the store's lists expects it: `expects` in systems.yaml, `verify_expects` in the config file); a broken invariant names its rows above. docs/verify.md says what each one means.";
    return this.finish(result, { error: new ListminerError(message, ExitCode.verifyGap, hint) });
  }
}
