import { type Hook, toConfiguredId } from '@oclif/core';
import levenshtein from 'fast-levenshtein';
import { ExitCode, hintLine } from '../../core/errors.js';

/** The most edits a typo may be from a command for it to be suggested. */
const MAX_DISTANCE = 3;

/**
 * An unknown command says which command was probably meant and exits 2, as
 * any other wrong input does. It never runs the suggestion: a typo must not
 * start a fetch, and a cron entry must not wait for an answer.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const typed = toConfiguredId(options.id, options.config);
  const commands = options.config.commands
    .filter((command) => !command.hidden)
    .map((command) => toConfiguredId(command.id, options.config));
  const closest = commands
    .map((command) => ({ command, distance: levenshtein.get(typed, command) }))
    .sort((a, b) => a.distance - b.distance || a.command.localeCompare(b.command))[0];
  const suggestion =
    closest && closest.distance <= MAX_DISTANCE ? ` Did you mean \`${options.config.bin} ${closest.command}\`?` : '';
  process.stderr.write(
    `Error: \`${typed}\` is not a ${options.config.bin} command.${suggestion}\n${hintLine(`\`${options.config.bin} help\` lists the commands.`)}\n`,
  );
  this.exit(ExitCode.usage);
};

export default hook;
