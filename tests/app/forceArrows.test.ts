/**
 * The forces view (src/app/overlays.ts pushForceArrows): the last step's
 * external forces (World.forces.arrows) drawn as arrows from the point each
 * acts at, the largest 4 contact-normal lengths long.
 */
import { describe, expect, it } from 'vitest';
import { OverlayGeometry, contactNormalLength } from '../../src/app/overlays.ts';
import { defaultViews, setView } from '../../src/app/views.ts';
import { FORMAT, run, worldFrom } from '../dynamics/helpers.ts';

describe('force arrows', () => {
  it('draw a point force at its point and drag at the centre, in proportion, only with the forces view on', async () => {
    const w = await worldFrom({
      format: FORMAT, gravity: [0, 0, 0],
      shapes: { box: { type: 'box', size: [1, 1, 1], sdf: { cells: 8 } } },
      bodies: [
        { name: 'a', shape: 'box', mass: 1 },
        { name: 'b', shape: 'box', position: [3, 0, 0], mass: 1, drag: { linear: 2 } },
      ],
      forces: [
        { type: 'force', body: 'a', force: [0, 10, 0], point: [0.5, 0, 0] },
        { type: 'wind', velocity: [1, 0, 0] },
      ],
    });
    await run(w, 1);
    const F = w.forces;
    expect(F.arrowCount).toBe(2);
    // The point force at the body's point x + R p (the box has turned by a step's rotation).
    const a = F.arrows;
    expect(Math.hypot(a[0]! - 0.5, a[1]!, a[2]!)).toBeLessThan(1e-3);
    expect([a[3], a[4], a[5]]).toEqual([0, 10, 0]);
    // The drag on b at its start (at rest in a 1 m/s wind): the step's mean force, k (1 - e^-k dt) / (k dt).
    expect([a[6], a[7], a[8]]).toEqual([3, 0, 0]);
    expect(a[9]).toBeCloseTo((2 * (1 - Math.exp(-0.02))) / 0.02, 12);

    const g = new OverlayGeometry();
    g.build(w, defaultViews(), 0.1);
    expect(g.lines.count).toBe(0);
    g.build(w, setView(defaultViews(), 'forces', true), 0.1);
    // Shaft and two head strokes per arrow.
    expect(g.lines.count).toBe(12);
    const v = g.lines.f32;
    // The largest (10 N) is 0.4 m long; the drag (~2 N) in proportion.
    expect(Math.hypot(v[4]! - v[0]!, v[5]! - v[1]!, v[6]! - v[2]!)).toBeCloseTo(0.4, 5);
    const o = 6 * 4;
    expect(v[o + 4]! - v[o]!).toBeCloseTo((0.4 * a[9]!) / 10, 5);
    expect(contactNormalLength(w)).toBeGreaterThan(0);
  });
});
