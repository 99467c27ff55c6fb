// Writes oclif.manifest.json from the built commands, so the CLI starts
// without loading every command file to learn its flags.
import { writeFileSync } from 'node:fs';
import { Plugin } from '@oclif/core/config';

const root = new URL('..', import.meta.url).pathname;
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, isRoot: true });
await plugin.load();
writeFileSync(new URL('../oclif.manifest.json', import.meta.url), JSON.stringify(plugin.manifest, null, 2) + '\n');
console.log(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`);
