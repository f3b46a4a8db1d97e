import { describe, expect, it } from 'vitest';
import { buildSamples, sampleCount } from '../../src/geometry/samples.ts';
import { boxMesh } from '../../src/geometry/shapes.ts';

describe('buildSamples on a box', () => {
  const box = boxMesh([1, 2, 3]);
  const s = buildSamples(box, 3);

  it('has 8 vertices and 18 unique edges (12 sides + 6 face diagonals) with 3 samples each', () => {
    expect(s.vertexCount).toBe(8);
    expect(s.edgeCount).toBe(18);
    expect(sampleCount(s)).toBe(8 + 18 * 3);
    expect(s.points.length).toBe((8 + 18 * 3) * 4);
    const keys = new Set<number>();
    for (let e = 0; e < 18; e++) keys.add(Math.min(s.edges[2 * e]!, s.edges[2 * e + 1]!) * 8 + Math.max(s.edges[2 * e]!, s.edges[2 * e + 1]!));
    expect(keys.size).toBe(18);
    // every edge is an edge of some triangle
    const tri = new Set<number>();
    for (let t = 0; t < 36; t += 3) {
      for (let k = 0; k < 3; k++) {
        const a = box.indices[t + k]!, b = box.indices[t + ((k + 1) % 3)]!;
        tri.add(Math.min(a, b) * 8 + Math.max(a, b));
      }
    }
    expect([...keys].every((k) => tri.has(k))).toBe(true);
  });

  it('starts with the vertices themselves', () => {
    for (let v = 0; v < 8; v++) {
      for (let k = 0; k < 3; k++) expect(s.points[v * 4 + k]).toBe(box.positions[v * 3 + k]);
      expect(s.points[v * 4 + 3]).toBe(0);
    }
  });

  it('places the samples of each edge on it at 1/4, 1/2 and 3/4', () => {
    const p = box.positions;
    for (let e = 0; e < 18; e++) {
      const a = s.edges[2 * e]! * 3, b = s.edges[2 * e + 1]! * 3;
      for (let j = 0; j < 3; j++) {
        const o = (8 + e * 3 + j) * 4;
        const t = (j + 1) / 4;
        for (let k = 0; k < 3; k++) {
          expect(Math.abs(s.points[o + k]! - (p[a + k]! + t * (p[b + k]! - p[a + k]!)))).toBeLessThan(1e-6);
        }
        // on the segment: distance to it is zero up to float32 rounding
        const d = [0, 1, 2].map((k) => s.points[o + k]! - p[a + k]!);
        const u = [0, 1, 2].map((k) => p[b + k]! - p[a + k]!);
        const uu = u[0]! ** 2 + u[1]! ** 2 + u[2]! ** 2;
        const tt = (d[0]! * u[0]! + d[1]! * u[1]! + d[2]! * u[2]!) / uu;
        expect(tt).toBeGreaterThan(0);
        expect(tt).toBeLessThan(1);
        const dist = Math.hypot(d[0]! - tt * u[0]!, d[1]! - tt * u[1]!, d[2]! - tt * u[2]!);
        expect(dist).toBeLessThan(1e-6);
      }
    }
  });
});
