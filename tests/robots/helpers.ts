/**
 * Scenes of library instances for the robot tests: files written to a fresh
 * directory and loaded as the command line loads them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { createBackend } from '../../src/backends.ts';
import { createWorld } from '../../src/scene/build.ts';
import { loadSceneFile, loadSceneFileWithSources } from '../../src/scene/load.ts';
import type { World } from '../../src/dynamics/world.ts';
import { scratchDir } from '../scratchDir.ts';

export const EXAMPLES = join(__dirname, '..', '..', 'examples', 'robots');
export const LIBRARY = join(EXAMPLES, 'robots.library.json');

/** Writes files (name -> JSON value or text) into a new directory; returns it. */
export function writeFiles(files: Record<string, unknown>): string {
  const dir = scratchDir('stackfield-robots-');
  for (const [name, v] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof v === 'string' ? v : JSON.stringify(v, null, 1));
  }
  return dir;
}

export async function worldOfFile(path: string): Promise<World> {
  const scene = await loadSceneFile(path);
  const b = await createBackend('cpu');
  return createWorld(scene, b.query, { readText: (p) => readFile(p, 'utf8'), bake: b.bake, bakeAll: b.bakeAll });
}

/** The scene's flattened form written beside it (so mesh paths resolve the same), and its world. */
export async function flattenedWorldOf(path: string): Promise<World> {
  const { flat } = await loadSceneFileWithSources(path);
  const out = join(dirname(path), `flattened-${Date.now()}.json`);
  // Through text, as `stackfield run --flatten --dump > file` would.
  writeFileSync(out, JSON.stringify(flat));
  return worldOfFile(out);
}

/** The InputError loading `path` throws. */
export async function loadError(path: string): Promise<InputError> {
  try {
    await loadSceneFile(path);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return e as InputError;
  }
  throw new Error(`${path} loaded without an error`);
}

/** A copy of every body's state, for bit-for-bit comparisons. */
export function stateBytes(w: World): Float64Array {
  const B = w.bodies, n = B.count;
  return Float64Array.from([...B.pos.subarray(0, 3 * n), ...B.quat.subarray(0, 4 * n), ...B.vel.subarray(0, 3 * n), ...B.angVel.subarray(0, 3 * n)]);
}

/** Exact equality of two states, reporting the first difference. */
export function expectSameBits(a: Float64Array, b: Float64Array): void {
  expect(a.length).toBe(b.length);
  const ua = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const ub = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < ua.length; i++) {
    if (ua[i] !== ub[i]) expect.fail(`states differ at value ${Math.floor(i / 8)}: ${a[Math.floor(i / 8)]} vs ${b[Math.floor(i / 8)]}`);
  }
}
