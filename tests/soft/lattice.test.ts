/**
 * The 3D construction: a lattice clipped by the shape's SDF, snapped to the
 * surface, with the shape's mesh embedded for drawing.
 */
import { describe, expect, it } from 'vitest';
import { boxMesh, cupProfile, extrudeMesh, revolveMesh, sphereMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { signedVolume, type TriMesh } from '../../src/geometry/mesh.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';
import { sampleSdf } from '../../src/sdf/grid.ts';
import { buildLatticeModel } from '../../src/soft/lattice.ts';
import { componentCount, SpringKind, type SoftModel } from '../../src/soft/model.ts';
import { enclosedVolume, skinPositions } from '../../src/soft/skin.ts';
import { tetVolumes } from './helpers.ts';

function build(mesh: TriMesh, resolution: number): { model: SoftModel; sdf: ReturnType<typeof bakeSdfCpu> } {
  const sdf = bakeSdfCpu(mesh, { cells: 48 });
  return { model: buildLatticeModel(mesh, sdf, resolution), sdf };
}

function springLengths(m: SoftModel): number[] {
  const out: number[] = [];
  for (let s = 0; s < m.springs.length; s += 2) {
    const a = 3 * m.springs[s]!, b = 3 * m.springs[s + 1]!;
    out.push(Math.hypot(m.rest[a]! - m.rest[b]!, m.rest[a + 1]! - m.rest[b + 1]!, m.rest[a + 2]! - m.rest[b + 2]!));
  }
  return out;
}

describe('the lattice construction', () => {
  it('fills a box with the full lattice: (n + 1)^3 particles on and inside it, the counted springs of each kind', () => {
    const n = 4;
    const { model } = build(boxMesh([1, 1, 1]), n);
    expect(model.rest.length / 3).toBe((n + 1) ** 3);
    const count = (k: number) => [...model.kind].filter((x) => x === k).length;
    // Edges: 3 n (n + 1)^2. Face diagonals: 2 per face, 3 n^2 (n + 1) faces. Body diagonals: 4 n^3.
    // Bending (skip one node along an axis): 3 (n - 1)(n + 1)^2.
    expect(count(SpringKind.Structural)).toBe(3 * n * (n + 1) ** 2);
    expect(count(SpringKind.Shear)).toBe(2 * 3 * n * n * (n + 1) + 4 * n ** 3);
    expect(count(SpringKind.Bending)).toBe(3 * (n - 1) * (n + 1) ** 2);
    for (let i = 0; i < model.rest.length; i++) expect(Math.abs(model.rest[i]!)).toBeLessThanOrEqual(0.5 + 1e-12);
    expect(model.spacing).toBeCloseTo(0.25, 14);
    // A box's lattice needs no snapping: every spring has its lattice length.
    const lengths = springLengths(model);
    for (const L of lengths) expect([0.25, 0.25 * Math.SQRT2, 0.25 * Math.sqrt(3), 0.5].some((x) => Math.abs(L - x) < 1e-12)).toBe(true);
    expect([...model.outer].every((o) => o === 0)).toBe(true);
    // Six tetrahedra per cell fill the box exactly.
    const volumes = tetVolumes(model);
    expect(volumes.length).toBe(6 * n ** 3);
    expect(volumes.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });

  it('builds a sphere\'s net with the sphere\'s mirror symmetries: each particle has its mirror image in x, y and z to 1e-9 m', () => {
    // Snapping judged by Kuhn's split about one diagonal, node after node,
    // left the net up to 13 mm off its mirror image (radius 0.2 m, resolution 5).
    for (const resolution of [5, 7]) {
      const { model } = build(sphereMesh(0.2, 24, 16), resolution);
      const p = model.rest, n = p.length / 3;
      for (let axis = 0; axis < 3; axis++) {
        let worst = 0;
        for (let i = 0; i < n; i++) {
          const q = [p[3 * i]!, p[3 * i + 1]!, p[3 * i + 2]!];
          q[axis] = -q[axis]!;
          let best = Infinity;
          for (let j = 0; j < n; j++) best = Math.min(best, Math.hypot(p[3 * j]! - q[0]!, p[3 * j + 1]! - q[1]!, p[3 * j + 2]! - q[2]!));
          worst = Math.max(worst, best);
        }
        expect(worst).toBeLessThan(1e-9);
      }
    }
  });

  it('fits a flat box with cells close to cubes (exact fit along every axis)', () => {
    const { model } = build(boxMesh([2, 0.5, 1]), 8);
    // 8 cells along x (0.25), 2 along y (0.25), 4 along z (0.25).
    expect(model.rest.length / 3).toBe(9 * 3 * 5);
  });

  for (const [name, mesh, resolution] of [
    ['sphere', sphereMesh(0.3, 16, 12), 7],
    ['torus', torusMesh(0.5, 0.15, 24, 9), 10],
    ['cup', revolveMesh(cupProfile(0.3, 0.4, 0.06), 20), 12],
  ] as const) {
    it(`builds one connected net with particles on or inside the surface and no degenerate springs (${name})`, () => {
      const { model, sdf } = build(mesh, resolution);
      const n = model.rest.length / 3;
      expect(componentCount(n, model.springs)).toBe(1);
      for (let p = 0; p < n; p++) {
        const phi = sampleSdf(sdf, model.rest[3 * p]!, model.rest[3 * p + 1]!, model.rest[3 * p + 2]!);
        // Snapping stops short only where a full snap would flatten a tetrahedron (lattice.ts, step 3).
        expect(phi).toBeLessThan(0.35 * model.spacing);
      }
      // Merging keeps particles apart: no spring shorter than 0.3 spacings.
      expect(Math.min(...springLengths(model))).toBeGreaterThan(0.3 * model.spacing);
      const shares = [...model.massShare];
      expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
      expect(Math.min(...shares)).toBeGreaterThan(0);
      // The tetrahedra are positive and fill the shape to within the snapping (a few per cent).
      const volumes = tetVolumes(model);
      expect(Math.min(...volumes)).toBeGreaterThan(0);
      const filled = volumes.reduce((a, b) => a + b, 0) / signedVolume(mesh);
      expect(filled).toBeGreaterThan(0.9);
      expect(filled).toBeLessThan(1.1);
    });

    it(`draws the shape's own mesh, refined to the spacing, reproduced exactly by the particles at rest (${name})`, () => {
      const { model } = build(mesh, resolution);
      const surface = model.surface;
      const nv = surface.positions.length / 3;
      // The original vertices come first, unmoved; the refined mesh encloses the same solid.
      for (let i = 0; i < mesh.positions.length; i++) expect(surface.positions[i]).toBe(mesh.positions[i]);
      expect(signedVolume(surface)).toBeCloseTo(signedVolume(mesh), 12);
      const out = new Float64Array(3 * nv);
      skinPositions({ indices: surface.indices, skinIndex: model.skinIndex, skinWeight: model.skinWeight }, model.rest, out);
      for (let i = 0; i < out.length; i++) expect(Math.abs(out[i]! - surface.positions[i]!)).toBeLessThan(1e-12);
      for (let v = 0; v < nv; v++) {
        let sum = 0;
        for (let k = 0; k < 4; k++) sum += model.skinWeight[4 * v + k]!;
        expect(sum).toBeCloseTo(1, 12);
      }
      expect(enclosedVolume(surface.indices, out)).toBeCloseTo(signedVolume(mesh), 12);
    });
  }

  it('refines a box\'s 12 triangles until no edge is longer than 1.5 spacings, keeping it closed', () => {
    const { model } = build(boxMesh([1, 1, 1]), 4);
    // Face diagonals sqrt(2) -> sqrt(2) / 4 = 0.354 <= 1.5 * 0.25 after two 1-to-4 splits: 12 * 16 triangles.
    expect(model.surface.indices.length / 3).toBe(12 * 16);
    // Closed: every edge is shared by exactly two triangles, once in each direction.
    const edges = new Map<string, number>();
    const I = model.surface.indices;
    for (let t = 0; t < I.length; t += 3) {
      for (let e = 0; e < 3; e++) {
        const key = `${I[t + e]},${I[t + ((e + 1) % 3)]}`;
        edges.set(key, (edges.get(key) ?? 0) + 1);
      }
    }
    for (const [key, count] of edges) {
      const [a, b] = key.split(',');
      expect(count).toBe(1);
      expect(edges.get(`${b},${a}`)).toBe(1);
    }
  });

  it('does not tie the arms of a U across its gap: every spring runs through the solid', () => {
    // Arms 1 m apart at 0.5 m cells: the gap is two cells wide, so no cell there is kept.
    const U = extrudeMesh([[0, 0], [3, 0], [3, 2], [2, 2], [2, 1], [1, 1], [1, 2], [0, 2]], 1);
    const { model, sdf } = build(U, 6);
    let across = 0;
    for (let s = 0; s < model.springs.length; s += 2) {
      const a = 3 * model.springs[s]!, b = 3 * model.springs[s + 1]!;
      const mid = sampleSdf(sdf, (model.rest[a]! + model.rest[b]!) / 2, (model.rest[a + 1]! + model.rest[b + 1]!) / 2, (model.rest[a + 2]! + model.rest[b + 2]!) / 2);
      expect(mid).toBeLessThan(1e-6);
      if ((model.rest[a]! < 1.5) !== (model.rest[b]! < 1.5) && model.rest[a + 1]! > 1.01 && model.rest[b + 1]! > 1.01) across++;
    }
    expect(across).toBe(0);
  });

  it('refuses a resolution too coarse for a thin part, naming what to do', () => {
    // Two knobs joined by a rod 10 cm across and 1.4 m long, at 0.5 m cells: the rod holds no cell, the net falls in two.
    const dumbbell = revolveMesh([[0, -1], [0.3, -1], [0.3, -0.7], [0.05, -0.7], [0.05, 0.7], [0.3, 0.7], [0.3, 1], [0, 1]], 16);
    expect(() => build(dumbbell, 4)).toThrow(/falls apart into 2 pieces .* use a finer resolution/);
    // A tube far thinner than a cell holds none at all.
    expect(() => build(torusMesh(0.5, 0.01, 24, 6), 2)).toThrow(/no lattice cell lies inside the shape at resolution 2; use a finer resolution/);
    // Fine enough, the same shapes build.
    const fine = build(dumbbell, 40).model;
    expect(componentCount(fine.rest.length / 3, fine.springs)).toBe(1);
  });

  it('stores the springs interleaved: each pair once, and under 1 % of them share a particle with one of the 7 before', () => {
    for (const [mesh, resolution] of [[sphereMesh(0.2), 7], [boxMesh([1, 1, 1]), 4]] as const) {
      const { model } = build(mesh, resolution);
      const S = model.springs, n = S.length / 2;
      const seen = new Set<string>();
      let close = 0;
      for (let s = 0; s < n; s++) {
        const a = S[2 * s]!, b = S[2 * s + 1]!;
        seen.add(`${Math.min(a, b)} ${Math.max(a, b)}`);
        for (let t = Math.max(0, s - 7); t < s; t++) {
          if (S[2 * t] === a || S[2 * t] === b || S[2 * t + 1] === a || S[2 * t + 1] === b) {
            close++;
            break;
          }
        }
      }
      expect(seen.size).toBe(n);
      expect(close / n).toBeLessThan(0.01);
    }
  });
});
