/**
 * Pendulums and chains (seed fig. 34-35): ball joints hold a swinging chain
 * together, the joints add no energy, every locked DOF stays locked, and the
 * joint iteration count matters the way the seed shows.
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, builtinWorld, run, worldFrom } from '../dynamics/helpers.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';
import type { World } from '../../src/dynamics/world.ts';
import { norm, sub, totalEnergy, worldPoint, type V3 } from './geometry.ts';

/** Largest anchor gap over the chain's joints (measured from the bodies, in the scene's anchor frames). */
function chainGap(w: World, links: number): number {
  let worst = norm(sub(worldPoint(w, 'pivot', [0, 0, 0]), worldPoint(w, 'link0', [-0.2, 0, 0])));
  for (let i = 1; i < links; i++) {
    worst = Math.max(worst, norm(sub(worldPoint(w, `link${i - 1}`, [0.2, 0, 0]), worldPoint(w, `link${i}`, [-0.2, 0, 0]))));
  }
  return worst;
}

describe('chain of ball joints', () => {
  it('a 5-link chain swinging from horizontal keeps every anchor gap under 1e-3 m for 5 s, but at the whip and while its links strike each other', async () => {
    const w = await builtinWorld('chain', { links: 5 });
    let worst = 0, whip = 0, fastest = 0, struck = 0, strikes = 0;
    let lowest = Infinity;
    await run(w, 500, (ww) => {
      // The fastest link's turn in this step: the position pre-stabilisation
      // predicts to first order, so past ~0.2 rad per step (the end link
      // whips at over 40 rad/s) the chord error is millimetres.
      let turn = 0;
      for (let i = 2; i < ww.bodies.count; i++) {
        turn = Math.max(turn, ww.dt * Math.hypot(ww.bodies.angVel[3 * i]!, ww.bodies.angVel[3 * i + 1]!, ww.bodies.angVel[3 * i + 2]!));
      }
      fastest = Math.max(fastest, turn);
      const gap = chainGap(ww, 5);
      // Links that are not neighbours collide: while one is pressed against
      // another (a whip folds the chain onto itself, here for up to 25 steps
      // at a time), contacts and joints share the links' motion.
      if (ww.profile.contacts > 0) {
        struck = Math.max(struck, gap);
        strikes++;
      } else if (turn < 0.2) worst = Math.max(worst, gap);
      else whip = Math.max(whip, gap);
      lowest = Math.min(lowest, ww.bodies.pos[3 * (ww.bodies.count - 1) + 1]!);
    });
    expect(worst).toBeLessThan(1e-3);
    expect(fastest).toBeGreaterThan(0.3); // it does whip
    expect(whip).toBeLessThan(5e-3);
    expect(strikes).toBeGreaterThan(0); // and it does fold onto itself
    expect(struck).toBeLessThan(5e-3);
    // It really swung: the last link fell well below the pivot (at y = 3).
    expect(lowest).toBeLessThan(2);
  });

  it('without position pre-stabilisation the joints are closed after the position step and pull the links into the floor (seed fig. 24); with it they are not', async () => {
    // The pivot 0.3 m above the floor: the chain swings down onto it and
    // sweeps along it. Pre-stabilisation closes each joint's gap in the
    // velocities the contact passes then see; closed after the position
    // step, a joint drags its links wherever its anchors meet, contacts
    // already resolved: into the floor.
    const run5 = async (prestabilization: number) => {
      const w = await builtinWorld('chain', { links: 5, prestabilization, height: 0.3 });
      let gap = 0, lowest = Infinity;
      await run(w, 300, (ww) => {
        gap = Math.max(gap, chainGap(ww, 5));
        for (let i = 0; i < 5; i++) {
          for (const x of [-0.18, 0.18]) for (const y of [-0.05, 0.05]) for (const z of [-0.05, 0.05]) lowest = Math.min(lowest, worldPoint(ww, `link${i}`, [x, y, z])[1]);
        }
      });
      return { gap, overlap: -lowest };
    };
    const pre = await run5(1);
    const post = await run5(0);
    // Both keep the joints closed at the end of every step...
    expect(pre.gap).toBeLessThan(1e-3);
    expect(post.gap).toBeLessThan(1e-3);
    // ...but closed afterwards, the links end steps millimetres inside the
    // floor (8 mm measured, against 1 mm for a corner landing with it on).
    expect(pre.overlap).toBeLessThan(2e-3);
    expect(post.overlap).toBeGreaterThan(5e-3);
    expect(post.overlap).toBeGreaterThan(4 * pre.overlap);
  });

  it('the chain hanging clear of the floor keeps its joints closed without pre-stabilisation too (closed after the position step)', async () => {
    const w = await builtinWorld('chain', { links: 5, prestabilization: 0 });
    let worst = 0;
    await run(w, 200, (ww) => {
      worst = Math.max(worst, chainGap(ww, 5));
    });
    expect(worst).toBeLessThan(2e-3);
  });

  it('a frictionless pendulum does not gain energy over 10 s', async () => {
    // One box on a ball joint, released 60 degrees from the vertical.
    const L = 0.5;
    const a = Math.PI / 3;
    const w = await worldFrom({
      format: FORMAT,
      dt: 0.01,
      shapes: { bob: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } }, pin: { type: 'box', size: [0.05, 0.05, 0.05], sdf: { cells: 8 } } },
      bodies: [
        { name: 'pin', shape: 'pin', static: true, position: [0, 2, 0], friction: 0 },
        { name: 'bob', shape: 'bob', position: [L * Math.sin(a), 2 - L * Math.cos(a), 0], friction: 0 },
      ],
      joints: [{ type: 'ball', bodyA: 'pin', bodyB: 'bob', anchorA: [0, 0, 0], anchorB: [-L * Math.sin(a), L * Math.cos(a), 0] }],
    });
    const e0 = totalEnergy(w);
    // Energy scale: the swing's drop from release to the bottom, m g L (1 - cos a).
    const swing = w.bodies.mass[1]! * 9.81 * L * (1 - Math.cos(a));
    // Semi-implicit Euler makes the measured energy oscillate by O(dt) around
    // its true value (here about 2 % of the swing); what must not happen is a
    // trend. Compare the top of the oscillation in the first and last second.
    let firstTop = -Infinity, lastTop = -Infinity, deviation = 0;
    await run(w, 1000, (ww) => {
      const e = totalEnergy(ww) - e0;
      if (ww.stepCount <= 100) firstTop = Math.max(firstTop, e);
      if (ww.stepCount > 900) lastTop = Math.max(lastTop, e);
      deviation = Math.max(deviation, Math.abs(e));
    });
    expect(lastTop).toBeLessThan(firstTop + 1e-3 * swing);
    // ... and it neither gains nor loses more than the oscillation's size.
    expect(deviation).toBeLessThan(0.03 * swing);
  });
});

