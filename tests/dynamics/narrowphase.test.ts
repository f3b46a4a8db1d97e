/**
 * The narrow phase's bookkeeping between passes (narrowphase.ts beginPass):
 * a pair whose bodies barely moved since its points were made keeps them.
 * That must hold for a pair with no points at all (boxes whose world boxes
 * overlap while their faces are far apart), which once read its last pose
 * from whatever pair was evaluated before it and so was evaluated again on
 * every pass.
 */
import { describe, expect, it } from 'vitest';
import { NarrowPhase } from '../../src/dynamics/narrowphase.ts';
import type { PairList } from '../../src/dynamics/pairs.ts';
import { FORMAT, bodyIndex, queryWorld, run } from './helpers.ts';

/** Two boxes turned 45 degrees about y on a mesh slab: their world boxes overlap, their faces are 35 cm apart. */
const scene = {
  format: FORMAT,
  dt: 0.01,
  sleep: false,
  shapes: {
    slab: { type: 'box', size: [6, 0.4, 6], sdf: { cells: 48 } },
    box: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 16 } },
  },
  bodies: [
    { name: 'slab', shape: 'slab', static: true, position: [0, -0.2, 0] },
    { name: 'p', shape: 'box', position: [0, 0.25, 0], rotation: { axis: [0, 1, 0], degrees: 45 }, friction: 0.6, restitution: 0 },
    { name: 'q', shape: 'box', position: [0.6, 0.25, 0.6], rotation: { axis: [0, 1, 0], degrees: 45 }, friction: 0.6, restitution: 0 },
  ],
};

describe('narrow phase between passes', () => {
  it('a pair with no points is evaluated once per phase while its bodies rest', async () => {
    const w = await queryWorld(scene, 'cpu');
    const p = bodyIndex(w, 'p'), q = bodyIndex(w, 'q');
    await run(w, 60);
    const proto = NarrowPhase.prototype as unknown as { evaluatePair(ctx: unknown, pairs: PairList, k: number): void };
    let empty = 0, resting = 0, steps = 0;
    // Count the pair evaluations of the next 20 steps, then call through.
    const real = proto.evaluatePair;
    proto.evaluatePair = function (this: unknown, ctx, pairs, k) {
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if ((a === p && b === q) || (a === q && b === p)) empty++;
      else resting++;
      real.call(this, ctx, pairs, k);
    };
    try {
      await run(w, 20, () => steps++);
    } finally {
      proto.evaluatePair = real;
    }
    // The boxes' pair is in the list (else this test shows nothing)...
    expect(empty).toBeGreaterThan(0);
    // ... and evaluated at the start of each of the two phases only, while
    // the boxes' pairs with the slab, which the passes' impulses keep
    // touching, are evaluated more often than that.
    expect(empty).toBeLessThanOrEqual(2 * steps);
    expect(resting).toBeGreaterThan(4 * steps);
  });
});
