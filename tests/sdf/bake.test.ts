/**
 * The CPU SDF bake (src/sdf/bake.ts): the brick/BVH search must return the
 * same field as the O(nodes x triangles) oracle; distances must match the
 * analytic solids within the polygonisation error; signs must match an
 * independent ray-parity test. Shapes cover flat faces and sharp convex edges
 * (box), a smooth convex surface (sphere), saddle regions (torus) and concave
 * features (cup, star, L-block, bone).
 */
import { describe, expect, it } from 'vitest';
import { meshBounds, translatedMesh, type TriMesh, type Vec3 } from '../../src/geometry/mesh.ts';
import {
  boneProfile, boxMesh, cupProfile, extrudeMesh, lBlockPolygon, revolveMesh, sphereMesh, starPolygon, torusMesh,
} from '../../src/geometry/shapes.ts';
import { bakeSdfBruteForce, bakeSdfCpu, signedDistanceBruteForce } from '../../src/sdf/bake.ts';
import { gridLayout, type SdfGrid } from '../../src/sdf/grid.ts';
import { insideByRayParity } from '../../src/sdf/inside.ts';
import { pointTriangleDistanceSquared } from '../../src/sdf/pointTriangle.ts';

/** Calls f with the position and value of every node. */
function eachNode(g: SdfGrid, f: (x: number, y: number, z: number, phi: number) => void): void {
  const [nx, ny, nz] = g.dims;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++) {
        f(g.origin[0] + g.cellSize * i, g.origin[1] + g.cellSize * j, g.origin[2] + g.cellSize * k, g.values[i + nx * (j + ny * k)]!);
      }
    }
  }
}

function maxAbsDiff(a: SdfGrid, b: SdfGrid): number {
  expect(a.dims).toEqual(b.dims);
  expect(a.origin).toEqual(b.origin);
  expect(a.cellSize).toBe(b.cellSize);
  let m = 0;
  for (let i = 0; i < a.values.length; i++) m = Math.max(m, Math.abs(a.values[i]! - b.values[i]!));
  return m;
}

const NONCONVEX: [string, () => TriMesh][] = [
  ['torus', () => torusMesh(1, 0.35, 24, 9)],
  ['cup (revolve)', () => revolveMesh(cupProfile(0.5, 0.8, 0.1), 24)],
  ['star (extrude)', () => extrudeMesh(starPolygon(5, 1, 0.45), 0.4)],
  ['L-block (extrude)', () => extrudeMesh(lBlockPolygon(1, 0.8, 0.3), 0.4)],
  ['bone (revolve)', () => revolveMesh(boneProfile(2, 0.3), 16)],
];

