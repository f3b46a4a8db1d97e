/**
 * Distance and rope joints as rows of the PGS solve (contactSolver "pgs",
 * src/dynamics/joints/pgsRows.ts): an equality row and a one-sided row swept
 * with the contact rows. The period, a slack rope's freedom, going taut with
 * and without restitution, the length held, and a rope and a contact sharing
 * a box, against analytic answers; the motion is measured from the body state,
 * the forces from the rows' impulses.
 */
import { describe, expect, it } from 'vitest';
import { bodyIndex, FORMAT, pos, run, vel, worldFrom } from '../dynamics/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';
import type { DistanceRows } from '../../src/dynamics/joints/pgsRows.ts';
import { dot, norm, scale, sub, worldPoint, type V3 } from './geometry.ts';
import { arm, G, PIVOT, pendulumScene, type Json } from './pendulum.ts';

const PGS = { contactSolver: 'pgs' };
const pgsPendulum = (joint: Json, ball: Json, gravity?: V3, dt?: number): Json => pendulumScene(joint, ball, gravity, dt, PGS);


const rows = (w: World): DistanceRows => jointsOf(w)!.pgsRows!;
const mass = (w: World, name: string): number => w.bodies.mass[bodyIndex(w, name)]!;
/** The ball's speed along the rope, outward positive. */
const radial = (w: World): number => {
  const r = arm(w);
  return dot(vel(w, 'ball'), scale(r, 1 / norm(r)));
};

describe('PGS: pendulum period and tension', () => {
  for (const type of ['rope', 'distance']) {
    it(`${type}: 2 pi sqrt(L/g) within 1 %, the row carrying the tension m g (1 + th^2 / 4)`, async () => {
      const L = 1, th = 0.05;
      const w = await worldFrom(pgsPendulum({ type }, { position: [PIVOT[0] + L * Math.sin(th), PIVOT[1] - L * Math.cos(th), 0] }));
      const crossings: number[] = [];
      let prevX = arm(w)[0], prevT = 0;
      const tension: number[] = [];
      await run(w, 1000, (w) => {
        const x = arm(w)[0], t = w.time;
        if (prevX > 0 !== x > 0) crossings.push(prevT + ((t - prevT) * prevX) / (prevX - x));
        prevX = x;
        prevT = t;
        expect(rows(w).count).toBe(1);
        tension.push(rows(w).lam[0]! / w.dt);
      });
      expect(crossings.length).toBeGreaterThanOrEqual(9);
      const n = crossings.length - 1;
      const period = (2 * (crossings[n]! - crossings[0]!)) / n;
      const small = 2 * Math.PI * Math.sqrt(L / G);
      expect(Math.abs(period / small - 1)).toBeLessThan(0.01);
      // Measured: 1.2e-4 and 4e-5.
      expect(Math.abs(period / (small * (1 + (th * th) / 16)) - 1)).toBeLessThan(1e-3);
      // Over whole swings the tension m (g cos + v^2 / L) averages m g (1 + th^2 / 4). The
      // joint passes do not touch the part: they would have taken gravity's pull before the solve.
      const from = Math.round(crossings[0]! / w.dt), to = Math.round(crossings[n]! / w.dt);
      const mean = tension.slice(from, to).reduce((s, x) => s + x, 0) / (to - from);
      // Measured: 2e-6.
      expect(Math.abs(mean / (mass(w, 'ball') * G * (1 + (th * th) / 4)) - 1)).toBeLessThan(1e-4);
    });
  }
});

describe('PGS: slack rope', () => {
  it('exerts no force: a ball inside the rope falls exactly as a free one, then is caught at the length', async () => {
    const ball = { position: [0.3, PIVOT[1], 0], velocity: [0.1, 0, 0] };
    const roped = await worldFrom(pgsPendulum({ type: 'rope', length: 2, restitution: 0.5 }, ball));
    const free = await worldFrom({ ...pgsPendulum({}, ball), joints: [] });
    const h = 0.01;
    for (let n = 1; n <= 60; n++) {
      await roped.step();
      await free.step();
      expect(pos(roped, 'ball')).toEqual(pos(free, 'ball'));
      expect(vel(roped, 'ball')).toEqual(vel(free, 'ball'));
      expect(pos(roped, 'ball')[1]).toBeCloseTo(PIVOT[1] - (G * (h * n) ** 2) / 2, 12);
      expect(rows(roped).lam[0]).toBe(0);
    }
    let most = 0;
    await run(roped, 50, (w) => (most = Math.max(most, norm(arm(w)))));
    expect(most).toBeGreaterThan(2 - 1e-5);
    expect(most).toBeLessThan(2 + 1e-5);
  });
});

