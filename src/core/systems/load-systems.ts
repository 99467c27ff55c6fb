import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';
import {
  isNameList,
  isPlainObject,
  refuseProblems,
  YamlFile,
  type Problem,
  type Validation,
} from '../config/yaml-document.js';
import { BACKENDS, baseUrlProblem, isBackendName, type BackendName } from './backend-names.js';

export const BUNDLED_SYSTEMS = fileURLToPath(new URL('../../../systems.yaml', import.meta.url));

/**
 * The bundled systems.yaml as parsed when the CLI was built
 * (scripts/write-systems-snapshot.js): its data and the sha256 of the text it
 * came from. Parsing the file's 25 KB of YAML cost every command start, and
 * every classify thread, a fifth of a second of CPU; the snapshot is read
 * instead while its hash matches the file (docs/architecture.md, "Start-up").
 */
export const BUNDLED_SNAPSHOT = fileURLToPath(new URL('../../systems.json', import.meta.url));

export interface SystemsSnapshot {
  sha256: string;
  data: unknown;
}

function textHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The snapshot's data when it was made from this very text, else nothing (no build, or the file edited since). */
export function readSystemsSnapshot(text: string, file = BUNDLED_SNAPSHOT): { data: unknown } | undefined {
  let snapshot: SystemsSnapshot;
  try {
    snapshot = JSON.parse(readFileSync(file, 'utf8')) as SystemsSnapshot;
  } catch {
    return undefined;
  }
  return snapshot.sha256 === textHash(text) ? { data: snapshot.data } : undefined;
}

export const PROJECTION_POLICIES = ['clean_fit', 'none'] as const;
export type ProjectionPolicy = (typeof PROJECTION_POLICIES)[number];

export interface SystemDefinition {
  name: string;
  /** One line on what the system is, for help texts. */
  description?: string;
  backend: BackendName;
  baseUrl?: string;
  repoUrlTemplate?: string;
  projectionPolicy: ProjectionPolicy;
  /** The system whose rules classify this one's mail (itself unless `rules_from` names another). */
  rulesFrom: string;
  /**
   * Classes `verify --strict` requires of a store that holds lists of this
   * system (docs/systems.md), as written; verify checks the names. Empty
   * when the system does not say.
   */
  expects: string[];
  /** The rules as written; the classifier validates and compiles them. */
  rules: unknown[];
}

export interface Systems {
  file: string;
  /** sha256 (hex) of the file's text: which rules a label was made by (docs/systems.md, Provenance). */
  rulesHash: string;
  systems: Map<string, SystemDefinition>;
  yaml: YamlFile;
}

const SYSTEM_FIELDS = new Set([
  'backend',
  'base_url',
  'repo_url_template',
  'projection_policy',
  'rules',
  'rules_from',
  'description',
  'expects',
]);

export function validateSystems(file: string, text: string, parsedBefore?: { data: unknown }): Validation<Systems> {
  const yaml = new YamlFile(file, text, parsedBefore);
  if (yaml.errors.length) return { errors: yaml.errors, warnings: [] };
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const data = yaml.data;
  if (!isPlainObject(data) || !isPlainObject(data.systems)) {
    return { errors: [yaml.problem([], 'must have a "systems:" mapping of system name to definition')], warnings };
  }
  const systems = new Map<string, SystemDefinition>();
  for (const [name, raw] of Object.entries(data.systems)) {
    const at = ['systems', name];
    if (!/^[a-z][a-z0-9_]*$/.test(name))
      errors.push(yaml.problem(at, `system name "${name}" must be lower-case letters, digits and _`));
    if (!isPlainObject(raw)) {
      errors.push(yaml.problem(at, `system "${name}" must be a mapping`));
      continue;
    }
    for (const key of Object.keys(raw)) {
      if (!SYSTEM_FIELDS.has(key))
        errors.push(yaml.problem([...at, key], `unknown field "${key}" (known: ${[...SYSTEM_FIELDS].join(', ')})`));
    }
    const backend = typeof raw.backend === 'string' ? raw.backend : '';
    if (!isBackendName(backend)) {
      errors.push(yaml.problem([...at, 'backend'], `backend must be one of ${Object.keys(BACKENDS).join(', ')}`));
      continue;
    }
    const policy = (raw.projection_policy ?? 'none') as ProjectionPolicy;
    if (!PROJECTION_POLICIES.includes(policy)) {
      errors.push(
        yaml.problem(
          [...at, 'projection_policy'],
          `projection_policy must be one of ${PROJECTION_POLICIES.join(', ')}`,
        ),
      );
    }
    if (raw.base_url !== undefined) {
      // The schemes its backend reads, as for a list's --base-url.
      const problem =
        typeof raw.base_url === 'string' ? baseUrlProblem({ name, backend }, raw.base_url) : 'base_url must be a URL';
      if (problem) errors.push(yaml.problem([...at, 'base_url'], problem));
    }
    const template = raw.repo_url_template;
    if (template !== undefined && (typeof template !== 'string' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(template))) {
      errors.push(yaml.problem([...at, 'repo_url_template'], 'repo_url_template must be a URL'));
    }
    if (raw.rules !== undefined && !Array.isArray(raw.rules))
      errors.push(yaml.problem([...at, 'rules'], 'rules must be a list'));
    if (raw.expects !== undefined && !isNameList(raw.expects))
      errors.push(yaml.problem([...at, 'expects'], 'expects must be a list of class names, e.g. [issue_event]'));
    systems.set(name, {
      name,
      description: typeof raw.description === 'string' ? raw.description : undefined,
      backend,
      baseUrl: raw.base_url as string | undefined,
      repoUrlTemplate: raw.repo_url_template as string | undefined,
      projectionPolicy: policy,
      rulesFrom: typeof raw.rules_from === 'string' ? raw.rules_from : name,
      expects: isNameList(raw.expects) ? raw.expects : [],
      rules: Array.isArray(raw.rules) ? raw.rules : [],
    });
  }
  for (const system of systems.values()) {
    if (!systems.has(system.rulesFrom)) {
      errors.push(
        yaml.problem(['systems', system.name, 'rules_from'], `rules_from names unknown system "${system.rulesFrom}"`),
      );
    }
  }
  if (errors.length) return { errors, warnings };
  return {
    value: { file, rulesHash: textHash(text), systems, yaml },
    errors,
    warnings,
  };
}

const cache = new Map<string, Systems>();

/** Reads, validates and caches a systems file; a bad file is refused with its line and reason. */
export function loadSystems(file: string = BUNDLED_SYSTEMS): Systems {
  const cached = cache.get(file);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError(
      `The systems file ${file} cannot be read.`,
      'Check the --systems path or the "systems" setting.',
    );
  }
  const result = validateSystems(file, text, file === BUNDLED_SYSTEMS ? readSystemsSnapshot(text) : undefined);
  if (!result.value) {
    refuseProblems(result.errors, 'Fix the systems file; docs/systems.md describes its fields.');
  }
  cache.set(file, result.value);
  return result.value;
}

export function requireSystem(systems: Systems, name: string): SystemDefinition {
  const system = systems.systems.get(name);
  if (!system) {
    throw new InputError(
      `Unknown archive system "${name}".`,
      `Known systems: ${[...systems.systems.keys()].join(', ')} (defined in ${systems.file}).`,
    );
  }
  return system;
}
