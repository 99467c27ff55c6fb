#!/usr/bin/env node
// Runs the TypeScript source directly, for development: bin/dev.js lists ls
import { register } from 'tsx/esm/api';
import { execute } from '@oclif/core';

register();
await execute({ development: true, dir: import.meta.url });
