import { readFileSync } from 'node:fs';
import { BUNDLED_SYSTEMS, validateSystems, type Systems } from '../../src/core/systems/load-systems.js';

/** The bundled systems with one rule's text replaced, as a user's edit of systems.yaml would (the text must be there). */
export function editedSystems(rule: string, replacement: string): Systems {
  const text = readFileSync(BUNDLED_SYSTEMS, 'utf8');
  if (!text.includes(rule)) throw new Error(`systems.yaml has no ${JSON.stringify(rule)}`);
  // A function: in a replacement string, `$'` would stand for the text after the match.
  const validated = validateSystems(
    'edited.yaml',
    text.replace(rule, () => replacement),
  );
  if (!validated.value) throw new Error(`the edited systems do not validate: ${JSON.stringify(validated.errors)}`);
  return validated.value;
}

/** The bundled `vote` rule as it reads in systems.yaml. */
export const VOTE_RULE = '      - name: vote\n        class: vote\n';

/** The bundled systems with votes labelled discuss: a change of rules that relabels stored mail. */
export const votesAsDiscuss = (): Systems => editedSystems(VOTE_RULE, '      - name: vote\n        class: discuss\n');
