/**
 * Resting contact: a body dropped onto a support comes to rest on it, not
 * above it. The seed's contact rule stops an approach wherever the predicted
 * pose first penetrates, which leaves a body anywhere up to |g| dt^2 above
 * its support (at 60 Hz 2.7 mm: a 1 cm die came to rest 1.8 mm up, 18 % of
 * its edge, and slept there); the position pass closes a stopped pair's gap
 * down to a twentieth of a cell (SequentialSolver.closeGap). So the rest
 * height is exact to about 1e-3 of the body's size at every size, on the
 * plane and on another body's field, on both backends.
 */
import { describe, expect, it } from 'vitest';
import type { BackendKind } from '../../src/collision/query.ts';
import { pos, queryWorld, run } from '../dynamics/helpers.ts';

/** A cube or ball of size `a` dropped from one size up onto the plane or a static slab, at 60 Hz. */
function drop(a: number, shape: 'box' | 'ball', onto: 'plane' | 'slab') {
  const support = onto === 'plane'
    ? { name: 'ground', shape: 'floor', static: true }
    : { name: 'ground', shape: 'slab', static: true, position: [0, -a / 2, 0] };
  return {
    format: 'stackfield-scene/1', dt: 1 / 60,
    shapes: {
      floor: { type: 'plane', normal: [0, 1, 0] },
      slab: { type: 'box', size: [20 * a, a, 20 * a] },
      box: { type: 'box', size: [a, a, a] },
      ball: { type: 'sphere', radius: a / 2 },
    },
    bodies: [support, { name: 'body', shape, position: [0, 1.5 * a, 0], restitution: 0 }],
  };
}

async function restGap(a: number, shape: 'box' | 'ball', onto: 'plane' | 'slab', backend: BackendKind): Promise<number> {
  const w = await queryWorld(drop(a, shape, onto), backend);
  await run(w, 120);
  return (pos(w, 'body')[1] - a / 2) / a;
}

describe('resting contact', () => {
  for (const backend of ['cpu', 'gpu'] as const) {
    it(`${backend}: cubes of 1 cm, 5 cm and 1 m dropped onto the plane and onto a slab rest within 2e-3 of their edge above it`, async () => {
      for (const onto of ['plane', 'slab'] as const) {
        for (const a of [0.01, 0.05, 1]) {
          const gap = await restGap(a, 'box', onto, backend);
          expect(gap, `${a} m cube on the ${onto}`).toBeGreaterThan(-2e-3);
          expect(gap, `${a} m cube on the ${onto}`).toBeLessThan(2e-3);
        }
      }
    });
  }

  it('cpu: a 1 cm ball dropped onto a slab rests on it (it stopped 1.8 mm up before the gap was closed)', async () => {
    const gap = await restGap(0.01, 'ball', 'slab', 'cpu');
    expect(Math.abs(gap)).toBeLessThan(2e-3);
  });
});
