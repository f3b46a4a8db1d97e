import { defineConfig } from 'vitest/config';
import { resolve } from 'node:path';

/**
 * Cross-origin isolation: without it a page gets no SharedArrayBuffer, and
 * the CPU queries cannot run on the worker pool (src/collision/parallelQuery.ts;
 * the app then runs them on one thread and says so). Every resource the app
 * loads is same-origin, so require-corp blocks nothing.
 */
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// One config for the app (index.html, bench.html) and for vitest.
export default defineConfig({
  build: {
    target: 'es2022',
    rollupOptions: {
      input: {
        main: resolve(import.meta.dirname, 'index.html'),
        bench: resolve(import.meta.dirname, 'bench.html'),
      },
    },
  },
  server: { port: 5173, headers: isolation },
  preview: { headers: isolation },
  // The query workers are ES modules (new Worker(url, { type: 'module' })).
  worker: { format: 'es' },
  test: {
    include: ['tests/**/*.test.ts'],
    setupFiles: ['tests/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // GPU tests share one Dawn device per worker; keep workers few on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    // A worker's files share its module cache (and its Dawn device) instead of
    // importing the sources afresh for each of the 130 files: a tenth off the
    // run. No test file changes global state it does not restore.
    isolate: false,
  },
});
