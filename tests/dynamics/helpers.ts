import { readFile } from 'node:fs/promises';
import { validateScene } from '../../src/scene/validate.ts';
import { createWorld } from '../../src/scene/build.ts';
import '../../src/dynamics/joints.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { createBackend } from '../../src/collision/backends.ts';
import type { BackendKind } from '../../src/collision/query.ts';
import type { World } from '../../src/dynamics/world.ts';

/** A world from scene JSON (validated exactly as a file would be). */
export async function worldFrom(json: unknown, backend: BackendKind = 'cpu'): Promise<World> {
  const scene = validateScene(json, '<test>');
  const b = await createBackend(backend);
  return createWorld(scene, b.query, { readText: (p) => readFile(p, 'utf8'), bake: b.bake });
}

export async function builtinWorld(name: string, params: Record<string, number> = {}, backend: BackendKind = 'cpu'): Promise<World> {
  return worldFrom(builtinScene(name, params), backend);
}

export async function run(world: World, steps: number, each?: (w: World) => void): Promise<void> {
  for (let i = 0; i < steps; i++) {
    await world.step();
    each?.(world);
  }
}

export function bodyIndex(world: World, name: string): number {
  const i = world.bodies.names.indexOf(name);
  if (i < 0) throw new Error(`no body ${name}`);
  return i;
}

export function pos(world: World, name: string): [number, number, number] {
  const i = bodyIndex(world, name);
  const p = world.bodies.pos;
  return [p[3 * i]!, p[3 * i + 1]!, p[3 * i + 2]!];
}

export function vel(world: World, name: string): [number, number, number] {
  const i = bodyIndex(world, name);
  const v = world.bodies.vel;
  return [v[3 * i]!, v[3 * i + 1]!, v[3 * i + 2]!];
}

export const FORMAT = 'stackfield-scene/1';
