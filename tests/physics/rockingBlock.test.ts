/**
 * Housner's rocking block: a rigid block 2b wide and 2h tall, tilted onto
 * one bottom edge and let go, swings back, lands on the other edge and rocks
 * on it. With enough friction that nothing slides and no bounce, each
 * landing keeps
 *
 *   r = 1 - 3/2 sin^2(alpha),   alpha = atan(b / h)
 *
 * of the angular velocity (angular momentum about the new edge is kept
 * through the blow), and between landings the block pivots on one edge
 * with no loss: at a peak tilt theta its energy above the upright is
 * m g R (cos(alpha - theta) - cos alpha), R = sqrt(b^2 + h^2), so
 * consecutive peaks' energies part by r^2. Read off the peaks, every landing's
 * r must be Housner's within the spread of the impact over a step or two. (A body on a
 * plane is met by the plane's exact distance on the CPU whatever the query
 * backend: the GPU has no part in this scene.)
 *
 * The seed's passes (the scene default) keep 0.80 here, not 0.91: their
 * landing takes more than the one blow at the new edge (docs/DESIGN.md 4,
 * "A block rocking on its edges"), so they are not held to Housner's
 * coefficient yet. They are held to the pivot: between landings the block
 * turns about its edge, which stays on the floor.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, bodyIndex, queryWorld, run } from '../dynamics/helpers.ts';

const B = 0.1, H = 0.4, TILT = (6 * Math.PI) / 180, DT = 0.001;
const ALPHA = Math.atan(B / H);
const HOUSNER = 1 - 1.5 * Math.sin(ALPHA) ** 2;

function blockScene(contactSolver: 'accumulated' | 'pgs' | 'sequential') {
  // Standing on its bottom-left edge (local (-b, -h)), tilted by TILT about z.
  const c = [B * Math.cos(TILT) - H * Math.sin(TILT), B * Math.sin(TILT) + H * Math.cos(TILT), 0];
  return {
    format: FORMAT, dt: DT, sleep: false, solver: { contactSolver },
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, block: { type: 'box', size: [2 * B, 2 * H, 0.4], sdf: { cells: 32 } } },
    bodies: [
      { name: 'ground', shape: 'floor', static: true, friction: 1, restitution: 0 },
      { name: 'block', shape: 'block', position: c, rotation: { axis: [0, 0, 1], degrees: (TILT * 180) / Math.PI }, friction: 1, restitution: 0 },
    ],
  };
}

/** Energy above the upright pose at a peak tilt theta, per m g R. */
const peakEnergy = (theta: number): number => Math.cos(ALPHA - Math.abs(theta)) - Math.cos(ALPHA);

describe("Housner's rocking block", () => {
  for (const solver of ['accumulated', 'pgs'] as const) {
    it(`keeps 1 - 1.5 sin^2(alpha) = ${HOUSNER.toFixed(3)} of its angular velocity at each landing (${solver})`, async () => {
      const w = await queryWorld(blockScene(solver), 'cpu');
      const i = bodyIndex(w, 'block');
      const q = w.bodies.quat;
      // Tilt about z (the block turns about z: nothing tips it about another axis by more than a few percent of that).
      const tilt = (): number => 2 * Math.atan2(q[4 * i + 2]!, q[4 * i + 3]!);
      const peaks: number[] = [];
      let extreme = tilt(), side = Math.sign(extreme);
      await run(w, 2500, () => {
        const t = tilt();
        if (Math.sign(t) !== side && t !== 0) {
          peaks.push(extreme);
          extreme = 0;
          side = Math.sign(t);
        }
        if (Math.abs(t) > Math.abs(extreme)) extreme = t;
        expect(Math.abs(w.bodies.angVel[3 * i]!) + Math.abs(w.bodies.angVel[3 * i + 1]!)).toBeLessThan(0.05);
      });
      expect(peaks.length).toBeGreaterThanOrEqual(4);
      expect(Math.abs(peaks[0]!) - TILT).toBeLessThan(1e-6);
      for (let k = 0; k + 1 < 4; k++) {
        const r = Math.sqrt(peakEnergy(peaks[k + 1]!) / peakEnergy(peaks[k]!));
        expect(r).toBeGreaterThan(HOUSNER - 0.04);
        expect(r).toBeLessThan(HOUSNER + 0.01);
      }
    });
  }

  it('pivots on its edge, the edge level on the floor and no turn about other axes (the seed\'s passes)', async () => {
    const w = await queryWorld(blockScene('sequential'), 'cpu');
    const i = bodyIndex(w, 'block');
    const q = w.bodies.quat, X = w.bodies.pos, W = w.bodies.angVel;
    const tilt = (): number => 2 * Math.atan2(q[4 * i + 2]!, q[4 * i + 3]!);
    // Height above the floor of the pivoting edge's end at local (-b, -h, z).
    const endHeight = (z: number): number => {
      const x = q[4 * i]!, y = q[4 * i + 1]!, qz = q[4 * i + 2]!, s = q[4 * i + 3]!;
      const v = [-B, -H, z];
      // y of R(q) v.
      const ry = 2 * (x * y + s * qz) * v[0]! + (1 - 2 * (x * x + qz * qz)) * v[1]! + 2 * (y * qz - s * x) * v[2]!;
      return X[3 * i + 1]! + ry;
    };
    let lifted = 0, offAxis = 0, pivoting = true;
    await run(w, 2500, () => {
      // The first swing, until the block is upright and the other edge lands.
      if (tilt() <= 0) pivoting = false;
      if (pivoting) lifted = Math.max(lifted, Math.abs(endHeight(-0.2)), Math.abs(endHeight(0.2)));
      offAxis = Math.max(offAxis, Math.abs(W[3 * i]!) + Math.abs(W[3 * i + 1]!));
    });
    expect(pivoting).toBe(false);
    // Both ends within 0.1 mm of the floor (a tilted patch read as curved lifted one end 1.7 mm).
    expect(lifted).toBeLessThan(1e-4);
    // Under 0.05 rad/s about any axis but the edge's (it turned at 0.2 rad/s).
    expect(offAxis).toBeLessThan(0.05);
  });
});
