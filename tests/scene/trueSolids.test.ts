/**
 * The samples of the true solids (src/scene/trueSolids.ts), as the world
 * builds them: every sample on the solid's surface with the surface's
 * normal, a cylinder's caps flat, its rims creases, its side smooth.
 */
import { describe, expect, it } from 'vitest';
import { queryWorld } from '../dynamics/helpers.ts';
import type { RigidShape } from '../../src/dynamics/shape.ts';

async function shapeOf(shape: Record<string, unknown>): Promise<RigidShape> {
  const w = await queryWorld({ format: 'stackfield-scene/1', shapes: { s: shape }, bodies: [{ name: 'b', shape: 's' }] }, 'cpu');
  return w.shapes[0]!;
}

const trace = (m: Float32Array, i: number) => m[6 * i]! + m[6 * i + 3]! + m[6 * i + 5]!;

describe('true solids: where their samples lie', () => {
  it.each([3, 16, 48])('a cylinder of %i segments: cap samples on the cap with its normal, rim samples on the circle and creases, side samples on the side, normals radial and smooth', async (segments) => {
    // Its caps at y = +-0.01, which 32-bit sample coordinates read as
    // 0.009999999776: taken for the side, every cap sample went out onto the
    // rim circle with a sideways normal and the rims were not creases.
    const r = 0.1, a = 0.01;
    const s = await shapeOf({ type: 'cylinder', radius: r, height: 2 * a, segments });
    const q = s.samples.points, nrm = s.samples.normals!, cr = s.samples.creases!;
    const n = q.length / 4;
    let cap = 0, rim = 0, side = 0;
    for (let i = 0; i < n; i++) {
      const x = q[4 * i]!, y = q[4 * i + 1]!, z = q[4 * i + 2]!;
      const rho = Math.sqrt(x * x + z * z);
      const onCap = Math.abs(Math.abs(y) - a) < 1e-6;
      if (onCap && rho < r * (1 - 1e-6)) {
        cap++;
        expect(nrm[4 * i + 1]).toBe(Math.sign(y));
        expect(trace(cr, i)).toBe(0);
      } else if (onCap) {
        rim++;
        expect(Math.abs(rho - r)).toBeLessThan(1e-6);
        expect(Math.abs(nrm[4 * i + 1]!)).toBeCloseTo(Math.SQRT1_2, 6);
        expect(trace(cr, i)).toBeGreaterThan(0.5);
      } else {
        side++;
        expect(Math.abs(y)).toBeLessThan(a);
        expect(Math.abs(rho - r)).toBeLessThan(1e-6);
        expect(nrm[4 * i + 1]).toBe(0);
        expect(nrm[4 * i]! * x + nrm[4 * i + 2]! * z).toBeCloseTo(rho, 6);
        expect(trace(cr, i)).toBe(0);
      }
    }
    // The cap's centres and centroids; the rims' vertices and edge samples; the side's centroids and edge samples.
    expect(cap).toBeGreaterThanOrEqual(2 + 2 * segments);
    expect(rim).toBeGreaterThanOrEqual(4 * segments);
    expect(side).toBeGreaterThanOrEqual(2 * segments);
  });

  it('a sphere and a capsule: every sample on the surface, its normal along the radius from the centre (or the axis), no creases', async () => {
    for (const [shape, onAxis] of [[{ type: 'sphere', radius: 0.3, segments: [7, 5] }, 0], [{ type: 'capsule', radius: 0.2, height: 1, segments: [7, 3] }, 0.3]] as const) {
      const s = await shapeOf(shape);
      const q = s.samples.points, nrm = s.samples.normals!, cr = s.samples.creases!;
      const R = shape.radius;
      for (let i = 0; i < q.length / 4; i++) {
        const x = q[4 * i]!, z = q[4 * i + 2]!;
        const y = q[4 * i + 1]! - Math.max(-onAxis, Math.min(onAxis, q[4 * i + 1]!));
        const l = Math.sqrt(x * x + y * y + z * z);
        expect(Math.abs(l - R)).toBeLessThan(1e-6);
        expect(nrm[4 * i]! * x + nrm[4 * i + 1]! * y + nrm[4 * i + 2]! * z).toBeCloseTo(l, 6);
        expect(trace(cr, i)).toBe(0);
      }
    }
  });
});
