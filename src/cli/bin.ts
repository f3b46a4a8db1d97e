#!/usr/bin/env node
// The `stackfield` command of the installed package (package.json "bin" points
// at its compiled form, lib/cli/bin.js). In a checkout, bin/stackfield.mjs runs
// the same main() from the TypeScript sources through tsx.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
