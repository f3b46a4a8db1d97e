import { describe, expect, it } from 'vitest';
import { builtinWorld, run } from '../dynamics/helpers.ts';
import { createBackend } from '../../src/backends.ts';
import { createWorld } from '../../src/scene/build.ts';
import { validateScene } from '../../src/scene/validate.ts';

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

describe('joints that start open', () => {
  /** A rod hanging from a static block by a ball joint; `gap` moves the block's anchor away. */
  const pendulum = (gap: number): unknown => ({
    format: 'stackfield-scene/1',
    shapes: { anchor: { type: 'box', size: [0.1, 0.1, 0.1] }, rod: { type: 'box', size: [0.1, 1, 0.1] } },
    bodies: [
      { name: 'pivot', shape: 'anchor', static: true, position: [0, 2, 0] },
      { name: 'rod', shape: 'rod', position: [0, 1.5, 0] },
    ],
    joints: [{ name: 'hang', type: 'ball', bodyA: 'pivot', bodyB: 'rod', anchorA: [gap, 0, 0], anchorB: [0, 0.5, 0] }],
  });
  const warnings = async (json: unknown): Promise<string[]> => {
    const out: string[] = [];
    const b = await createBackend('cpu');
    await createWorld(validateScene(json, 's.json'), b.query, { readText: async () => '', warn: (m) => out.push(m) });
    return out;
  };

  it('a joint whose anchors start apart is named in a warning with the gap; one that starts closed is not', async () => {
    // The joint would snap the anchors together in its first steps (a
    // pendulum swung in with 50 J it never had).
    expect(await warnings(pendulum(1))).toEqual([
      's.json: joints[0] ("hang"): its anchors are 1 m apart at the start; the joint closes that in its first steps, ' +
        'with the impulse it takes; place the bodies so the anchors meet',
    ]);
    expect(await warnings(pendulum(0))).toEqual([]);
  });

  it('many open joints: ten named, the rest counted', async () => {
    const json = pendulum(1) as { joints: Record<string, unknown>[] };
    json.joints = Array.from({ length: 25 }, (_, k) => ({ ...json.joints[0]!, name: `hang${k}` }));
    const out = await warnings(json);
    expect(out).toHaveLength(11);
    expect(out[9]).toContain('joints[9] ("hang9"): its anchors are 1 m apart');
    expect(out[10]).toBe('s.json: 15 more joints start open');
  });
});
