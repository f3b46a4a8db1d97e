// Builds the npm package's JavaScript (npm run build:lib; also `prepare`, so
// `npm install` in a checkout, an install from git and `npm pack` build it):
// lib/ from src/ (the app excluded) by tsc with declaration files, then what
// tsc does not do:
//  - relative imports in the .d.ts files still end in ".ts" (tsc rewrites them
//    only in the JavaScript); a consumer's compiler wants ".js";
//  - files a module loads by URL (`new URL('./x.ts', import.meta.url)`, the
//    browser's query worker) still name the ".ts" source: they are rewritten
//    to ".js" too, and every such literal URL must name a file of the package;
//  - plain JavaScript modules of src/ (the Node query worker's entry,
//    collision/queryWorker.node.mjs) are not compiled, so they are copied;
//  - the command's entry point must be executable;
// and the API reference, docs/api/README.md (scripts/api-docs.ts).
// Plain JavaScript, so it runs before anything is compiled. The package does
// not ship this file (lib/ is built): its `prepare` runs it only where it
// exists, so installing the tarball with a tool that runs `prepare` does
// nothing, without an error about a missing script.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
// Written last, once lib/ is whole: the tests run the compiled command while
// the stamp is newer than every source (tests/cli/cliHelpers.ts libCurrent).
const stamp = join(root, 'node_modules', '.cache', 'stackfield', 'lib-built');
rmSync(stamp, { force: true });
rmSync(lib, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

const relativeTs = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"])/g;
const urlTs = /(new URL\(\s*['"])(\.{1,2}\/[^'"]*?)\.ts(['"]\s*,\s*import\.meta\.url)/g;
const urlLiteral = /new URL\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*,\s*import\.meta\.url/g;
const src = join(root, 'src');
function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.d.ts')) {
      const text = readFileSync(p, 'utf8');
      const fixed = text.replace(relativeTs, '$1$2.js$3');
      if (fixed !== text) writeFileSync(p, fixed);
    } else if (e.name.endsWith('.js')) {
      const text = readFileSync(p, 'utf8');
      const fixed = text.replace(urlTs, '$1$2.js$3');
      if (fixed !== text) writeFileSync(p, fixed);
      for (const m of fixed.matchAll(urlLiteral)) {
        if (!existsSync(join(dirname(p), m[1]))) {
          console.error(`build-lib: ${relative(root, p)} loads ${m[1]}, which the package does not have`);
          process.exit(1);
        }
      }
    }
  }
}
function copyModules(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (p !== join(src, 'app')) copyModules(p);
    } else if (e.name.endsWith('.mjs')) {
      copyFileSync(p, join(lib, relative(src, p)));
    }
  }
}
copyModules(src);
walk(lib);
chmodSync(join(lib, 'cli', 'bin.js'), 0o755);

// The API reference the package ships (docs/api/README.md), from the TSDoc comments.
const docs = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'api-docs.ts')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (docs.status !== 0) process.exit(docs.status ?? 1);

mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, `${new Date().toISOString()}\n`);
