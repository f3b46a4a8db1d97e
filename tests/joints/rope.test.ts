/**
 * Distance (d = L) and rope (d <= L) joints (seed 002, "Ograničeno kretanje":
 * equality and <= constraints): a pendulum's period, a slack rope's freedom,
 * the restitution of a rope going taut, and the length held.
 * The quantities are measured from the body state, not through the solver.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, pos, run, vel, worldFrom } from '../dynamics/helpers.ts';
import type { World } from '../../src/dynamics/world.ts';
import { dot, norm, scale, sub, worldPoint, type V3 } from './geometry.ts';
import { arm, G, PIVOT, pendulumScene } from './pendulum.ts';




describe('pendulum period', () => {
  for (const type of ['rope', 'distance']) {
    // The anchor is the ball's centre of mass, so the ball does not turn: a point-mass pendulum.
    it(`${type}: 2 pi sqrt(L/g) within 1 % (measured within 0.1 %) at 0.05 rad`, async () => {
      const L = 1, th = 0.05;
      const w = await worldFrom(pendulumScene({ type }, { position: [PIVOT[0] + L * Math.sin(th), PIVOT[1] - L * Math.cos(th), 0] }));
      const crossings: number[] = [];
      let prevX = arm(w)[0], prevT = 0;
      await run(w, 1000, (w) => {
        const x = arm(w)[0], t = w.time;
        if (prevX > 0 !== x > 0) crossings.push(prevT + ((t - prevT) * prevX) / (prevX - x));
        prevX = x;
        prevT = t;
      });
      // 10 s: some five periods, ten zero crossings.
      expect(crossings.length).toBeGreaterThanOrEqual(9);
      const n = crossings.length - 1;
      const period = (2 * (crossings[n]! - crossings[0]!)) / n;
      // The small-amplitude period, and with the first amplitude correction (1 + th^2 / 16).
      const small = 2 * Math.PI * Math.sqrt(L / G);
      expect(Math.abs(period / small - 1)).toBeLessThan(0.01);
      expect(Math.abs(period / (small * (1 + (th * th) / 16)) - 1)).toBeLessThan(1e-3);
    });
  }
});

describe('slack rope', () => {
  it("exerts no force: a ball inside the rope's length falls exactly as without the rope", async () => {
    // 0.3 m to the side of the pivot, rope 2 m: taut once it has fallen 1.977 m (t = 0.635 s).
    const ball = { position: [0.3, PIVOT[1], 0], velocity: [0.1, 0, 0] };
    const roped = await worldFrom(pendulumScene({ type: 'rope', length: 2, restitution: 0.5 }, ball));
    const free = await worldFrom({ ...pendulumScene({}, ball), joints: [] });
    const h = 0.01;
    for (let n = 1; n <= 60; n++) {
      await roped.step();
      await free.step();
      expect(pos(roped, 'ball')).toEqual(pos(free, 'ball'));
      expect(vel(roped, 'ball')).toEqual(vel(free, 'ball'));
      // Free flight follows the parabola: y = y_0 - g t^2 / 2.
      expect(pos(roped, 'ball')[1]).toBeCloseTo(PIVOT[1] - (G * (h * n) ** 2) / 2, 12);
      expect(norm(arm(roped))).toBeLessThan(2);
    }
    // And it does catch the ball, at its length and not beyond.
    let most = 0;
    await run(roped, 50, (w) => (most = Math.max(most, norm(arm(w)))));
    expect(most).toBeGreaterThan(2 - 1e-5);
    expect(most).toBeLessThan(2 + 1e-5);
  });
});

describe('a rope going taut', () => {
  // No gravity: the ball flies straight out along the rope at 2 m/s and the rope (1 m) stops it at t = 0.25 s.
  const V = 2;
  async function flyOut(restitution: number): Promise<World> {
    return worldFrom(
      pendulumScene({ type: 'rope', length: 1, restitution }, { position: [PIVOT[0] + 0.5, PIVOT[1], 0], velocity: [V, 0, 0] }, [0, 0, 0]),
    );
  }
  /** The ball's speed along the rope, outward positive. */
  const radial = (w: World): number => {
    const r = arm(w);
    return dot(vel(w, 'ball'), scale(r, 1 / norm(r)));
  };

  for (const e of [1, 0.5, 0.2]) {
    it(`rebounds at e v with restitution ${e}`, async () => {
      const w = await flyOut(e);
      let most = 0;
      await run(w, 40, (w) => (most = Math.max(most, norm(arm(w)))));
      // Back inward at e V (to 1e-9 of V), moving straight back.
      expect(radial(w) / V).toBeCloseTo(-e, 9);
      expect(norm(vel(w, 'ball')) / V).toBeCloseTo(e, 9);
      // It went to the rope's length, and no further.
      expect(most).toBeGreaterThan(1 - 1e-6);
      expect(most).toBeLessThan(1 + 1e-6);
    });
  }

  it("stops the radial speed with restitution 0 and holds the ball at the rope's length", async () => {
    const w = await flyOut(0);
    let most = 0;
    await run(w, 100, (w) => (most = Math.max(most, norm(arm(w)))));
    expect(Math.abs(radial(w))).toBeLessThan(1e-9);
    expect(norm(vel(w, 'ball'))).toBeLessThan(1e-9);
    expect(Math.abs(norm(arm(w)) - 1)).toBeLessThan(1e-6);
    expect(most).toBeLessThan(1 + 1e-6);
  });

  it('keeps the speed across the rope when it goes taut at an angle', async () => {
    // Out at 45 degrees to the rope's direction at the catch; e = 0.5 turns the radial part only.
    const w = await worldFrom(
      pendulumScene({ type: 'rope', length: 1, restitution: 0.5 }, { position: [PIVOT[0], PIVOT[1], 0], velocity: [V, V, 0] }, [0, 0, 0]),
    );
    // The pivot's anchor and the ball start together: the rope is slack and its direction undefined.
    let before: { r: number; t: number } | null = null;
    let after: { r: number; t: number } | null = null;
    let wasSlack = true;
    await run(w, 60, (w) => {
      const r = arm(w), n = scale(r, 1 / norm(r)), v = vel(w, 'ball');
      const rad = dot(v, n);
      const tan = norm(sub(v, scale(n, rad)));
      if (wasSlack && rad < 0) after = { r: rad, t: tan };
      if (rad > 0) before = { r: rad, t: tan };
      wasSlack = rad > 0;
    });
    expect(before).not.toBeNull();
    expect(after).not.toBeNull();
    // Straight out: all of the speed along the rope, none across, and back at half of it.
    expect(after!.r).toBeCloseTo(-0.5 * Math.SQRT2 * V, 9);
    expect(after!.t).toBeLessThan(1e-9);
  });
});