describe('physical pendulum', () => {
  /** Complete elliptic integral of the first kind K(k), by the arithmetic-geometric mean. */
  function ellipticK(k: number): number {
    let a = 1, b = Math.sqrt(1 - k * k);
    for (let i = 0; i < 30; i++) [a, b] = [(a + b) / 2, Math.sqrt(a * b)];
    return Math.PI / (2 * a);
  }
  const cases = [
    { joint: 'ball', degrees: 5 },
    { joint: 'ball', degrees: 90 },
    { joint: 'hinge', degrees: 45 },
  ];
  for (const c of cases) {
    it(`a ${c.joint} joint swings a box from ${c.degrees} degrees with the period 4 sqrt(I_p / (m g L)) K(sin(a/2)) within 0.1 %`, async () => {
      // A 0.2 m cube whose centre hangs L = 0.5 m below the pivot: I_p = m (L^2 + s^2 / 6).
      const L = 0.5, s = 0.2, a = (c.degrees * Math.PI) / 180;
      const w = await worldFrom({
        format: FORMAT,
        dt: 0.01,
        gravity: [0, -9.81, 0],
        shapes: { bob: { type: 'box', size: [s, s, s], sdf: { cells: 8 } }, pin: { type: 'box', size: [0.05, 0.05, 0.05], sdf: { cells: 8 } } },
        bodies: [
          { name: 'pin', shape: 'pin', static: true, position: [0, 2, 0], friction: 0 },
          { name: 'bob', shape: 'bob', position: [L * Math.sin(a), 2 - L * Math.cos(a), 0], friction: 0 },
        ],
        joints: [{
          type: c.joint, bodyA: 'pin', bodyB: 'bob', anchorA: [0, 0, 0], anchorB: [-L * Math.sin(a), L * Math.cos(a), 0],
          ...(c.joint === 'hinge' ? { axisA: [0, 0, 1], axisB: [0, 0, 1] } : {}),
        }],
      });
      // Times the bob's centre crosses the vertical, interpolated within the step.
      const crossings: number[] = [];
      let x0 = w.bodies.pos[3]!;
      let highest = -Infinity;
      await run(w, 1000, (ww) => {
        const x = ww.bodies.pos[3]!;
        if ((x0 > 0 && x <= 0) || (x0 < 0 && x >= 0)) crossings.push(ww.time - (ww.dt * x) / (x - x0));
        if (ww.time > 9) highest = Math.max(highest, ww.bodies.pos[4]!);
        x0 = x;
      });
      const T = 4 * Math.sqrt((L * L + (s * s) / 6) / (9.81 * L)) * ellipticK(Math.sin(a / 2));
      expect(crossings.length).toBeGreaterThan(10);
      const periods = crossings.slice(2).map((t, i) => t - crossings[i]!);
      for (const p of periods) expect(Math.abs(p / T - 1)).toBeLessThan(1e-3);
      // Frictionless: after 10 s it still reaches its release height (within 1 % of the drop).
      const drop = L * (1 - Math.cos(a));
      expect(Math.abs(highest - (2 - L * Math.cos(a)))).toBeLessThan(0.01 * drop + 1e-4);
    });
  }
});

