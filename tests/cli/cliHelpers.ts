/**
 * Running the real `stackfield` executable (bin/stackfield.mjs, the sources
 * through tsx) as a subprocess, and the checks every failing case makes: the
 * exit code, the message, no stack trace and no control character on the
 * terminal.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { PACKAGE_ROOT } from '../../src/cli/nodePlatform.ts';

export const BIN = join(PACKAGE_ROOT, 'bin', 'stackfield.mjs');

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
