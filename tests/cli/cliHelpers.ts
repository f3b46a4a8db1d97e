/**
 * Running the real `stackfield` executable as a subprocess, and the checks
 * every failing case makes: the exit code, the message, no stack trace and no
 * control character on the terminal.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { PACKAGE_ROOT } from '../../src/cli/nodePlatform.ts';

/** The stamp scripts/build-lib.mjs writes once lib/ is whole. */
const LIB_STAMP = join(PACKAGE_ROOT, 'node_modules', '.cache', 'stackfield', 'lib-built');

/** The newest modification time (ms) of the files under dir, `skip` left out. */
function newest(dir: string, skip: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (p === skip) continue;
    t = Math.max(t, e.isDirectory() ? newest(p, skip) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * Whether lib/ is whole and was built from the sources as they are: its
 * stamp is newer than every file of src/ (the app left out, which lib/ does
 * not hold) and of the build's own configuration. `npm ci` and `npm install`
 * build it (`prepare`).
 */
export function libCurrent(): boolean {
  let built: number;
  try {
    built = statSync(LIB_STAMP).mtimeMs;
  } catch {
    return false;
  }
  const sources = Math.max(
    newest(join(PACKAGE_ROOT, 'src'), join(PACKAGE_ROOT, 'src', 'app')),
    statSync(join(PACKAGE_ROOT, 'tsconfig.json')).mtimeMs,
    statSync(join(PACKAGE_ROOT, 'tsconfig.build.json')).mtimeMs,
    statSync(join(PACKAGE_ROOT, 'scripts', 'build-lib.mjs')).mtimeMs,
  );
  return built >= sources;
}

/** The development entry: main() from the TypeScript sources through tsx. */
export const SOURCE_BIN = join(PACKAGE_ROOT, 'bin', 'stackfield.mjs');

/**
 * The command the tests run: the installed package's (lib/cli/bin.js, the
 * same main() compiled) while lib/ is current, since tsx compiling the
 * sources costs about 0.4 s a run; the sources' otherwise, so that a change
 * is tested before lib/ is built again. (tests/cli/run.test.ts checks that
 * the two print the same.)
 */
export const BIN = libCurrent() ? join(PACKAGE_ROOT, 'lib', 'cli', 'bin.js') : SOURCE_BIN;

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function stackfield(args: string[], opts: { cwd?: string; env?: Record<string, string>; timeout?: number } = {}): Ran {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: opts.timeout ?? 120_000,
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A shell pipeline (for `| head -1`); `status` is the first command's exit code. */
export function pipeline(command: string, cwd?: string): Ran {
  const r = spawnSync('bash', ['-c', `${command}; exit \${PIPESTATUS[0]}`], { encoding: 'utf8', timeout: 120_000, cwd });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What the terminal may show: no stack trace, no control character other than a line break. */
export function expectClean(text: string): void {
  expect(text).not.toMatch(/\n\s+at /);
  expect(text).not.toMatch(/internal error/);
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
}

/** Exit code 2, the given pieces in the message, and a clean terminal. */
export function expectBadInput(r: Ran, ...pieces: (string | RegExp)[]): void {
  expect(r.status, r.stderr).toBe(2);
  for (const p of pieces) {
    if (typeof p === 'string') expect(r.stderr).toContain(p);
    else expect(r.stderr).toMatch(p);
  }
  expectClean(r.stderr);
}
