/**
 * Temporary directories for the files a test writes. tests/setup.ts removes
 * them after each test file's tests, so a run leaves nothing under the
 * system's temporary directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty directory under the system's temporary directory, named `prefix` and six random characters. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory scratchDir made so far. */
export function removeScratchDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
