import { describe, expect, it } from 'vitest';
import { builtinWorld, run } from '../dynamics/helpers.ts';

describe('joint anchors for drawing', () => {
  it('a 5-link chain gives two segments per ball joint, from each body centre to an anchor, the anchors of a joint meeting', async () => {
    const w = await builtinWorld('chain', { links: 5 });
    await run(w, 50);
    const seg = w.constraints!.anchorSegments!();
    const joints = (w.constraints as unknown as { joints: { type: string }[] }).joints.filter((j) => j.type === 'ball').length;
    expect(joints).toBeGreaterThan(0);
    expect(seg.length).toBe(12 * joints);
    const B = w.bodies;
    for (let j = 0; j < joints; j++) {
      const o = 12 * j;
      // Each segment starts at a body's centre of mass.
      for (const s of [o, o + 6]) {
        let best = Infinity;
        for (let i = 0; i < B.count; i++) best = Math.min(best, Math.hypot(seg[s]! - B.pos[3 * i]!, seg[s + 1]! - B.pos[3 * i + 1]!, seg[s + 2]! - B.pos[3 * i + 2]!));
        expect(best).toBeLessThan(1e-12);
      }
      // The joint is closed: A's anchor and B's anchor coincide.
      expect(Math.hypot(seg[o + 3]! - seg[o + 9]!, seg[o + 4]! - seg[o + 10]!, seg[o + 5]! - seg[o + 11]!)).toBeLessThan(1e-3);
    }
  });
});
