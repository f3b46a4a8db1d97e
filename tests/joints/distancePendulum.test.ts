/**
 * A bob on a distance joint swings with the exact pendulum's period and
 * keeps its energy at any amplitude. The seed's passes: solve.ts alongRod,
 * the position impulse along the rod's direction now, not at the end of the
 * step, which leaned against the swing (a 1.5 m pendulum let go level lost
 * 31 % of its energy in 10 s and swung 3.6 % fast). PGS: pgsRows.ts
 * acrossTurn, the velocity row's target that keeps the length while the rod
 * turns, not 0.
 */
import { describe, expect, it } from 'vitest';
import { run, vel, worldFrom } from '../dynamics/helpers.ts';
import { arm, G, PIVOT, pendulumScene } from './pendulum.ts';

const L = 1.5;

/** The period of a point pendulum of length L let go at theta0 (rad) from rest: 2 pi sqrt(L / g) / AGM(1, cos(theta0 / 2)). */
function exactPeriod(theta0: number): number {
  let a = 1, b = Math.cos(theta0 / 2);
  for (let i = 0; i < 40 && a !== b; i++) {
    const m = (a + b) / 2;
    b = Math.sqrt(a * b);
    a = m;
  }
  return (2 * Math.PI * Math.sqrt(L / G)) / a;
}

describe.each([['the seed\'s passes', undefined], ['PGS', { contactSolver: 'pgs' }]] as const)('a pendulum on a distance joint (1.5 m, dt 0.01, 10 s; %s)', (_, solver) => {
  it.each([
    [10, 1e-3],
    [30, 3e-3],
    [60, 1e-2],
    [90, 1.5e-2],
  ])('let go at %s degrees: the period within 1e-4 of the exact one, the energy within %s m g L at every step', async (deg, energyTol) => {
    const th = (deg * Math.PI) / 180;
    const w = await worldFrom(pendulumScene({ type: 'distance' }, { position: [PIVOT[0] + L * Math.sin(th), PIVOT[1] - L * Math.cos(th), 0] }, undefined, undefined, solver));
    // Per unit mass: kinetic plus g times the height against the pivot.
    const energy = (): number => {
      const v = vel(w, 'ball');
      return 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + G * arm(w)[1];
    };
    const e0 = energy();
    let worst = 0, t = 0, prevX = arm(w)[0];
    const crossings: number[] = [];
    await run(w, 1000, () => {
      t += w.dt;
      const x = arm(w)[0];
      // Each pass through the bottom from +x to -x, interpolated in the step.
      if (prevX > 0 && x <= 0) crossings.push(t - (w.dt * x) / (x - prevX));
      prevX = x;
      worst = Math.max(worst, Math.abs(energy() - e0) / (G * L));
    });
    expect(crossings.length).toBeGreaterThanOrEqual(3);
    const period = (crossings.at(-1)! - crossings[0]!) / (crossings.length - 1);
    expect(Math.abs(period - exactPeriod(th)) / exactPeriod(th)).toBeLessThan(1e-4);
    expect(worst).toBeLessThan(energyTol);
  });
});
