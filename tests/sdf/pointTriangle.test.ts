/**
 * closestPointOnTriangle against an independent reference: the squared
 * distance over the triangle is a convex function of the barycentric
 * coordinates, so nested ternary searches find its minimum to ~1e-15, and a
 * dense barycentric sampling checks that no point of the triangle is closer.
 * Guards the Voronoi region tests (all 7 codes, exact codes for constructed
 * points) and the degenerate-triangle fallbacks (no NaN, right distance).
 */
import { describe, expect, it } from 'vitest';
import {
  closestPointOnTriangle,
  FEATURE_EDGE_AB,
  FEATURE_EDGE_BC,
  FEATURE_EDGE_CA,
  FEATURE_FACE,
  FEATURE_VERTEX_A,
  FEATURE_VERTEX_B,
  FEATURE_VERTEX_C,
  pointTriangleDistanceSquared,
  prepareTriangles,
  preparedClosest,
} from '../../src/sdf/pointTriangle.ts';

type V = [number, number, number];
type Tri = [V, V, V];

const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a: V, s: number): V => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: V, b: V): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a: V): number => Math.sqrt(dot(a, a));
const unit = (a: V): V => scale(a, 1 / norm(a));

/** Point of the triangle at barycentrics (u on b, v on c). */
function at(t: Tri, u: number, v: number): V {
  return add(t[0], add(scale(sub(t[1], t[0]), u), scale(sub(t[2], t[0]), v)));
}

/** Minimum of a convex function on [lo, hi] by golden-section search (interval shrinks 0.618x per step). */
function goldenMin(f: (x: number) => number, lo: number, hi: number): number {
  const g = (Math.sqrt(5) - 1) / 2;
  let x1 = hi - g * (hi - lo);
  let x2 = lo + g * (hi - lo);
  let f1 = f(x1);
  let f2 = f(x2);
  for (let k = 0; k < 64; k++) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  // The ends matter: the minimum often sits on the boundary of the simplex.
  return Math.min(f1, f2, f(lo), f(hi));
}

/**
 * Reference distance: nested golden-section searches over the squared
 * distance, which is convex on the barycentric simplex (and so is its minimum
 * over v as a function of u).
 */
function referenceDistance(t: Tri, p: V): number {
  const f = (u: number, v: number): number => {
    const q = sub(at(t, u, v), p);
    return dot(q, q);
  };
  return Math.sqrt(goldenMin((u) => goldenMin((v) => f(u, v), 0, 1 - u), 0, 1));
}

/** Smallest distance over a dense barycentric grid of the triangle (an upper bound of the true distance). */
function sampledDistance(t: Tri, p: V, n = 40): number {
  let best = Infinity;
  for (let i = 0; i <= n; i++) {
    for (let j = 0; i + j <= n; j++) best = Math.min(best, norm(sub(at(t, i / n, j / n), p)));
  }
  return best;
}

/** Deterministic pseudo-random numbers in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

function closest(t: Tri, p: V): { code: number; c: V } {
  const out = new Float64Array(3);
  const code = closestPointOnTriangle(p[0], p[1], p[2], ...t[0], ...t[1], ...t[2], out);
  return { code, c: [out[0]!, out[1]!, out[2]!] };
}

/** Distance from q to the segment ab. */
function segmentDistance(q: V, a: V, b: V): number {
  const ab = sub(b, a);
  const len2 = dot(ab, ab);
  const s = len2 > 0 ? Math.min(1, Math.max(0, dot(sub(q, a), ab) / len2)) : 0;
  return norm(sub(q, add(a, scale(ab, s))));
}

const TRIANGLES: [string, Tri][] = [
  ['acute', [[0.1, -0.2, 0.3], [1.3, 0.1, -0.2], [0.4, 1.1, 0.5]]],
  ['obtuse', [[0, 0, 0], [2, 0, 0], [1.7, 0.25, 0.1]]],
  ['right, axis-aligned', [[0, 0, 0], [1, 0, 0], [0, 1, 0]]],
  ['far from the origin', [[1000.1, 2000.2, -500], [1001.3, 2000.1, -500.4], [1000.4, 2001.1, -499.6]]],
];

