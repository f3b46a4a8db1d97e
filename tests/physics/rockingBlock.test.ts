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
 * position correction tilts the pivoting edge (docs/DESIGN.md 4, "A block
 * rocking on its edges"), so they are not held to it yet.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, bodyIndex, queryWorld, run } from '../dynamics/helpers.ts';

const B = 0.1, H = 0.4, TILT = (6 * Math.PI) / 180, DT = 0.001;
const ALPHA = Math.atan(B / H);
const HOUSNER = 1 - 1.5 * Math.sin(ALPHA) ** 2;

function blockScene(contactSolver: 'accumulated' | 'pgs') {
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
});
