/**
 * Scale (issue "Hardening and packaging", item 9): the solver's tolerances
 * are relative to body size (cells of the shapes' grids, the shapes' radii),
 * so the same scene scaled by 1e-3 or 1e2 (lengths, and with them gravity,
 * so that time and the dimensionless motion per step g dt^2 / L are the same)
 * behaves the same: a tower of ten cubes stands 10 s, undisturbed, at every
 * scale, and the three runs agree in body lengths.
 */
import { describe, expect, it } from 'vitest';
import { pos, queryWorld, run } from '../dynamics/helpers.ts';

function scaledTower(s: number, n: number) {
  const bodies: Record<string, unknown>[] = [{ name: 'ground', shape: 'floor', static: true, friction: 0.5, restitution: 0 }];
  for (let i = 0; i < n; i++) bodies.push({ name: `box${i}`, shape: 'box', position: [0, s * (0.5 + i * 1.001), 0], friction: 0.5, restitution: 0 });
  return {
    format: 'stackfield-scene/1', dt: 1 / 60, sleep: false, gravity: [0, -9.81 * s, 0],
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [s, s, s], sdf: { cells: 24 } } },
    bodies,
  };
}

describe('scale', () => {
  it('a tower of 10 cubes of 1 mm, 1 m and 100 m stands 10 s and ends the same, in units of its size', async () => {
    const ends: number[][] = [];
    for (const s of [1e-3, 1, 100]) {
      const w = await queryWorld(scaledTower(s, 10), 'cpu');
      let spin = 0;
      await run(w, 600, (ww) => {
        for (let i = 3; i < 3 * ww.bodies.count; i++) spin = Math.max(spin, Math.abs(ww.bodies.angVel[i]!));
      });
      expect(spin, `scale ${s}`).toBeLessThan(1e-3);
      const state: number[] = [];
      for (let i = 0; i < 10; i++) state.push(...pos(w, `box${i}`).map((x) => x / s));
      ends.push(state);
      // Standing: each box on the one below, the top at 9.5 sizes.
      expect(Math.abs(pos(w, 'box9')[1] / s - 9.5), `scale ${s}`).toBeLessThan(2e-3);
    }
    for (let k = 0; k < ends[0]!.length; k++) {
      expect(Math.abs(ends[0]![k]! - ends[1]![k]!)).toBeLessThan(1e-6);
      expect(Math.abs(ends[2]![k]! - ends[1]![k]!)).toBeLessThan(1e-6);
    }
  });
});
