/**
 * Joints inside the contact solver (docs/ALGORITHM.md 6, hybrid step): joints are
 * position-stabilised per contact-graph level, including levels that have no
 * contacts of their own, and jointed loops stay closed when they land on pegs
 * (seed fig. 37).
 */
import { describe, expect, it } from 'vitest';
import { FORMAT, builtinWorld, pos, run, worldFrom } from '../dynamics/helpers.ts';
import { jointsOf } from '../../src/dynamics/joints/system.ts';

describe('joints in the hybrid step', () => {
  it('a cantilever at contact level 0 holds a box at level 1 (its level has no contacts of its own)', async () => {
    // The plank touches nothing but the box: the only contact pair is at
    // level 1, and the plank's fixed joint (level 0) must still get its pass.
    const w = await worldFrom({
      format: FORMAT,
      dt: 0.01,
      sleep: false, // the levels are checked at the end
      shapes: {
        post: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } },
        plank: { type: 'box', size: [1, 0.06, 0.4], sdf: { cells: 24 } },
        box: { type: 'box', size: [0.2, 0.2, 0.2], sdf: { cells: 8 } },
      },
      bodies: [
        { name: 'post', shape: 'post', static: true, position: [0, 1, 0] },
        { name: 'plank', shape: 'plank', position: [0.6, 1, 0], density: 300 },
        { name: 'box', shape: 'box', position: [0.8, 1.129, 0], density: 500, friction: 0.8, restitution: 0 },
      ],
      joints: [{ type: 'fixed', bodyA: 'post', bodyB: 'plank', anchorA: [0.1, 0, 0], anchorB: [-0.5, 0, 0] }],
    });
    const J = jointsOf(w)!;
    let linear = 0, angular = 0;
    await run(w, 200, (ww) => {
      const e = J.errors(ww);
      linear = Math.max(linear, e.linear[0]!);
      angular = Math.max(angular, e.angular[0]!);
    });
    expect(w.level[2]).toBe(1);
    expect(w.level[1]).toBe(0);
    expect(linear).toBeLessThan(1e-4);
    expect(angular).toBeLessThan(1e-4);
    // The box is still on the plank, which has not sagged.
    expect(pos(w, 'box')[1]).toBeGreaterThan(1.12);
    expect(Math.abs(pos(w, 'plank')[1] - 1)).toBeLessThan(1e-3);
  });

  it('a closed loop of 6 rings joined by ball joints falling onto pegs keeps every joint closed', async () => {
    const w = await builtinWorld('jointed-rings', { count: 6 });
    const J = jointsOf(w)!;
    expect(J.joints.length).toBe(6);
    let worst = 0;
    await run(w, 150, (ww) => {
      worst = Math.max(worst, ...J.errors(ww).linear);
    });
    expect(worst).toBeLessThan(3e-3);
    // It landed (the rings' centres near the ground) and is at rest.
    const B = w.bodies;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      expect(B.pos[3 * i + 1]!).toBeLessThan(0.2);
      expect(Math.hypot(B.vel[3 * i]!, B.vel[3 * i + 1]!, B.vel[3 * i + 2]!)).toBeLessThan(0.05);
    }
  });
});
