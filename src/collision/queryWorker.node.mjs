// Node entry of a query worker thread (src/collision/queryWorker.ts is the
// worker; parallelQuery.ts starts this file with worker_threads). The sources
// are TypeScript, so the thread registers tsx first, as bin/stackfield.mjs
// does for the main thread: a worker does not inherit its parent's loaders.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { startQueryWorker } = await import('./queryWorker.ts');
startQueryWorker({
  onMessage: (fn) => parentPort.on('message', fn),
  close: () => parentPort.close(),
});
