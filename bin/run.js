#!/usr/bin/env node
// oclif compares this Node.js with the engines of its own package.json at
// start, loading a semver library to do so: a tenth of a second of every
// command. npm checks listminer's own engines (package.json) at install.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1';
const { execute } = await import('@oclif/core');

await execute({ dir: import.meta.url });
