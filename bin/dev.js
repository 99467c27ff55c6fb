#!/usr/bin/env -S node --import tsx --no-warnings
// Runs the TypeScript source directly, for development: bin/dev.js lists ls
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
