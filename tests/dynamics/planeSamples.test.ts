/**
 * A mesh on a plane under the warm-started solvers (the accumulated stage
 * and PGS; narrowphase.ts, NarrowPhase.planeFlatOut): the plane pair leaves
 * out the samples on the seams between coplanar faces. The distance to a
 * plane is linear, so such a sample is never deeper than the face's
 * vertices and never outside the polygon they span; the manifolds and the
 * face's spin lever (read from its triangles, patches.ts faceSpinRadius)
 * come from the vertices. A puck built by revolving a rectangle has a base
 * of 64 triangles fanned from its centre, whose 64 seams carry three samples
 * each: 192 of the 449 points it rested on. The seed's passes, whose patch
 * centres weigh every sample by its area, keep them all.
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../src/dynamics/world.ts';
import { FORMAT, bodyIndex, queryWorld, run } from './helpers.ts';

const R = 0.5, H = 0.1, G = 9.81, MU = 0.5, W0 = 10;

function puckScene(contactSolver: string): Record<string, unknown> {
  return {
    format: FORMAT, dt: 0.01, solver: { contactSolver },
    shapes: {
      floor: { type: 'plane' },
      puck: { type: 'revolve', profile: [[0, -H / 2], [R, -H / 2], [R, H / 2], [0, H / 2]], segments: 64 },
    },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: 0, restitution: 0 },
      { name: 'puck', shape: 'puck', position: [0, H / 2, 0], angularVelocity: [0, W0, 0], mass: 2, friction: MU, restitution: 0 },
    ],
  };
}

/** The puck's contact points with the plane: how many, and how many lie on the base's rim (R from the axis). */
function points(w: World): { all: number; rim: number } {
  const i = bodyIndex(w, 'puck');
  const cs = w.contacts;
  let all = 0, rim = 0;
  for (let j = 0; j < cs.count; j++) {
    const dx = cs.points[3 * j]! - w.bodies.pos[3 * i]!, dz = cs.points[3 * j + 2]! - w.bodies.pos[3 * i + 2]!;
    all++;
    if (Math.sqrt(dx * dx + dz * dz) > R * Math.cos(Math.PI / 64) - 1e-6) rim++;
  }
  return { all, rim };
}

describe.each(['cpu', 'gpu'] as const)('a mesh resting on a plane (%s)', (backend) => {
  for (const solver of ['accumulated', 'pgs', 'sequential'] as const) it(`a spinning puck (revolve, 64 sides) rests at its height and is slowed by mu m g 2R/3 within 0.5 % (${solver})`, async () => {
    const w = await queryWorld(puckScene(solver), backend);
    const i = bodyIndex(w, 'puck');
    const Iyy = w.inertiaOf(i)[4]!;
    await run(w, 10);
    const lever = (Iyy * (W0 - w.bodies.angVel[3 * i + 1]!)) / 0.1 / (MU * 2 * G);
    expect(Math.abs(lever / ((2 * R) / 3) - 1)).toBeLessThan(0.005);
    expect(Math.abs(w.bodies.pos[3 * i + 1]! - H / 2)).toBeLessThan(1e-5);
    const { all, rim } = points(w);
    // Every vertex of the base touches: 64 on the rim and the centre, with
    // the rim's seam samples (3 per side); under the seed's passes the 192
    // samples of the seams to the centre as well.
    expect(rim).toBe(64 * 4);
    expect(all).toBe(solver === 'sequential' ? 64 * 4 + 1 + 64 * 3 : 64 * 4 + 1);
  }, 60_000);
});
