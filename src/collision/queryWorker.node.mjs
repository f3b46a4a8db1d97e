// Node entry of a query worker thread (src/collision/queryWorker.ts is the
// worker; parallelQuery.ts starts this file with worker_threads). Plain
// JavaScript, so it runs unchanged in two places:
//  - in the npm package, lib/collision/ (scripts/build-lib.mjs copies it),
//    where the compiled worker, queryWorker.js, sits beside it;
//  - in a checkout, src/collision/, where the worker is TypeScript: the thread
//    registers tsx first, as bin/stackfield.mjs does for the main thread (a
//    worker does not inherit its parent's loaders). tsx is a development
//    dependency, so it is imported only here.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';

const compiled = new URL('./queryWorker.js', import.meta.url);
let worker;
if (existsSync(fileURLToPath(compiled))) {
  worker = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  worker = await import('./queryWorker.ts');
}
worker.startQueryWorker({
  onMessage: (fn) => parentPort.on('message', fn),
  close: () => parentPort.close(),
});