describe('bakeSdfCpu', () => {
  it('lays its nodes out with gridLayout of the mesh bounds (defaults 48 cells, padding 2)', () => {
    const m = torusMesh(1, 0.35, 24, 9);
    const g = bakeSdfCpu(m);
    const l = gridLayout(meshBounds(m), 48, 2);
    expect(g.origin).toEqual(l.origin);
    expect(g.cellSize).toBe(l.cellSize);
    expect(g.dims).toEqual(l.dims);
    expect(g.values.length).toBe(l.dims[0] * l.dims[1] * l.dims[2]);
    const h = bakeSdfCpu(m, { cells: 20, padding: 3 });
    expect(h.dims).toEqual(gridLayout(meshBounds(m), 20, 3).dims);
  });

  for (const [name, make] of NONCONVEX) {
    it(`equals the brute-force bake at every node for the ${name}`, () => {
      const m = make();
      // 24 cells: bricks well inside features; 5 cells: bricks wider than the features.
      for (const cells of [24, 5]) {
        expect(maxAbsDiff(bakeSdfCpu(m, { cells }), bakeSdfBruteForce(m, { cells }))).toBeLessThanOrEqual(1e-6);
      }
    });
  }

  it('matches the analytic box distance to float32 rounding', () => {
    const size: Vec3 = [1, 0.6, 0.8];
    const g = bakeSdfCpu(boxMesh(size), { cells: 24 });
    let worst = 0;
    eachNode(g, (x, y, z, phi) => {
      const q = [Math.abs(x) - size[0] / 2, Math.abs(y) - size[1] / 2, Math.abs(z) - size[2] / 2];
      const outside = Math.hypot(Math.max(q[0]!, 0), Math.max(q[1]!, 0), Math.max(q[2]!, 0));
      const exact = outside + Math.min(Math.max(q[0]!, q[1]!, q[2]!), 0);
      worst = Math.max(worst, Math.abs(phi - exact));
    });
    expect(worst).toBeLessThan(1e-6);
  });

  it('matches the analytic sphere distance within the gap between sphere and inscribed mesh', () => {
    const m = sphereMesh(1, 32, 16);
    // Every vertex is on the unit sphere, so the mesh is inside the ball and the
    // surfaces are at most H = 1 - (distance from the centre to the nearest triangle) apart.
    let nearest = Infinity;
    for (let t = 0; t < m.indices.length; t += 3) {
      const v = [0, 1, 2].map((k) => 3 * m.indices[t + k]!);
      const p = m.positions;
      nearest = Math.min(nearest, pointTriangleDistanceSquared(0, 0, 0, p[v[0]!]!, p[v[0]! + 1]!, p[v[0]! + 2]!, p[v[1]!]!, p[v[1]! + 1]!, p[v[1]! + 2]!, p[v[2]!]!, p[v[2]! + 1]!, p[v[2]! + 2]!));
    }
    const gap = 1 - Math.sqrt(nearest);
    const g = bakeSdfCpu(m, { cells: 32 });
    let worst = 0;
    eachNode(g, (x, y, z, phi) => {
      worst = Math.max(worst, Math.abs(phi - (Math.hypot(x, y, z) - 1)));
    });
    expect(worst).toBeLessThanOrEqual(gap + 1e-6);
    // ... and the bound is tight, not vacuous: the error reaches most of it somewhere.
    expect(worst).toBeGreaterThan(0.5 * gap);
  });

  it('matches the analytic torus distance within the chord sagittas of its polygonisation', () => {
    const [R, r, around, tube] = [1, 0.35, 48, 24];
    const g = bakeSdfCpu(torusMesh(R, r, around, tube), { cells: 32 });
    // Vertices lie on the torus; a triangle strays from it by at most the sagitta of
    // the outer equator's chord plus that of the tube's chord (+5% for the split quads' twist).
    const bound = 1.05 * ((R + r) * (1 - Math.cos(Math.PI / around)) + r * (1 - Math.cos(Math.PI / tube)));
    let worst = 0;
    eachNode(g, (x, y, z, phi) => {
      worst = Math.max(worst, Math.abs(phi - (Math.hypot(Math.hypot(x, z) - R, y) - r)));
    });
    expect(worst).toBeLessThanOrEqual(bound);
    expect(worst).toBeGreaterThan(0.5 * bound);
  });

  for (const [name, make] of NONCONVEX.slice(0, 4)) {
    it(`has the ray-parity sign at every node of a 32-cell grid of the ${name}`, () => {
      const m = make();
      const g = bakeSdfCpu(m, { cells: 32 });
      let checked = 0;
      let wrong = 0;
      eachNode(g, (x, y, z, phi) => {
        if (Math.abs(phi) < 1e-6) return; // on the surface: no defined sign
        checked++;
        if (insideByRayParity(m, x, y, z) !== phi < 0) wrong++;
      });
      expect(wrong).toBe(0);
      expect(checked).toBeGreaterThan(0.95 * g.values.length);
    });
  }

  it('gives the same field for a mesh moved far from the origin (relative to its own grid)', () => {
    const m = torusMesh(1, 0.35, 24, 9);
    const far = translatedMesh(m, [-100, 50, -30]);
    const a = bakeSdfCpu(m, { cells: 16 });
    const b = bakeSdfCpu(far, { cells: 16 });
    expect(b.dims).toEqual(a.dims);
    let worst = 0;
    for (let i = 0; i < a.values.length; i++) worst = Math.max(worst, Math.abs(a.values[i]! - b.values[i]!));
    expect(worst).toBeLessThan(1e-5);
  });

  it('agrees with the one-off brute-force signed distance at off-grid points', () => {
    const m = revolveMesh(cupProfile(0.5, 0.8, 0.1), 24);
    for (const p of [[0, 0, 0], [0, -0.35, 0], [0.45, 0.1, 0], [0.7, 0.5, 0.2], [0, 0.39, 0.44]] as Vec3[]) {
      const d = signedDistanceBruteForce(m, ...p);
      expect(insideByRayParity(m, ...p)).toBe(d < 0);
    }
    // The cup's cavity (open at the top) is outside, its wall inside.
    expect(signedDistanceBruteForce(m, 0, 0.2, 0)).toBeGreaterThan(0);
    expect(signedDistanceBruteForce(m, 0.45, 0, 0)).toBeLessThan(0);
  });
});
