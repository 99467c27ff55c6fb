// Writes dist/systems.json: the bundled systems.yaml parsed once at build
// time, with the sha256 of its text, so a command reads JSON at start instead
// of parsing YAML (src/core/systems/load-systems.ts, BUNDLED_SNAPSHOT).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { BUNDLED_SNAPSHOT, BUNDLED_SYSTEMS, validateSystems } from '../dist/core/systems/load-systems.js';

const text = readFileSync(BUNDLED_SYSTEMS, 'utf8');
const { value, errors } = validateSystems(BUNDLED_SYSTEMS, text);
const data = value?.yaml.data;
if (!value || data === undefined) {
  console.error(`systems.yaml does not validate: ${errors.map((e) => e.message).join('; ')}`);
  process.exit(1);
}
// The snapshot must give back exactly what the YAML gives (no dates, no infinities).
if (!isDeepStrictEqual(JSON.parse(JSON.stringify(data)), data)) {
  console.error('systems.yaml holds values JSON cannot carry; no snapshot written');
  process.exit(1);
}
const sha256 = createHash('sha256').update(text).digest('hex');
writeFileSync(BUNDLED_SNAPSHOT, JSON.stringify({ sha256, data }) + '\n');
console.log(`dist/systems.json: ${Object.keys(data.systems).length} systems`);
