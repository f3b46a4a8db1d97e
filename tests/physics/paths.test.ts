/**
 * Where bodies in lasting contact go, not only how fast: under constant
 * forces a body's path is x0 + v0 t + a t^2 / 2, and the seed's contact phase
 * solves for velocities only. Moving a touched body by dt v' (semi-implicit
 * Euler) put it a t dt / 2 ahead after t, 1 % of the distance at 1 s with
 * dt = 0.01, while its speed was exact; the trapezoid of its smooth velocity
 * change (integrate.ts trapezoidCorrection) puts it on the path. On both
 * query backends, with static boxes (which the GPU queries) as the ground.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, pos, queryWorld, run, vel } from '../dynamics/helpers.ts';
import { onIncline, sphereRollAccel } from './scenes.ts';

const G = 9.81;
const SOLVERS = ['sequential', 'pgs', 'accumulated'] as const;

/** A 0.4 m box on the top face of a static 20 x 1 x 4 m box turned by `deg` about z (downhill toward -x). */
function boxOnRamp(deg: number, mu: number, velocity: number[] = [0, 0, 0], contactSolver = 'sequential') {
  const th = (deg * Math.PI) / 180;
  // The ramp's top face passes through the origin; the box's centre 0.2 m above it.
  const up = [-Math.sin(th), Math.cos(th)];
  return {
    format: FORMAT, dt: 0.01, solver: { contactSolver },
    shapes: { ramp: { type: 'box', size: [20, 1, 4], sdf: { cells: 48 } }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } } },
    bodies: [
      { name: 'ramp', shape: 'ramp', static: true, position: [-0.5 * up[0]!, -0.5 * up[1]!, 0], rotation: { axis: [0, 0, 1], degrees: deg }, friction: mu, restitution: 0 },
      { name: 'box', shape: 'box', position: [0.2 * up[0]!, 0.2 * up[1]!, 0], rotation: { axis: [0, 0, 1], degrees: deg }, velocity, friction: mu, restitution: 0 },
    ],
  };
}

describe.each(['cpu', 'gpu'] as const)('paths under lasting contact (%s)', (backend) => {
  it.each(SOLVERS)('a box sliding down a 30 degree ramp (mu 0.2, dt 0.01) is at a t^2 / 2 within 0.05 % at 1 s and 2 s (the accumulated stage 0.1 % at 1 s, 0.05 % at 2 s), at speed a t within 0.01 % (%s)', async (contactSolver) => {
    const deg = 30, mu = 0.2;
    const th = (deg * Math.PI) / 180;
    const a = G * (Math.sin(th) - mu * Math.cos(th));
    const w = await queryWorld(boxOnRamp(deg, mu, [0, 0, 0], contactSolver), backend);
    const [x0, y0] = pos(w, 'box');
    for (const t of [1, 2]) {
      await run(w, 100);
      const [x, y] = pos(w, 'box');
      const along = Math.hypot(x - x0, y - y0);
      // (The accumulated stage moves the box in 12 substeps of x += (dt / 12) v,
      // a t dt / 24 ahead of the path: 0.083 % at 1 s. PGS, moved by
      // dt v' alone, was 1 % ahead.)
      expect(Math.abs(along / (0.5 * a * t * t) - 1), `${t} s`).toBeLessThan(contactSolver === 'accumulated' ? 1e-3 / t : 5e-4);
      const v = vel(w, 'box');
      expect(Math.abs(Math.hypot(v[0], v[1]) / (a * t) - 1), `${t} s`).toBeLessThan(1e-4);
    }
  });

  it.each(SOLVERS)('a box thrown at 5 m/s along a level box floor (mu 0.3) stops after v0^2 / (2 mu g) within 0.05 % (%s)', async (contactSolver) => {
    const mu = 0.3, v0 = 5;
    const w = await queryWorld(boxOnRamp(0, mu, [v0, 0, 0], contactSolver), backend);
    const x0 = pos(w, 'box')[0];
    await run(w, 250);
    expect(vel(w, 'box')[0]).toBe(0);
    expect(Math.abs((pos(w, 'box')[0] - x0) / ((v0 * v0) / (2 * mu * G)) - 1)).toBeLessThan(5e-4);
  });
});

describe('rolling paths', () => {
  // Between 1 s and 3 s, which leaves out the first steps' settling onto the
  // facets (a few millimetres, the same at any dt): 0.08 %; moved by dt v'
  // the ball ran 0.31 % ahead.
  it('a 48x32 sphere rolling down a 20 degree plane (mu 0.6, dt 0.01) covers (5/7) g sin(theta) (3^2 - 1^2) / 2 between 1 s and 3 s within 0.15 %', async () => {
    const r = 0.25;
    const w = await queryWorld(onIncline(20, 0.6, { type: 'sphere', radius: r, segments: [48, 32], sdf: { cells: 32 } }, r, 0.01), 'cpu');
    const along = (p: number[], q: number[]) => Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!);
    await run(w, 100);
    const p1 = pos(w, 'body');
    await run(w, 200);
    expect(Math.abs(along(pos(w, 'body'), p1) / (0.5 * sphereRollAccel(20) * 8) - 1)).toBeLessThan(1.5e-3);
  });
});