describe('PGS: a rope going taut', () => {
  // No gravity: the ball flies out along the rope at 2 m/s, the 1 m rope catches it at t = 0.25 s.
  const V = 2;
  const flyOut = (e: number): Promise<World> =>
    worldFrom(pgsPendulum({ type: 'rope', length: 1, restitution: e }, { position: [PIVOT[0] + 0.5, PIVOT[1], 0], velocity: [V, 0, 0] }, [0, 0, 0]));

  it('with restitution 0 stops the radial speed at the length', async () => {
    const w = await flyOut(0);
    let most = 0;
    await run(w, 100, (w) => (most = Math.max(most, norm(arm(w)))));
    expect(Math.abs(radial(w))).toBeLessThan(1e-9);
    expect(norm(vel(w, 'ball'))).toBeLessThan(1e-9);
    expect(Math.abs(norm(arm(w)) - 1)).toBeLessThan(1e-6);
    expect(most).toBeLessThan(1 + 1e-6);
  });

  for (const e of [1, 0.5, 0.2]) {
    it(`rebounds at e v with restitution ${e}, from the length`, async () => {
      const w = await flyOut(e);
      let most = 0;
      await run(w, 40, (w) => (most = Math.max(most, norm(arm(w)))));
      expect(radial(w) / V).toBeCloseTo(-e, 9);
      expect(norm(vel(w, 'ball')) / V).toBeCloseTo(e, 9);
      expect(most).toBeGreaterThan(1 - 1e-6);
      expect(most).toBeLessThan(1 + 1e-6);
    });
  }

  it('under gravity: a dropped ball caught by the rope comes back at e times its arrival speed', async () => {
    // Dropped 0.6 m to the side of the pivot with a 1 m rope: caught after 0.8 m of fall.
    const w = await worldFrom(pgsPendulum({ type: 'rope', length: 1, restitution: 0.5 }, { position: [0.6, PIVOT[1], 0] }));
    const hist: number[] = [];
    let worst = 0;
    await run(w, 500, (w) => {
      hist.push(radial(w));
      worst = Math.max(worst, norm(arm(w)) - 1);
    });
    const k = hist.findIndex((r, i) => i > 0 && r < 0 && hist[i - 1]! > 0);
    expect(k).toBeGreaterThan(1);
    // The step before the catch the ball was still free (radial speed vIn); the catching step
    // stops it at the length, and the next turns vIn into -e vIn, less what a step or two of
    // gravity along the rope adds (g dt cos = 0.08 m/s of some 3.2 m/s).
    const vIn = hist[k - 2]!, vOut = -hist[k]!;
    expect(vIn).toBeGreaterThan(3);
    expect(Math.abs(vOut / vIn - 0.5)).toBeLessThan(0.03);
    expect(worst).toBeLessThan(1e-5);
  });
});

describe('PGS: the length held', () => {
  for (const type of ['rope', 'distance']) {
    it(`${type}: a pendulum let go horizontally keeps its length within 1 mm for 10 s`, async () => {
      const w = await worldFrom(pgsPendulum({ type }, { position: [PIVOT[0] + 1.5, PIVOT[1], 0] }));
      let worst = 0, lowest = 0;
      await run(w, 1000, (w) => {
        worst = Math.max(worst, Math.abs(norm(arm(w)) - 1.5));
        lowest = Math.min(lowest, arm(w)[1]);
      });
      // The issue asks for 1 mm; the pseudo row closes the end-of-step length (measured: 1e-15 m).
      expect(worst).toBeLessThan(1e-3);
      expect(worst).toBeLessThan(1e-9);
      expect(lowest).toBeLessThan(-1.49);
    });
  }
});

describe('PGS: two bodies', () => {
  it('distance: two tumbling boxes keep their off-centre anchors 0.8 m apart and their momentum', async () => {
    const w = await worldFrom({
      format: FORMAT,
      dt: 0.01,
      gravity: [0, 0, 0],
      solver: PGS,
      shapes: { box: { type: 'box', size: [0.4, 0.2, 0.3], sdf: { cells: 8 } } },
      bodies: [
        { name: 'a', shape: 'box', position: [0, 0, 0], velocity: [0, 0.5, 0.2], angularVelocity: [0, 0, 2] },
        { name: 'b', shape: 'box', position: [1, 0.2, 0], velocity: [0, -0.5, 0], angularVelocity: [1, 0, -1] },
      ],
      joints: [{ type: 'distance', bodyA: 'a', bodyB: 'b', anchorA: [0.2, 0, 0], anchorB: [-0.2, 0.1, 0], length: 0.8 }],
    });
    const gap = (w: World): number => norm(sub(worldPoint(w, 'a', [0.2, 0, 0]), worldPoint(w, 'b', [-0.2, 0.1, 0])));
    const momentum = (w: World): V3 => {
      const va = vel(w, 'a'), vb = vel(w, 'b'), ma = mass(w, 'a'), mb = mass(w, 'b');
      return [ma * va[0] + mb * vb[0], ma * va[1] + mb * vb[1], ma * va[2] + mb * vb[2]];
    };
    const p0 = momentum(w);
    // The anchors start 0.67 m apart; the pseudo rows take a fraction beta of what is left per step.
    await run(w, 100);
    let worst = 0;
    await run(w, 900, (w) => (worst = Math.max(worst, Math.abs(gap(w) - 0.8))));
    // Measured: 7e-8 m (the anchors' turning within a step, corrected the next).
    expect(worst).toBeLessThan(1e-6);
    expect(norm(sub(momentum(w), p0))).toBeLessThan(1e-9);
  });
});

