#!/usr/bin/env node
// The `stackfield` command. The sources are TypeScript; tsx compiles them on
// the fly, so `npm install` needs no build step before the CLI works.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
