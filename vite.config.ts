import { defineConfig } from 'vitest/config';
import { resolve } from 'node:path';

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
  server: { port: 5173 },
  test: {
    include: ['tests/**/*.test.ts'],
    setupFiles: ['tests/setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // GPU tests share one Dawn device per worker; keep workers few on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
  },
});