describe('PGS: a rope and a contact on one box', () => {
  // A box on a frictionless 30 degree slope, held by a rope from its centre to a post uphill,
  // the rope phi above the slope. Along the slope: T cos phi = m g sin theta; across it:
  // N = m g cos theta - T sin phi. The rope's pull takes part of the contact's load, so the
  // two kinds of rows must be solved together.
  const theta = (30 * Math.PI) / 180;
  function scene(phi: number, roped = true): Json {
    const s = 0.4, d = s / 2;
    const c: V3 = [-Math.sin(theta) * d, Math.cos(theta) * d, 0];
    const up: V3 = [Math.cos(theta), Math.sin(theta), 0], nrm: V3 = [-Math.sin(theta), Math.cos(theta), 0];
    const L = 1;
    const post = [0, 1, 2].map((k) => c[k]! + L * (Math.cos(phi) * up[k]! + Math.sin(phi) * nrm[k]!));
    return {
      format: FORMAT, dt: 0.005, solver: PGS,
      shapes: {
        slope: { type: 'plane', normal: [0, 1, 0] },
        box: { type: 'box', size: [s, s, s], sdf: { cells: 16 } },
        post: { type: 'box', size: [0.1, 0.1, 0.1], sdf: { cells: 8 } },
      },
      bodies: [
        { name: 'slope', shape: 'slope', static: true, rotation: { axis: [0, 0, 1], degrees: 30 }, friction: 0 },
        { name: 'box', shape: 'box', position: c, rotation: { axis: [0, 0, 1], degrees: 30 }, friction: 0 },
        { name: 'post', shape: 'post', static: true, position: post },
      ],
      joints: roped ? [{ type: 'rope', bodyA: 'post', bodyB: 'box', anchorA: [0, 0, 0], anchorB: [0, 0, 0], length: L }] : [],
    };
  }

  for (const deg of [0, 20]) {
    it(`rope ${deg} degrees above the slope: T = m g sin / cos phi and N = m g cos - T sin phi (to 1e-6)`, async () => {
      const phi = (deg * Math.PI) / 180;
      const w = await worldFrom(scene(phi));
      // The forces are read off a box at rest: it must not fall asleep.
      w.solver.sleep = false;
      const start = pos(w, 'box');
      await run(w, 200);
      const m = mass(w, 'box');
      const T = m * G * Math.sin(theta) / Math.cos(phi), N = m * G * Math.cos(theta) - T * Math.sin(phi);
      let tSum = 0, nSum = 0, drift = 0;
      const steps = 200;
      await run(w, steps, (w) => {
        tSum += rows(w).lam[0]! / w.dt;
        let n = 0;
        for (let r = 0; r < w.pgs.rows; r++) n += w.pgs.lam[4 * r]!;
        nSum += n / w.dt;
        drift = Math.max(drift, norm(sub(pos(w, 'box'), start)));
      });
      // Measured: 1e-12 relative, both.
      expect(Math.abs(tSum / steps / T - 1)).toBeLessThan(1e-6);
      expect(Math.abs(nSum / steps / N - 1)).toBeLessThan(1e-6);
      // Held in place, at rest.
      expect(drift).toBeLessThan(1e-6);
      expect(norm(vel(w, 'box'))).toBeLessThan(1e-9);
    });
  }

  it('without the rope the box slides down at g sin theta', async () => {
    const w = await worldFrom(scene(0, false));
    await run(w, 40);
    const v0 = norm(vel(w, 'box'));
    await run(w, 100);
    const a = (norm(vel(w, 'box')) - v0) / (100 * w.dt);
    expect(Math.abs(a / (G * Math.sin(theta)) - 1)).toBeLessThan(0.01);
  });
});
