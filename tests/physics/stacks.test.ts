/**
 * Stacks (issue "Physics a physicist would sign", item 5): perfectly aligned
 * towers with static friction 0.5 stand still, neither creeping sideways nor
 * sinking, and mass ratios of 100:1 either way stay put. Sleeping is off, so
 * the solver itself must hold them for the whole time. On both backends.
 */
import { describe, expect, it } from 'vitest';
import type { World } from '../../src/dynamics/world.ts';
import { pos, queryWorld, run } from '../dynamics/helpers.ts';
import { massRatioStack, tower } from './scenes.ts';

/**
 * Largest horizontal drift of any box from its start, and the top box's sink
 * below its ideal height (each box exactly on the one below) once the boxes
 * have closed their 1 mm starting gaps (after the first second), over `seconds`.
 */
async function standFor(w: World, n: number, size: number, seconds: number): Promise<{ drift: number; sink: number }> {
  const start = Array.from({ length: n }, (_, i) => pos(w, `box${i}`));
  let drift = 0, sink = 0;
  await run(w, Math.round(seconds / w.dt), (ww) => {
    for (let i = 0; i < n; i++) {
      const p = pos(ww, `box${i}`);
      drift = Math.max(drift, Math.hypot(p[0] - start[i]![0], p[2] - start[i]![2]));
    }
    if (ww.time > 1) sink = Math.max(sink, (n - 0.5) * size - pos(ww, `box${n - 1}`)[1]);
  });
  return { drift, sink };
}

describe.each(['cpu', 'gpu'] as const)('stacks (%s)', (backend) => {
  it.each([
    [20, 1, 1 / 60],
    [40, 1, 1 / 60],
    [20, 0.5, 0.01],
    [40, 0.5, 0.01],
  ])('a tower of %d boxes of %d m at dt %f stands 30 s: drift < 1 cm, sink < 1 cm', async (n, size, dt) => {
    const w = await queryWorld(tower(n, size, dt, 0.001, { sleep: false }), backend);
    const { drift, sink } = await standFor(w, n, size, 30);
    expect(drift).toBeLessThan(0.01);
    expect(sink).toBeLessThan(0.01);
  }, 240_000);

  it.each([
    ['heavy on light', 1, 100],
    ['light on heavy', 100, 1],
  ])('a 100:1 stack, %s, stays within 5 mm for 10 s', async (_, bottom, top) => {
    const w = await queryWorld(massRatioStack(bottom, top), backend);
    const p0 = pos(w, 'top');
    let drift = 0;
    await run(w, 1000, (ww) => {
      const p = pos(ww, 'top');
      drift = Math.max(drift, Math.hypot(p[0] - p0[0], p[1] - p0[1], p[2] - p0[2]));
    });
    expect(drift).toBeLessThan(0.005);
  });
});
