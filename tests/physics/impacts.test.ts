/**
 * Impacts (issue "Physics a physicist would sign", items 4 and 6): equal boxes
 * face on face exchange their velocities at restitution 1 (ties among equally
 * deep samples are broken symmetrically, the same on both backends), and a
 * fast small box never tunnels through a thin slab, whatever the phase of
 * its last step before the slab.
 */
import { describe, expect, it } from 'vitest';
import { pos, queryWorld as worldFrom, run, vel } from '../dynamics/helpers.ts';
import { boxPair, bullet } from './scenes.ts';

describe.each(['cpu', 'gpu'] as const)('impacts (%s)', (backend) => {
  it('two equal boxes face on face at restitution 1 exchange their velocities within 1 %', async () => {
    const w = await worldFrom(boxPair(2, 1), backend);
    await run(w, 40);
    expect(Math.abs(vel(w, 'a')[0])).toBeLessThan(0.02);
    expect(Math.abs(vel(w, 'b')[0] - 2) / 2).toBeLessThan(0.01);
    // No spin from an off-centre impulse, no sideways drift.
    expect(Math.hypot(...w.bodies.angVel.subarray(0, 6))).toBeLessThan(1e-6);
    expect(Math.abs(vel(w, 'b')[1]) + Math.abs(vel(w, 'b')[2])).toBeLessThan(1e-6);
  });

  it.each([8, 20, 50])('a 5 cm box at %d m/s never passes a 2 cm slab, at every start phase', async (v) => {
    for (const phase of [0, 0.25, 0.5, 0.75]) {
      const w = await worldFrom(bullet(v, phase), backend);
      let lowest = Infinity;
      await run(w, 60, (ww) => {
        lowest = Math.min(lowest, pos(ww, 'box')[1]);
      });
      // Its centre never gets below the slab's top face (y = 0) by more than its half size.
      expect(lowest, `phase ${phase}`).toBeGreaterThan(-0.025);
      expect(pos(w, 'box')[1], `phase ${phase}`).toBeGreaterThan(0);
    }
  });
});
