/**
 * The seed's spring-net construction (seed 001, "Generisanje mreže opruga"),
 * checked with geometry written independently of src/soft/seedNet.ts.
 */
import { describe, expect, it } from 'vitest';
import { buildSeedNet, extrudeSeedModel, SEED_MAX_POINTS } from '../../src/soft/seedNet.ts';
import { componentCount, SpringKind } from '../../src/soft/model.ts';
import { extrudeMesh, starPolygon } from '../../src/geometry/shapes.ts';
import { signedVolume } from '../../src/geometry/mesh.ts';
import { tetVolumes } from './helpers.ts';

type Pt = [number, number];

const SQUARE: Pt[] = [[0, 0], [1, 0], [1, 1], [0, 1]];
const TRIANGLE: Pt[] = [[0, 0], [1, 0], [0.5, Math.sqrt(3) / 2]];
/** The seed's plus-shaped body. */
const PLUS: Pt[] = [[-1, -3], [1, -3], [1, -1], [3, -1], [3, 1], [1, 1], [1, 3], [-1, 3], [-1, 1], [-3, 1], [-3, -1], [-1, -1]];
/** A horseshoe: an arch of two rings of points (outer and inner), open at the bottom. */
const HORSESHOE: Pt[] = (() => {
  const out: Pt[] = [];
  const n = 9;
  for (let i = 0; i <= n; i++) {
    const a = Math.PI * 1.15 * (i / n) - 0.075 * Math.PI;
    out.push([2 * Math.cos(a), 2 * Math.sin(a)]);
  }
  for (let i = n; i >= 0; i--) {
    const a = Math.PI * 1.15 * (i / n) - 0.075 * Math.PI;
    out.push([1.2 * Math.cos(a), 1.2 * Math.sin(a)]);
  }
  return out;
})();
const STAR: Pt[] = starPolygon(5, 2, 0.8);
/** Nonconvex with uneven spacing. */
const ZIGZAG: Pt[] = [[0, 0], [4, 0], [4, 1], [3, 0.6], [2.6, 2], [2, 0.8], [1.1, 2.5], [0.7, 0.9], [0, 1.4]];

const OUTLINES: Record<string, Pt[]> = { square: SQUARE, plus: PLUS, horseshoe: HORSESHOE, star: STAR, zigzag: ZIGZAG };

function xy(points: Pt[]): [Float64Array, Float64Array] {
  return [Float64Array.from(points, (p) => p[0]), Float64Array.from(points, (p) => p[1])];
}

// ---- independent geometry (exact enough for these coordinates)
function cross(o: Pt, a: Pt, b: Pt): number {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}
/** Segments pq and rs share a point other than a common end point. */
function meet(p: Pt, q: Pt, r: Pt, s: Pt): boolean {
  const same = (u: Pt, v: Pt) => u[0] === v[0] && u[1] === v[1];
  if (same(p, r) || same(p, s) || same(q, r) || same(q, s)) return false;
  const d1 = cross(r, s, p), d2 = cross(r, s, q), d3 = cross(p, q, r), d4 = cross(p, q, s);
  const eps = 1e-12;
  if (((d1 > eps && d2 < -eps) || (d1 < -eps && d2 > eps)) && ((d3 > eps && d4 < -eps) || (d3 < -eps && d4 > eps))) return true;
  const on = (a: Pt, b: Pt, c: Pt) =>
    Math.abs(cross(a, b, c)) <= eps && Math.min(a[0], b[0]) <= c[0] && c[0] <= Math.max(a[0], b[0]) && Math.min(a[1], b[1]) <= c[1] && c[1] <= Math.max(a[1], b[1]);
  return on(r, s, p) || on(r, s, q) || on(p, q, r) || on(p, q, s);
}
function angle(at: Pt, a: Pt, b: Pt): number {
  const u = [a[0] - at[0], a[1] - at[1]], v = [b[0] - at[0], b[1] - at[1]];
  return Math.acos(Math.max(-1, Math.min(1, (u[0]! * v[0]! + u[1]! * v[1]!) / (Math.hypot(u[0]!, u[1]!) * Math.hypot(v[0]!, v[1]!)))));
}
function inside(poly: Pt[], p: Pt): boolean {
  let c = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i]!, [xj, yj] = poly[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) c = !c;
  }
  return c;
}

function pairs(springs: Uint32Array): [number, number][] {
  const out: [number, number][] = [];
  for (let s = 0; s < springs.length; s += 2) out.push([springs[s]!, springs[s + 1]!]);
  return out;
}

