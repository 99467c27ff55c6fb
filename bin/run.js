#!/usr/bin/env node
// oclif compares this Node.js with the engines of its own package.json at
// start, loading a semver library to do so: a tenth of a second of every
// command. npm checks listminer's own engines (package.json) at install.
process.env.OCLIF_DISABLE_ENGINE_WARNING ??= '1';
// Under NODE_ENV=development or test (a developer's shell, a test runner),
// oclif looks for listminer's TypeScript sources beside dist/ and tries to
// load a TypeScript loader to run them: about half a second of every
// command. The CLI always runs what `npm run build` compiled.
globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false };
const { execute } = await import('@oclif/core');

await execute({ dir: import.meta.url });