describe('chain with every DOF locked (ball + lockRotation)', () => {
  async function worstErrors(iterations: number): Promise<{ linear: number; angular: number }> {
    const w = await builtinWorld('chain-locked', { links: 5, jointIterations: iterations });
    const J = jointsOf(w)!;
    let linear = 0, angular = 0;
    await run(w, 150, (ww) => {
      const e = J.errors(ww);
      linear = Math.max(linear, ...e.linear);
      angular = Math.max(angular, ...e.angular);
    });
    return { linear, angular };
  }

  // Shared by the two tests below (a run takes a while).
  let tenRun: Promise<{ linear: number; angular: number }> | null = null;
  const ten = () => (tenRun ??= worstErrors(10));

  it('with 10 joint iterations the links stay locked to 1e-4 m and 1e-3 rad', async () => {
    const e = await ten();
    expect(e.linear).toBeLessThan(1e-4);
    expect(e.angular).toBeLessThan(1e-3);
  });

  it('with 1 joint iteration the error is an order of magnitude larger (seed fig. 35)', async () => {
    const many = await ten();
    const one = await worstErrors(1);
    expect(one.linear).toBeGreaterThan(10 * many.linear);
    expect(one.angular).toBeGreaterThan(10 * many.angular);
  });
});

describe('joints without contacts', () => {
  it('a pendulum in the air gets its position pass every step (no drift of the joint)', async () => {
    // Contact iterations run even without a single contact; with joints and no
    // pairs the world still calls the position pass.
    const w = await builtinWorld('chain', { links: 1 });
    let worst = 0;
    await run(w, 300, (ww) => {
      worst = Math.max(worst, chainGap(ww, 1));
    });
    expect(worst).toBeLessThan(1e-5);
    const p: V3 = [w.bodies.pos[3 * 2]!, w.bodies.pos[3 * 2 + 1]!, w.bodies.pos[3 * 2 + 2]!];
    expect(norm(sub(p, [0, 3, 0]))).toBeCloseTo(0.2, 4);
  });
});
