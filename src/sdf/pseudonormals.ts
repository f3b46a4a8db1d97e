/**
 * Angle-weighted pseudonormals (Baerentzen & Aanaes 2002; seed eq. 3.1-3.3)
 * that sign the distance to a closed, consistently oriented mesh: a point p
 * with closest surface point c on feature F is outside iff
 * dot(p - c, n_F) > 0, where n_F is
 *  - for a face interior: the face normal;
 *  - for an edge: the sum of the normals of its two faces (3.1);
 *  - for a vertex: the sum over incident faces of the face normal times the
 *    face's angle at that vertex (3.2, 3.3).
 * Edge and vertex pseudonormals are stored once per edge / vertex and copied
 * to every triangle that shares them, so whichever of several equidistant
 * triangles wins the closest-point search, the same feature gets the same
 * normal and the sign does not depend on the tie.
 *
 * GPU triangle table (`packTriangleTable`), consumed as is by the GPU bake
 * (src/gpu/sdfBakePass.ts): TRIANGLE_TABLE_ROWS = 10 rows of vec4f per
 * triangle, triangle t starting at float 40 * t:
 *   row 0  a         vertex A position (xyz), w = 0
 *   row 1  b         vertex B position, w = 0
 *   row 2  c         vertex C position, w = 0
 *   row 3  faceN     unit face normal (right-hand rule on a, b, c), w = 0
 *   row 4  edgeN_ab  unit pseudonormal of edge AB, w = 0
 *   row 5  edgeN_bc  unit pseudonormal of edge BC, w = 0
 *   row 6  edgeN_ca  unit pseudonormal of edge CA, w = 0
 *   row 7  vertN_a   unit angle-weighted pseudonormal of vertex A, w = 0
 *   row 8  vertN_b   unit pseudonormal of vertex B, w = 0
 *   row 9  vertN_c   unit pseudonormal of vertex C, w = 0
 * The row order matches the feature codes of pointTriangle.ts: feature f in
 * 0..6 uses row 3 + f. Normals are unit length (zero for a zero-area face or
 * a feature whose normals cancel); only their direction matters for the sign.
 * In WGSL: `array<vec4f>` with 10 entries per triangle, 160 bytes each.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { meshEdges } from '../geometry/edges.ts';
import * as det from '../util/detmath.ts';

export const TRIANGLE_TABLE_ROWS = 10;
export const TRIANGLE_TABLE_FLOATS = 4 * TRIANGLE_TABLE_ROWS;

export interface MeshPseudonormals {
  /** Unit face normal, 3 per triangle. */
  faceNormals: Float64Array;
  /** Unit edge pseudonormals, 9 per triangle: edges AB, BC, CA (shared edges hold identical values). */
  edgeNormals: Float64Array;
  /** Unit angle-weighted vertex pseudonormals, 3 per vertex. */
  vertexNormals: Float64Array;
}

export function computePseudonormals(mesh: TriMesh): MeshPseudonormals {
  const pos = mesh.positions;
  const idx = mesh.indices;
  const nt = idx.length / 3;
  const nv = pos.length / 3;
  const faceNormals = new Float64Array(3 * nt);
  const vertexSum = new Float64Array(3 * nv);
  // Edge id per triangle side, in the order the edges first appear.
  const { edges, edgeOf } = meshEdges(idx, nv);
  const edgeSum = new Float64Array(edges.length / 2 * 3);

  for (let t = 0; t < nt; t++) {
    const i0 = idx[3 * t]!;
    const i1 = idx[3 * t + 1]!;
    const i2 = idx[3 * t + 2]!;
    const ax = pos[3 * i0]!;
    const ay = pos[3 * i0 + 1]!;
    const az = pos[3 * i0 + 2]!;
    const bx = pos[3 * i1]!;
    const by = pos[3 * i1 + 1]!;
    const bz = pos[3 * i1 + 2]!;
    const cx = pos[3 * i2]!;
    const cy = pos[3 * i2 + 1]!;
    const cz = pos[3 * i2 + 2]!;
    let nx = (by - ay) * (cz - az) - (bz - az) * (cy - ay);
    let ny = (bz - az) * (cx - ax) - (bx - ax) * (cz - az);
    let nz = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    const len = Math.hypot(nx, ny, nz);
    if (len > 0) {
      nx /= len;
      ny /= len;
      nz /= len;
    } else {
      nx = ny = nz = 0;
    }
    faceNormals[3 * t] = nx;
    faceNormals[3 * t + 1] = ny;
    faceNormals[3 * t + 2] = nz;

    // Angles at each corner (atan2 of |u x v| and u.v is accurate for thin triangles too).
    const wa = cornerAngle(bx - ax, by - ay, bz - az, cx - ax, cy - ay, cz - az);
    const wb = cornerAngle(cx - bx, cy - by, cz - bz, ax - bx, ay - by, az - bz);
    const wc = Math.max(0, Math.PI - wa - wb);
    addScaled(vertexSum, i0, wa, nx, ny, nz);
    addScaled(vertexSum, i1, wb, nx, ny, nz);
    addScaled(vertexSum, i2, wc, nx, ny, nz);

    for (let e = 0; e < 3; e++) {
      const id = edgeOf[3 * t + e]!;
      edgeSum[3 * id] += nx;
      edgeSum[3 * id + 1] += ny;
      edgeSum[3 * id + 2] += nz;
    }
  }

  normaliseRows(edgeSum);
  normaliseRows(vertexSum);
  const edgeNormals = new Float64Array(9 * nt);
  for (let s = 0; s < 3 * nt; s++) {
    const id = edgeOf[s]!;
    edgeNormals[3 * s] = edgeSum[3 * id]!;
    edgeNormals[3 * s + 1] = edgeSum[3 * id + 1]!;
    edgeNormals[3 * s + 2] = edgeSum[3 * id + 2]!;
  }
  return { faceNormals, edgeNormals, vertexNormals: vertexSum };
}

