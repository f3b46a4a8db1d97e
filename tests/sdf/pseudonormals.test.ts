/**
 * Angle-weighted pseudonormals (Baerentzen & Aanaes) and the GPU triangle
 * table layout. The box is the sharp test: each corner touches one or two
 * triangles per face, so an unweighted average of incident triangle normals
 * would tilt the corner normal, while angle weighting gives exactly
 * (+-1, +-1, +-1)/sqrt(3).
 */
import { describe, expect, it } from 'vitest';
import { boxMesh, torusMesh } from '../../src/geometry/shapes.ts';
import type { TriMesh } from '../../src/geometry/mesh.ts';
import {
  computePseudonormals,
  featureNormal,
  packTriangleTable,
  TRIANGLE_TABLE_FLOATS,
  TRIANGLE_TABLE_ROWS,
} from '../../src/sdf/pseudonormals.ts';
import { FEATURE_EDGE_AB, FEATURE_EDGE_BC, FEATURE_EDGE_CA, FEATURE_FACE, FEATURE_VERTEX_A } from '../../src/sdf/pointTriangle.ts';

function vertex(m: TriMesh, v: number): [number, number, number] {
  return [m.positions[3 * v]!, m.positions[3 * v + 1]!, m.positions[3 * v + 2]!];
}

describe('pseudonormals', () => {
  const box = boxMesh([2, 1, 0.5]);
  const pn = computePseudonormals(box);

  it('gives a box corner the exact diagonal normal (angle weighting, not triangle counting)', () => {
    for (let v = 0; v < 8; v++) {
      const p = vertex(box, v);
      for (let k = 0; k < 3; k++) {
        expect(pn.vertexNormals[3 * v + k]!).toBeCloseTo(Math.sign(p[k]!) / Math.sqrt(3), 14);
      }
    }
  });

  it('gives a box face its axis normal and an edge the normalised sum of its two faces', () => {
    const nt = box.indices.length / 3;
    let sharp = 0;
    let diagonal = 0;
    for (let t = 0; t < nt; t++) {
      const fn = [pn.faceNormals[3 * t]!, pn.faceNormals[3 * t + 1]!, pn.faceNormals[3 * t + 2]!];
      // Axis-aligned unit normal pointing away from the centre.
      expect(fn.map(Math.abs).sort()).toEqual([0, 0, 1]);
      const c = [0, 1, 2].map((k) => [0, 1, 2].reduce((s, i) => s + vertex(box, box.indices[3 * t + i]!)[k]!, 0));
      expect(fn[0]! * c[0]! + fn[1]! * c[1]! + fn[2]! * c[2]!).toBeGreaterThan(0);
      for (let e = 0; e < 3; e++) {
        const en = [0, 1, 2].map((k) => pn.edgeNormals[9 * t + 3 * e + k]!);
        const along = en.map((x, k) => x * fn[k]!).reduce((s, x) => s + x, 0);
        if (Math.abs(along - 1) < 1e-12) {
          diagonal++; // the diagonal splitting a face: both triangles share the face normal
        } else {
          sharp++;
          // A box edge: two perpendicular faces, pseudonormal at 45 degrees to each.
          expect(along).toBeCloseTo(Math.SQRT1_2, 14);
          expect(en.filter((x) => Math.abs(Math.abs(x) - Math.SQRT1_2) < 1e-14).length).toBe(2);
        }
      }
    }
    // 12 box edges seen from 2 triangles each, 6 face diagonals seen twice.
    expect(sharp).toBe(24);
    expect(diagonal).toBe(12);
  });

  it('stores one value per shared edge, identical in both triangles', () => {
    const m = torusMesh(1, 0.3, 12, 6);
    const p = computePseudonormals(m);
    const seen = new Map<string, number[]>();
    const nt = m.indices.length / 3;
    for (let t = 0; t < nt; t++) {
      for (let e = 0; e < 3; e++) {
        const a = m.indices[3 * t + e]!;
        const b = m.indices[3 * t + ((e + 1) % 3)]!;
        const key = a < b ? `${a},${b}` : `${b},${a}`;
        const n = [0, 1, 2].map((k) => p.edgeNormals[9 * t + 3 * e + k]!);
        const prev = seen.get(key);
        if (prev) expect(n).toEqual(prev);
        else seen.set(key, n);
        expect(Math.hypot(n[0]!, n[1]!, n[2]!)).toBeCloseTo(1, 14);
      }
    }
    expect(seen.size).toBe((3 * nt) / 2);
  });

  it('featureNormal picks the face, edge or vertex normal by feature code', () => {
    const out = new Float64Array(3);
    const t = 5;
    featureNormal(box, pn, t, FEATURE_FACE, out);
    expect([...out]).toEqual([...pn.faceNormals.subarray(3 * t, 3 * t + 3)]);
    for (const [code, e] of [[FEATURE_EDGE_AB, 0], [FEATURE_EDGE_BC, 1], [FEATURE_EDGE_CA, 2]] as const) {
      featureNormal(box, pn, t, code, out);
      expect([...out]).toEqual([...pn.edgeNormals.subarray(9 * t + 3 * e, 9 * t + 3 * e + 3)]);
    }
    for (let k = 0; k < 3; k++) {
      featureNormal(box, pn, t, FEATURE_VERTEX_A + k, out);
      const v = box.indices[3 * t + k]!;
      expect([...out]).toEqual([...pn.vertexNormals.subarray(3 * v, 3 * v + 3)]);
    }
  });

  it('packs the GPU triangle table as 10 vec4f rows per triangle in the documented order', () => {
    const table = packTriangleTable(box, pn);
    const nt = box.indices.length / 3;
    expect(TRIANGLE_TABLE_ROWS).toBe(10);
    expect(TRIANGLE_TABLE_FLOATS).toBe(40);
    expect(table.length).toBe(nt * 40);
    const out = new Float64Array(3);
    for (let t = 0; t < nt; t++) {
      const row = (r: number): number[] => [...table.subarray(40 * t + 4 * r, 40 * t + 4 * r + 4)];
      for (let k = 0; k < 3; k++) expect(row(k)).toEqual([...vertex(box, box.indices[3 * t + k]!), 0]);
      // Feature f's pseudonormal sits in row 3 + f.
      for (let f = 0; f <= 6; f++) {
        featureNormal(box, pn, t, f, out);
        expect(row(3 + f)).toEqual([...Float32Array.from(out), 0]);
      }
    }
  });
});
