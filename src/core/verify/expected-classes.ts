import { MSG_CLASSES } from '../classify/envelope.js';
import { InputError } from '../errors.js';
import type { ListRecord } from '../store/list-records.js';
import type { Systems } from '../systems/load-systems.js';

/** Why a class is required: a system expects it, and these lists of the store are of that system. */
export interface Requirement {
  system: string;
  /** Where the expectation is written: the systems file's `expects`, or the config file's `verify_expects`. */
  source: 'systems' | 'config';
  file: string;
  lists: string[];
}

/** The config file's `verify_expects`: per system, the classes required instead of the systems file's `expects`. */
export interface ExpectOverrides {
  file?: string;
  expects?: Record<string, string[]>;
}

/**
 * The classes `verify --strict` requires of the lists in scope, each with
 * the systems and lists that require it. A list speaks through the system
 * whose kind of list it is: the system it chose rules from (`--rules`: an
 * Apache archive read from an mbox is an Apache list), else its own. That
 * system's `expects` comes from the config file's `verify_expects` when it
 * names the system, else from the systems file. A name that is no class,
 * or a system the systems file does not know, is refused (exit 2).
 */
export function expectedClasses(
  lists: readonly Pick<ListRecord, 'system' | 'name' | 'rulesSystem'>[],
  systems: Systems,
  overrides: ExpectOverrides = {},
): Map<string, Requirement[]> {
  const configured = overrides.expects ?? {};
  for (const [system, names] of Object.entries(configured)) {
    if (!systems.systems.has(system)) {
      throw new InputError(
        `The config file's verify_expects names the system "${system}", which ${systems.file} does not define.`,
        `Name one of ${[...systems.systems.keys()].join(', ')} (${overrides.file ?? 'the config file'}).`,
      );
    }
    requireClasses(names, () => `${overrides.file ?? 'the config file'} (verify_expects.${system})`);
  }

  const required = new Map<string, Requirement[]>();
  for (const list of lists) {
    const system = list.rulesSystem ?? list.system;
    const definition = systems.systems.get(system);
    if (!definition) continue;
    const fromConfig = Object.hasOwn(configured, system);
    const names = fromConfig ? configured[system]! : definition.expects;
    const source = fromConfig ? 'config' : 'systems';
    const file = fromConfig ? (overrides.file ?? 'the config file') : systems.file;
    if (!fromConfig)
      requireClasses(names, () => {
        const line = systems.yaml.lineOf(['systems', system]);
        return `${systems.file}${line ? `:${line}` : ''} (systems.${system}.expects)`;
      });
    for (const msgClass of names) {
      const requirements = required.get(msgClass) ?? [];
      let requirement = requirements.find((r) => r.system === system);
      if (!requirement) requirements.push((requirement = { system, source, file, lists: [] }));
      requirement.lists.push(list.name);
      required.set(msgClass, requirements);
    }
  }
  return required;
}

/** `where` names the place in a file, worked out only for the error (the line of a systems file costs a parse). */
function requireClasses(names: readonly string[], where: () => string): void {
  const unknown = names.filter((name) => !(MSG_CLASSES as readonly string[]).includes(name));
  if (unknown.length) {
    throw new InputError(
      `${where()}: unknown class ${unknown.map((name) => JSON.stringify(name)).join(', ')} (known: ${MSG_CLASSES.join(', ')}).`,
      'Name classes of docs/systems.md.',
    );
  }
}