describe('closestPointOnTriangle', () => {
  for (const [name, t] of TRIANGLES) {
    it(`matches the reference distance at random points around a ${name} triangle, and hits all 7 regions`, () => {
      const rand = rng(1234 + name.length);
      const lo: V = [0, 1, 2].map((k) => Math.min(t[0][k]!, t[1][k]!, t[2][k]!)) as V;
      const hi: V = [0, 1, 2].map((k) => Math.max(t[0][k]!, t[1][k]!, t[2][k]!)) as V;
      const size = norm(sub(hi, lo));
      const seen = new Set<number>();
      for (let n = 0; n < 300; n++) {
        const p: V = [0, 1, 2].map((k) => lo[k]! - 0.6 * size + rand() * (hi[k]! - lo[k]! + 1.2 * size)) as V;
        const { code, c } = closest(t, p);
        seen.add(code);
        const d = norm(sub(p, c));
        const ref = referenceDistance(t, p);
        expect(Math.abs(d - ref)).toBeLessThanOrEqual(1e-9 * Math.max(1, ref));
        // No sampled point of the triangle is closer than the answer.
        expect(sampledDistance(t, p, 20)).toBeGreaterThanOrEqual(d - 1e-12 * Math.max(1, d));
        // The squared-distance helper agrees with the closest point.
        expect(Math.abs(pointTriangleDistanceSquared(p[0], p[1], p[2], ...t[0], ...t[1], ...t[2]) - d * d)).toBeLessThanOrEqual(1e-12 * Math.max(1, d * d));
      }
      expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    });
  }

  it('returns the expected feature code and closest point for a point built in each of the 7 regions', () => {
    const t: Tri = [[0.1, -0.2, 0.3], [1.3, 0.1, -0.2], [0.4, 1.1, 0.5]];
    const [a, b, c] = t;
    const n = unit(cross(sub(b, a), sub(c, a)));
    const lift = scale(n, 0.37);
    // Outward in-plane normal of edge (p -> q): perpendicular to it, away from the third vertex.
    const edgeOut = (p: V, q: V, r: V): V => {
      const e = unit(sub(q, p));
      const toR = sub(r, p);
      return unit(scale(sub(toR, scale(e, dot(toR, e))), -1));
    };
    const cases: [number, V, V][] = [
      [FEATURE_FACE, add(at(t, 0.3, 0.3), lift), at(t, 0.3, 0.3)],
      [FEATURE_EDGE_AB, add(add(at(t, 0.4, 0), scale(edgeOut(a, b, c), 0.2)), lift), at(t, 0.4, 0)],
      [FEATURE_EDGE_BC, add(add(at(t, 0.6, 0.4), scale(edgeOut(b, c, a), 0.2)), lift), at(t, 0.6, 0.4)],
      [FEATURE_EDGE_CA, add(add(at(t, 0, 0.7), scale(edgeOut(c, a, b), 0.2)), lift), at(t, 0, 0.7)],
      [FEATURE_VERTEX_A, add(sub(a, scale(add(unit(sub(b, a)), unit(sub(c, a))), 0.3)), lift), a],
      [FEATURE_VERTEX_B, add(sub(b, scale(add(unit(sub(a, b)), unit(sub(c, b))), 0.3)), lift), b],
      [FEATURE_VERTEX_C, add(sub(c, scale(add(unit(sub(a, c)), unit(sub(b, c))), 0.3)), lift), c],
    ];
    for (const [expected, p, q] of cases) {
      const r = closest(t, p);
      expect(r.code).toBe(expected);
      expect(norm(sub(r.c, q))).toBeLessThan(1e-12);
    }
    // Vertices come back exactly, not as a + 1 * ab.
    expect(closest(t, cases[5]![1]).c).toEqual(b);
  });

  it('handles degenerate triangles (collinear, repeated vertex, sliver) without NaN and with the right distance', () => {
    const degenerate: [string, Tri][] = [
      ['collinear', [[0, 0, 0], [1, 0, 0], [2, 0, 0]]],
      ['collinear, middle vertex first', [[1, 0, 0], [0, 0, 0], [2, 0, 0]]],
      ['repeated vertex', [[0, 0, 0], [0, 0, 0], [1, 1, 0]]],
      ['single point', [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]],
      ['sliver', [[0, 0, 0], [1, 0, 0], [0.5, 1e-9, 0]]],
    ];
    const rand = rng(99);
    for (const [, t] of degenerate) {
      for (let n = 0; n < 100; n++) {
        const p: V = [rand() * 4 - 1, rand() * 2 - 1, rand() * 2 - 1];
        const { code, c } = closest(t, p);
        expect(code).toBeGreaterThanOrEqual(0);
        expect(code).toBeLessThanOrEqual(6);
        const d = norm(sub(p, c));
        expect(Number.isFinite(d)).toBe(true);
        // A flat triangle is the union of its edges, so the answer is the nearest edge.
        const edges = Math.min(segmentDistance(p, t[0], t[1]), segmentDistance(p, t[1], t[2]), segmentDistance(p, t[2], t[0]));
        expect(d).toBeLessThanOrEqual(edges + 1e-12);
        expect(Math.abs(d - referenceDistance(t, p))).toBeLessThan(1e-8);
      }
    }
  });

  it('gives the same answer through the prepared table the bakes use', () => {
    const positions = Float64Array.of(0.1, -0.2, 0.3, 1.3, 0.1, -0.2, 0.4, 1.1, 0.5);
    const tris = prepareTriangles(positions, Uint32Array.of(0, 1, 2));
    const rand = rng(7);
    const p = new Float64Array(3);
    const res = new Float64Array(3);
    for (let n = 0; n < 200; n++) {
      p[0] = rand() * 3 - 1;
      p[1] = rand() * 3 - 1;
      p[2] = rand() * 3 - 1;
      const code = preparedClosest(tris, 0, p, res);
      const t: Tri = [[0.1, -0.2, 0.3], [1.3, 0.1, -0.2], [0.4, 1.1, 0.5]];
      const r = closest(t, [p[0]!, p[1]!, p[2]!]);
      expect(code).toBe(r.code);
      expect(Math.abs(Math.sqrt(res[0]!) - norm(sub([p[0]!, p[1]!, p[2]!], r.c)))).toBeLessThan(1e-12);
      // The stored plane is a lower bound of the distance.
      const o = 12;
      const pd = tris[o]! * p[0]! + tris[o + 1]! * p[1]! + tris[o + 2]! * p[2]! - tris[o + 3]!;
      expect(pd * pd).toBeLessThanOrEqual(res[0]! * (1 + 1e-12) + 1e-15);
    }
  });
});