/**
 * The pseudonormal of `feature` (a pointTriangle.ts FEATURE_* code) of triangle
 * t, written to out[0..2].
 */
export function featureNormal(
  mesh: TriMesh,
  pn: MeshPseudonormals,
  t: number,
  feature: number,
  out: Float64Array,
): void {
  let src: Float64Array;
  let o: number;
  if (feature === 0) {
    src = pn.faceNormals;
    o = 3 * t;
  } else if (feature <= 3) {
    src = pn.edgeNormals;
    o = 9 * t + 3 * (feature - 1);
  } else {
    src = pn.vertexNormals;
    o = 3 * mesh.indices[3 * t + feature - 4]!;
  }
  out[0] = src[o]!;
  out[1] = src[o + 1]!;
  out[2] = src[o + 2]!;
}

/** The flat per-triangle table for the GPU bake; layout in the comment at the top of this file. */
export function packTriangleTable(mesh: TriMesh, pn: MeshPseudonormals = computePseudonormals(mesh)): Float32Array {
  const pos = mesh.positions;
  const idx = mesh.indices;
  const nt = idx.length / 3;
  const out = new Float32Array(nt * TRIANGLE_TABLE_FLOATS);
  for (let t = 0; t < nt; t++) {
    const o = t * TRIANGLE_TABLE_FLOATS;
    for (let k = 0; k < 3; k++) {
      const v = idx[3 * t + k]!;
      out[o + 4 * k] = pos[3 * v]!;
      out[o + 4 * k + 1] = pos[3 * v + 1]!;
      out[o + 4 * k + 2] = pos[3 * v + 2]!;
      // row 7 + k: vertex pseudonormal
      out[o + 28 + 4 * k] = pn.vertexNormals[3 * v]!;
      out[o + 28 + 4 * k + 1] = pn.vertexNormals[3 * v + 1]!;
      out[o + 28 + 4 * k + 2] = pn.vertexNormals[3 * v + 2]!;
      // row 4 + k: edge pseudonormal (AB, BC, CA)
      out[o + 16 + 4 * k] = pn.edgeNormals[9 * t + 3 * k]!;
      out[o + 16 + 4 * k + 1] = pn.edgeNormals[9 * t + 3 * k + 1]!;
      out[o + 16 + 4 * k + 2] = pn.edgeNormals[9 * t + 3 * k + 2]!;
    }
    // row 3: face normal
    out[o + 12] = pn.faceNormals[3 * t]!;
    out[o + 13] = pn.faceNormals[3 * t + 1]!;
    out[o + 14] = pn.faceNormals[3 * t + 2]!;
  }
  return out;
}

function cornerAngle(ux: number, uy: number, uz: number, vx: number, vy: number, vz: number): number {
  const cx = uy * vz - uz * vy;
  const cy = uz * vx - ux * vz;
  const cz = ux * vy - uy * vx;
  return det.atan2(Math.hypot(cx, cy, cz), ux * vx + uy * vy + uz * vz);
}

function addScaled(sum: Float64Array, v: number, w: number, nx: number, ny: number, nz: number): void {
  sum[3 * v] += w * nx;
  sum[3 * v + 1] += w * ny;
  sum[3 * v + 2] += w * nz;
}

function normaliseRows(a: Float64Array): void {
  for (let i = 0; i < a.length; i += 3) {
    const len = Math.hypot(a[i]!, a[i + 1]!, a[i + 2]!);
    if (len > 0) {
      a[i] /= len;
      a[i + 1] /= len;
      a[i + 2] /= len;
    }
  }
}
