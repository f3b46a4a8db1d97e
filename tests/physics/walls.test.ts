/**
 * A heap pressed against static walls must not sink into them. Thirty bodies
 * (the seed's rings, cups and L-blocks, a third each) tumble into a bin of
 * four static box walls standing on the floor, whose floor is barely wider
 * than the heap, so the heap ends leaning on the walls. The depth is measured
 * outside the simulation: every mesh vertex of every body against the walls'
 * exact boxes, so neither the fields' interpolation nor the solver's own
 * depth bookkeeping can hide a body inside a wall.
 *
 * Under the accumulated stage the heap lands, rests and falls asleep with no
 * vertex ever more than 2 mm inside a wall (1.0 mm at the worst moment of the
 * landing, 0.4 mm at rest), and the depth does not grow once it rests.
 */
import { describe, expect, it } from 'vitest';
import { builtinScene } from '../../src/scene/builtins.ts';
import { seedRingShape } from '../../src/scene/sceneKit.ts';
import { quatToMat3 } from '../../src/dynamics/math.ts';
import type { World } from '../../src/dynamics/world.ts';
import { worldFrom } from '../dynamics/helpers.ts';

/** Inner half-width of the bin, wall thickness and height (m). */
const HALF = 1.15, THICK = 0.5, HEIGHT = 4;

function binScene(): Record<string, any> {
  const json = builtinScene('pile', { count: 30 }) as Record<string, any>;
  // The pile's bones become the seed's rings (0.37 m across the rim): the
  // grid it drops them on stays inside the bin.
  json.shapes.bone = seedRingShape();
  json.shapes.wallx = { type: 'box', size: [THICK, HEIGHT, 2 * HALF + 2 * THICK] };
  json.shapes.wallz = { type: 'box', size: [2 * HALF, HEIGHT, THICK] };
  const c = HALF + THICK / 2;
  json.bodies.push(
    { name: 'east', shape: 'wallx', static: true, position: [c, HEIGHT / 2, 0] },
    { name: 'west', shape: 'wallx', static: true, position: [-c, HEIGHT / 2, 0] },
    { name: 'north', shape: 'wallz', static: true, position: [0, HEIGHT / 2, c] },
    { name: 'south', shape: 'wallz', static: true, position: [0, HEIGHT / 2, -c] },
  );
  json.solver = { ...(json.solver ?? {}), contactSolver: 'accumulated' };
  return json;
}

/** The deepest any mesh vertex of a dynamic body lies inside a wall (m, 0 when none does). */
function wallDepth(w: World): number {
  const B = w.bodies;
  const R = new Float64Array(9);
  let worst = 0;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    const m = w.shapes[B.shape[i]!]!.mesh.positions;
    quatToMat3(B.quat, 4 * i, R);
    for (let v = 0; v < m.length; v += 3) {
      const lx = m[v]!, ly = m[v + 1]!, lz = m[v + 2]!;
      const x = R[0]! * lx + R[1]! * ly + R[2]! * lz + B.pos[3 * i]!;
      const y = R[3]! * lx + R[4]! * ly + R[5]! * lz + B.pos[3 * i + 1]!;
      const z = R[6]! * lx + R[7]! * ly + R[8]! * lz + B.pos[3 * i + 2]!;
      if (y < 0 || y > HEIGHT) continue;
      const ax = Math.abs(x), az = Math.abs(z), top = HEIGHT - y, out = HALF + THICK;
      // Inside the east or west wall (they span the corners), or the north or south one.
      if (ax > HALF && ax < out && az < out) worst = Math.max(worst, Math.min(ax - HALF, out - ax, out - az, top, y));
      if (az > HALF && az < out && ax < HALF) worst = Math.max(worst, Math.min(az - HALF, out - az, HALF - ax, top, y));
    }
  }
  return worst;
}

describe('a heap pressed against static walls', () => {
  it('never sinks 2 mm into them over 10 s, and rests without sinking further (accumulated stage)', async () => {
    const w = await worldFrom(binScene());
    const steps = Math.round(10 / w.dt);
    let worst = 0, atRest = 0, touching = 0;
    for (let s = 1; s <= steps; s++) {
      await w.step();
      const d = wallDepth(w);
      worst = Math.max(worst, d);
      if (s === Math.round(4 / w.dt)) atRest = d;
    }
    // The heap does lean on the walls: bodies lie within a centimetre of them.
    const B = w.bodies;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      const r = w.shapes[B.shape[i]!]!.radius;
      if (Math.max(Math.abs(B.pos[3 * i]!), Math.abs(B.pos[3 * i + 2]!)) + r > HALF - 0.01) touching++;
    }
    expect(touching).toBeGreaterThanOrEqual(5);
    expect(worst).toBeLessThan(0.002);
    expect(wallDepth(w)).toBeLessThanOrEqual(atRest + 2e-4);
    let asleep = 0;
    for (let i = 0; i < B.count; i++) if (!B.isStatic[i]) asleep += B.asleep[i]!;
    expect(asleep).toBe(30);
  }, 120_000);
});