describe('the seed construction (2D)', () => {
  it('adds nothing to a triangle and exactly one diagonal to a square', () => {
    expect(buildSeedNet(...xy(TRIANGLE), (10 * Math.PI) / 180).springs.length / 2).toBe(3);
    const square = buildSeedNet(...xy(SQUARE), (10 * Math.PI) / 180);
    expect(square.springs.length / 2).toBe(5);
    // The diagonal's smallest angle is 45 degrees, with the two sides at either end.
    expect(square.addedAngle[0]).toBeCloseTo(Math.PI / 4, 12);
    // Above 45 degrees even that one is refused.
    expect(buildSeedNet(...xy(SQUARE), (46 * Math.PI) / 180).springs.length / 2).toBe(4);
  });

  it('triangulates a convex polygon completely at a small minimum angle (2n - 3 springs)', () => {
    const hexagon: Pt[] = Array.from({ length: 6 }, (_, i) => [Math.cos((i * Math.PI) / 3), Math.sin((i * Math.PI) / 3)] as Pt);
    expect(buildSeedNet(...xy(hexagon), (5 * Math.PI) / 180).springs.length / 2).toBe(2 * 6 - 3);
  });

  for (const [name, outline] of Object.entries(OUTLINES)) {
    for (const degrees of [10, 20, 30]) {
      it(`gives a connected net with every angle >= ${degrees} degrees and no crossing springs (${name})`, () => {
        const min = (degrees * Math.PI) / 180;
        const net = buildSeedNet(...xy(outline), min);
        const n = outline.length;
        const springs = pairs(net.springs);
        const P = (i: number) => outline[i]!;
        // The outline comes first, in order.
        for (let i = 0; i < n; i++) expect(springs[i]).toEqual([i, (i + 1) % n]);
        expect(componentCount(n, net.springs)).toBe(1);
        // No two springs meet except at shared end points, and no spring passes through a point.
        for (let a = 0; a < springs.length; a++) {
          const [p, q] = springs[a]!;
          for (let b = a + 1; b < springs.length; b++) {
            const [r, s] = springs[b]!;
            expect(meet(P(p), P(q), P(r), P(s)), `springs ${p}-${q} and ${r}-${s}`).toBe(false);
          }
          for (let k = 0; k < n; k++) if (k !== p && k !== q) expect(meet(P(p), P(q), P(k), P(k))).toBe(false);
        }
        // Every angle an added spring makes with another spring at a shared end is at least the minimum
        // (angles between two outline springs are the input's own).
        for (let a = n; a < springs.length; a++) {
          for (const end of springs[a]!) {
            const other = springs[a]![0] === end ? springs[a]![1] : springs[a]![0];
            for (let b = 0; b < springs.length; b++) {
              if (b === a || !springs[b]!.includes(end)) continue;
              const third = springs[b]![0] === end ? springs[b]![1] : springs[b]![0];
              expect(angle(P(end), P(other), P(third))).toBeGreaterThanOrEqual(min - 1e-12);
            }
          }
        }
        // Outer flags are right: an added spring lies outside exactly when its midpoint does.
        for (let a = 0; a < springs.length; a++) {
          const [p, q] = springs[a]!;
          const mid: Pt = [(P(p)[0] + P(q)[0]) / 2, (P(p)[1] + P(q)[1]) / 2];
          expect(net.outer[a]).toBe(a < n ? 0 : inside(outline, mid) ? 0 : 1);
        }
        // It stopped for the stated reason: every pair left out crosses a spring, passes through a point,
        // or would make an angle below the minimum.
        const present = new Set(springs.map(([p, q]) => `${Math.min(p, q)},${Math.max(p, q)}`));
        for (let p = 0; p < n; p++) {
          for (let q = p + 1; q < n; q++) {
            if (present.has(`${p},${q}`)) continue;
            const crosses = springs.some(([r, s]) => meet(P(p), P(q), P(r), P(s))) || outline.some((_, k) => k !== p && k !== q && meet(P(p), P(q), P(k), P(k)));
            let smallest = Math.PI;
            for (const [r, s] of springs) {
              if (r === p || s === p) smallest = Math.min(smallest, angle(P(p), P(q), P(r === p ? s : r)));
              if (r === q || s === q) smallest = Math.min(smallest, angle(P(q), P(p), P(r === q ? s : r)));
            }
            expect(crosses || smallest < min + 1e-12, `pair ${p}-${q} could still be added`).toBe(true);
          }
        }
      });
    }
  }

  it('adds wide-angle springs first (the smallest angle of each added spring never increases)', () => {
    const net = buildSeedNet(...xy(PLUS), (15 * Math.PI) / 180);
    for (let i = 1; i < net.addedAngle.length; i++) expect(net.addedAngle[i]).toBeLessThanOrEqual(net.addedAngle[i - 1]! + 1e-12);
  });

  it('braces a horseshoe with outer springs across its opening at a small minimum angle', () => {
    const net = buildSeedNet(...xy(HORSESHOE), (8 * Math.PI) / 180);
    expect(net.outer.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('accepts either orientation of the outline and gives the same net (an outline without ties)', () => {
    // A symmetric outline has ties between candidates, broken by point order; this one has none.
    const ccw = buildSeedNet(...xy(ZIGZAG), (20 * Math.PI) / 180);
    const reversed = [...ZIGZAG].reverse();
    const cw = buildSeedNet(...xy(reversed), (20 * Math.PI) / 180);
    const n = ZIGZAG.length;
    const key = (springs: Uint32Array, map: (i: number) => number) =>
      pairs(springs).map(([a, b]) => [map(a), map(b)].sort((u, v) => u - v).join(',')).sort();
    expect(key(cw.springs, (i) => n - 1 - i)).toEqual(key(ccw.springs, (i) => i));
  });

  it(`refuses more than ${SEED_MAX_POINTS} points and a minimum angle outside (0, 90) degrees`, () => {
    const many: Pt[] = Array.from({ length: SEED_MAX_POINTS + 1 }, (_, i) => [Math.cos((2 * Math.PI * i) / (SEED_MAX_POINTS + 1)), Math.sin((2 * Math.PI * i) / (SEED_MAX_POINTS + 1))]);
    expect(() => buildSeedNet(...xy(many), 0.3)).toThrow(/at most 256/);
    expect(() => buildSeedNet(...xy(SQUARE), 0)).toThrow(/minimum angle/);
    expect(() => buildSeedNet(...xy(SQUARE), Math.PI / 2)).toThrow(/minimum angle/);
  });
});

describe('the seed construction on an extruded outline (3D)', () => {
  it('repeats the net on both faces, ties twins together and cross-braces every swept quad', () => {
    const depth = 0.5;
    const mesh = extrudeMesh(PLUS, depth);
    const min = (20 * Math.PI) / 180;
    const model = extrudeSeedModel(mesh, min);
    const net = buildSeedNet(...xy(PLUS), min);
    const n = PLUS.length;
    const ns = net.springs.length / 2;
    expect(model.rest.length / 3).toBe(2 * n);
    expect(model.springs.length / 2).toBe(4 * ns + n);
    const set = new Set(pairs(model.springs).map(([a, b]) => `${a},${b}`));
    const has = (a: number, b: number) => set.has(`${Math.min(a, b)},${Math.max(a, b)}`);
    for (const [a, b] of pairs(net.springs)) {
      expect(has(a, b) && has(n + a, n + b) && has(a, n + b) && has(b, n + a)).toBe(true);
    }
    for (let i = 0; i < n; i++) expect(has(i, n + i)).toBe(true);
    // Diagonals are shear springs, the rest structural; outer flags carried over.
    const shear = [...model.kind].filter((k) => k === SpringKind.Shear).length;
    expect(shear).toBe(2 * ns);
    expect([...model.outer].filter(Boolean).length).toBe(4 * [...net.outer].filter(Boolean).length);
    expect(componentCount(2 * n, model.springs)).toBe(1);
  });

  it('spreads the mass by cap area: shares sum to 1 and the centre of mass is the polygon\'s centroid', () => {
    const L: Pt[] = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 2], [0, 2]];
    const model = extrudeSeedModel(extrudeMesh(L, 1), (20 * Math.PI) / 180);
    const shares = [...model.massShare];
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 14);
    expect(Math.min(...shares)).toBeGreaterThan(0);
    // Area-weighted vertex shares reproduce the area centroid exactly (each triangle's centroid is its vertex mean).
    let cx = 0, cy = 0;
    for (let i = 0; i < shares.length; i++) {
      cx += shares[i]! * model.rest[3 * i]!;
      cy += shares[i]! * model.rest[3 * i + 1]!;
    }
    // L shape: a 3 x 1 bar (centroid 1.5, 0.5) and a 1 x 1 block (0.5, 1.5): area 4.
    expect(cx).toBeCloseTo((3 * 1.5 + 1 * 0.5) / 4, 12);
    expect(cy).toBeCloseTo((3 * 0.5 + 1 * 1.5) / 4, 12);
  });

  it('fills the prism with positive tetrahedra whose volumes add up to the extruded volume', () => {
    for (const outline of [PLUS, STAR, [...ZIGZAG].reverse()]) {
      const mesh = extrudeMesh(outline, 0.7);
      const model = extrudeSeedModel(mesh, (20 * Math.PI) / 180);
      const volumes = tetVolumes(model);
      expect(volumes.length).toBe(3 * (outline.length - 2));
      expect(Math.min(...volumes)).toBeGreaterThan(0);
      expect(volumes.reduce((a, b) => a + b, 0)).toBeCloseTo(signedVolume(mesh), 12);
    }
  });

  it('draws the extruded mesh itself: every surface vertex is its own particle', () => {
    const mesh = extrudeMesh(STAR, 0.3);
    const model = extrudeSeedModel(mesh, (15 * Math.PI) / 180);
    expect(model.surface.indices).toEqual(mesh.indices);
    for (let v = 0; v < mesh.positions.length / 3; v++) {
      expect(model.skinIndex[4 * v]).toBe(v);
      expect(model.skinWeight[4 * v]).toBe(1);
    }
  });
});
