import { readFile } from 'node:fs/promises';
import { validateScene } from '../../src/scene/validate.ts';
import { createWorld } from '../../src/scene/build.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { createBackend } from '../../src/backends.ts';
import type { BackendKind } from '../../src/collision/query.ts';
import type { World } from '../../src/dynamics/world.ts';

/** A world from scene JSON (validated exactly as a file would be). */
export async function worldFrom(json: unknown, backend: BackendKind = 'cpu'): Promise<World> {
  const scene = validateScene(json, '<test>');
  const b = await createBackend(backend);
  return createWorld(scene, b.query, { readText: (p) => readFile(p, 'utf8'), bake: b.bake, bakeAll: b.bakeAll });
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

/**
 * Runs `world` for `seconds` (calling `each` after every step) and returns
 * when every dynamic body was first asleep at once (-1: not within them).
 */
export async function allAsleepAt(world: World, seconds: number, each?: (w: World) => void): Promise<number> {
  let at = -1;
  await run(world, Math.round(seconds / world.dt), (w) => {
    each?.(w);
    if (at >= 0) return;
    for (let i = 0; i < w.bodies.count; i++) if (!w.bodies.isStatic[i] && !w.bodies.asleep[i]) return;
    at = w.time;
  });
  return at;
}

/**
 * Runs `steps` steps and returns body `name`'s apexes: its centre's height
 * less `lift` (its radius, for a ball on a floor at 0) at each step where
 * its vertical velocity turns from up to down.
 */
export async function apexHeights(world: World, name: string, lift: number, steps: number): Promise<number[]> {
  const apex: number[] = [];
  let prev = 0;
  await run(world, steps, (w) => {
    const vy = vel(w, name)[1];
    if (prev > 0 && vy <= 0) apex.push(pos(w, name)[1] - lift);
    prev = vy;
  });
  return apex;
}

/**
 * The heights (less `lift`) each bounce of body `name` sends it to: read in
 * the step after it turns upward, from its height and speed there (free
 * flight is an exact parabola, so y + vy^2 / 2g is its apex, without the
 * up to g dt^2 / 8 a step's sampling of the top misses).
 */
export async function bounceApexes(world: World, name: string, lift: number, steps: number, g = 9.81): Promise<number[]> {
  const apex: number[] = [];
  let prev = 0;
  await run(world, steps, (w) => {
    const vy = vel(w, name)[1];
    if (prev <= 0 && vy > 0) apex.push(pos(w, name)[1] - lift + (vy * vy) / (2 * g));
    prev = vy;
  });
  return apex;
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

/**
 * A 0.4 m box resting on a plane tilted by `deg` about z (the slope goes down
 * toward -x), both with friction `mu` and the given restitution and solver.
 */
export function inclineScene(deg: number, mu: number, restitution = 0, solver: Record<string, unknown> = {}) {
  const th = (deg * Math.PI) / 180;
  const s = 0.4;
  const d = s / 2 + 0.0005;
  return {
    format: FORMAT, dt: 0.005, solver,
    shapes: { slope: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [s, s, s], sdf: { cells: 16 } } },
    bodies: [
      { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: deg }, friction: mu, restitution },
      { name: 'box', shape: 'box', position: [-Math.sin(th) * d, Math.cos(th) * d, 0], rotation: { axis: [0, 0, 1], degrees: deg }, friction: mu, restitution },
    ],
  };
}

/** Acceleration down the slope of `inclineScene(deg, ...)` over T seconds after a settling time. */
export async function slideAcceleration(world: World, deg: number, T = 0.5): Promise<number> {
  const th = (deg * Math.PI) / 180;
  await run(world, 40); // settle into sliding
  const along = (v: number[]) => -(v[0]! * Math.cos(th) + v[1]! * Math.sin(th));
  const v0 = along(vel(world, 'box'));
  await run(world, Math.round(T / world.dt));
  return (along(vel(world, 'box')) - v0) / T;
}

/**
 * A world whose penetration queries run on `backend` and whose SDFs are baked
 * on the CPU: the physics tests compare the query backends; the bake's own
 * parity is tests/gpu/sdfBake.test.ts's business (and on SwiftShader a GPU
 * bake of a fine mesh costs seconds).
 */
export async function queryWorld(json: unknown, backend: BackendKind): Promise<World> {
  const scene = validateScene(json, '<test>');
  const b = await createBackend(backend);
  return createWorld(scene, b.query, { readText: (p) => readFile(p, 'utf8') });
}

/**
 * Runs `steps` steps recording every stage each step books (StepProfile.end),
 * and returns per step the stages in the order each was first booked in it.
 */
export async function stagesBooked(world: World, steps: number): Promise<string[][]> {
  const p = world.profile;
  const end = p.end.bind(p);
  const out: string[][] = [];
  let order: string[] = [];
  p.end = (stage) => {
    if (!order.includes(stage)) order.push(stage);
    return end(stage);
  };
  try {
    for (let i = 0; i < steps; i++) {
      order = [];
      await world.step();
      out.push(order);
    }
  } finally {
    p.end = end;
  }
  return out;
}
