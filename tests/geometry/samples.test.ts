import { describe, expect, it } from 'vitest';
import { buildSamples, edgeSampleStart, sampleAreas, sampleCount } from '../../src/geometry/samples.ts';
import { boxMesh, sphereMesh } from '../../src/geometry/shapes.ts';

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

describe('buildSamples with an edge spacing', () => {
  // A ball of 48 x 36 facets: edges of 6-40 mm, half of them under 2.5 cm.
  const ball = sphereMesh(0.2, 48, 36);
  const dense = buildSamples(ball, 3);
  const spacing = 0.025;
  const s = buildSamples(ball, 3, Infinity, spacing);
  const p = ball.positions;
  const length = (e: number): number => {
    const a = 3 * s.edges[2 * e]!, b = 3 * s.edges[2 * e + 1]!;
    return Math.hypot(p[b]! - p[a]!, p[b + 1]! - p[a + 1]!, p[b + 2]! - p[a + 2]!);
  };

  it('gives each edge ceil(length / spacing) - 1 interior samples, at most edgeSamples', () => {
    let fewer = 0, none = 0;
    for (let e = 0; e < s.edgeCount; e++) {
      const k = edgeSampleStart(s, e + 1) - edgeSampleStart(s, e);
      expect(k).toBe(Math.min(3, Math.max(0, Math.ceil(length(e) / spacing) - 1)));
      // The samples of the edge, with its ends, lie at most the spacing apart (or as edgeSamples allow).
      expect(length(e) / (k + 1)).toBeLessThanOrEqual(k === 3 ? length(e) / 4 : spacing * (1 + 1e-12));
      if (k < 3) fewer++;
      if (k === 0) none++;
    }
    // The case it is for: most edges of the dense ball carry fewer samples, some none.
    expect(fewer).toBeGreaterThan(s.edgeCount / 2);
    expect(none).toBeGreaterThan(0);
    expect(sampleCount(s)).toBe(s.vertexCount + s.edgeStart![s.edgeCount]!);
    expect(s.points.length).toBe(4 * sampleCount(s));
    expect(sampleCount(s)).toBeLessThan(0.7 * sampleCount(dense));
  });

  it('keeps the vertices, and spaces each edge\'s samples evenly along it with its faces\' normal', () => {
    for (let i = 0; i < 4 * s.vertexCount; i++) expect(s.points[i]).toBe(dense.points[i]);
    for (let e = 0; e < s.edgeCount; e++) {
      const first = edgeSampleStart(s, e), k = edgeSampleStart(s, e + 1) - first;
      const a = 3 * s.edges[2 * e]!, b = 3 * s.edges[2 * e + 1]!;
      for (let j = 0; j < k; j++) {
        const t = (j + 1) / (k + 1);
        for (let c = 0; c < 3; c++) expect(s.points[4 * (first + j) + c]!).toBeCloseTo(p[a + c]! + t * (p[b + c]! - p[a + c]!), 6);
        // The edge's normal: the sum of its faces' (the dense samples' of the same edge).
        const d = edgeSampleStart(dense, e);
        for (let c = 0; c < 3; c++) expect(s.normals![4 * (first + j) + c]).toBe(dense.normals![4 * d + c]);
      }
    }
  });

  it('shares each triangle\'s area among the samples on it: the areas add up to the surface', () => {
    const total = (a: Float32Array): number => a.reduce((x, y) => x + y, 0);
    expect(total(s.areas!)).toBeCloseTo(total(dense.areas!), 4);
    expect(s.areas).toEqual(sampleAreas(ball, s));
    // A vertex among fewer samples stands for more of the surface.
    expect(s.areas![0]!).toBeGreaterThanOrEqual(dense.areas![0]!);
  });

  it('changes nothing on a mesh whose edges are all long (a box)', () => {
    const box = boxMesh([1, 2, 3]);
    const a = buildSamples(box, 3), b = buildSamples(box, 3, Infinity, 0.1);
    expect(b.edgeStart).toBeUndefined();
    expect(b.points).toEqual(a.points);
    expect(b.areas).toEqual(a.areas);
    expect(b.creases).toEqual(a.creases);
  });
});