describe('the length held', () => {
  for (const type of ['rope', 'distance']) {
    it(`${type}: a pendulum let go horizontally keeps its length within 0.01 mm for 10 s${type === 'rope' ? ' wherever it hangs below its pivot' : ''}`, async () => {
      const w = await worldFrom(pendulumScene({ type }, { position: [PIVOT[0] + 1.5, PIVOT[1], 0] }));
      let worst = 0, longest = 0, shortest = Infinity, lowest = 0;
      await run(w, 1000, (w) => {
        const d = norm(arm(w));
        longest = Math.max(longest, d);
        shortest = Math.min(shortest, d);
        // Level with the pivot the rope holds nothing up, and a swing that climbs a hair past
        // level (the step's energy error, 1e-3 m g L) leaves it slack for a few steps; the
        // gravity along it keeps it taut wherever the ball hangs lower.
        if (type === 'distance' || arm(w)[1] < -0.05) worst = Math.max(worst, Math.abs(d - 1.5));
        lowest = Math.min(lowest, arm(w)[1]);
      });
      // The issue asks for 1 mm; the position pass holds it to its tolerance (measured: 9e-7 m).
      expect(worst).toBeLessThan(1e-5);
      expect(longest - 1.5).toBeLessThan(1e-5);
      // Slack at the top by at most 1 mm (measured: 0.55 mm).
      expect(1.5 - shortest).toBeLessThan(type === 'rope' ? 1e-3 : 1e-5);
      // It swung through the bottom.
      expect(lowest).toBeLessThan(-1.49);
    });
  }

  // The standard scheme calls the joint passes in its own order. (Under PGS ropes are rows of the
  // solve, with their own tests in pgsRope.test.ts.)
  for (const solver of [{ scheme: 'standard' }]) {
    it(`rope: the length held and the rebound under ${JSON.stringify(solver)}`, async () => {
      // A ball dropped inside a 1 m rope, caught after 0.8 m of fall, swinging on it for the rest of the 5 s.
      const scene = pendulumScene({ type: 'rope', length: 1, restitution: 0.5 }, { position: [0.6, PIVOT[1], 0] });
      scene['solver'] = solver;
      const w = await worldFrom(scene);
      let worst = 0, caughtAt = -1, vIn = 0, vOut = 0;
      let prev = 0;
      await run(w, 500, (w) => {
        const r = arm(w), d = norm(r);
        worst = Math.max(worst, d - 1);
        const rad = dot(vel(w, 'ball'), scale(r, 1 / d));
        if (caughtAt < 0 && prev > 1 && rad < 0) {
          caughtAt = w.time;
          vIn = prev;
          vOut = -rad;
        }
        prev = rad;
      });
      expect(worst).toBeLessThan(1e-5);
      expect(caughtAt).toBeGreaterThan(0);
      // Back along the rope at half the speed it arrived with, less what a step of gravity adds (g dt cos = 0.08 m/s).
      expect(Math.abs(vOut / vIn - 0.5)).toBeLessThan(0.03);
    });
  }

  it('distance: two tumbling bodies keep their anchors 0.8 m apart and their momentum', async () => {
    // No gravity, no static body: anchors off the centres, so the joint's pull turns the bodies.
    const w = await worldFrom({
      format: FORMAT,
      dt: 0.01,
      gravity: [0, 0, 0],
      shapes: { box: { type: 'box', size: [0.4, 0.2, 0.3], sdf: { cells: 8 } } },
      bodies: [
        { name: 'a', shape: 'box', position: [0, 0, 0], velocity: [0, 0.5, 0.2], angularVelocity: [0, 0, 2] },
        { name: 'b', shape: 'box', position: [1, 0.2, 0], velocity: [0, -0.5, 0], angularVelocity: [1, 0, -1] },
      ],
      joints: [{ type: 'distance', bodyA: 'a', bodyB: 'b', anchorA: [0.2, 0, 0], anchorB: [-0.2, 0.1, 0], length: 0.8 }],
    });
    const gap = (w: World): number => norm(sub(worldPoint(w, 'a', [0.2, 0, 0]), worldPoint(w, 'b', [-0.2, 0.1, 0])));
    const momentum = (w: World): V3 => {
      const m = (n: string): number => 1 / w.bodies.invMass[w.bodies.names.indexOf(n)]!;
      const va = vel(w, 'a'), vb = vel(w, 'b');
      return [m('a') * va[0] + m('b') * vb[0], m('a') * va[1] + m('b') * vb[1], m('a') * va[2] + m('b') * vb[2]];
    };
    const p0 = momentum(w);
    let worst = 0;
    // The anchors start 0.67 m apart: the joint pulls it out to 0.8 in its first steps.
    await run(w, 5);
    await run(w, 995, (w) => (worst = Math.max(worst, Math.abs(gap(w) - 0.8))));
    // Measured: 1e-6 m.
    expect(worst).toBeLessThan(1e-5);
    expect(norm(sub(momentum(w), p0))).toBeLessThan(1e-9);
  });
});
