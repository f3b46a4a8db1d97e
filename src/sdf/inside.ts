/**
 * Inside/outside by ray parity: an oracle for the SDF sign that shares no code
 * with the pseudonormal method (tests only; O(triangles) per query).
 *
 * A point is inside a closed mesh iff a ray from it crosses the surface an odd
 * number of times. A ray that grazes an edge or a vertex, or lies in a
 * triangle's plane, makes the count ambiguous; such a ray is thrown away and
 * another direction tried (the "jitter"). The answer is the majority vote of
 * VOTES unambiguous rays, so a single unlucky but undetected grazing hit cannot
 * flip it. Points on the surface (a hit at t ~ 0) have no defined answer; the
 * oracle reports them as outside and callers should exclude them.
 */
import { meshBounds, type TriMesh } from '../geometry/mesh.ts';
import * as det from '../util/detmath.ts';

const VOTES = 3;
const MAX_RAYS = 64;
/** Barycentric margin under which a hit counts as on an edge (ambiguous). */
const EDGE_EPS = 1e-9;

interface RayTable {
  /** Per triangle: v0 (3), e1 = v1 - v0 (3), e2 = v2 - v0 (3). */
  tri: Float64Array;
  /** Hits closer than this (relative to the mesh size) mean the point is on the surface. */
  onSurface: number;
}

const tables = new WeakMap<TriMesh, RayTable>();

function rayTable(mesh: TriMesh): RayTable {
  let t = tables.get(mesh);
  if (t) return t;
  const pos = mesh.positions;
  const idx = mesh.indices;
  const nt = idx.length / 3;
  const tri = new Float64Array(9 * nt);
  for (let i = 0; i < nt; i++) {
    const a = 3 * idx[3 * i]!;
    const b = 3 * idx[3 * i + 1]!;
    const c = 3 * idx[3 * i + 2]!;
    for (let k = 0; k < 3; k++) {
      tri[9 * i + k] = pos[a + k]!;
      tri[9 * i + 3 + k] = pos[b + k]! - pos[a + k]!;
      tri[9 * i + 6 + k] = pos[c + k]! - pos[a + k]!;
    }
  }
  const bb = meshBounds(mesh);
  const diag = Math.hypot(bb.max[0] - bb.min[0], bb.max[1] - bb.min[1], bb.max[2] - bb.min[2]);
  t = { tri, onSurface: 1e-12 * diag };
  tables.set(mesh, t);
  return t;
}

/**
 * Direction number k of MAX_RAYS: points of a Fibonacci sphere (evenly spread,
 * none on an axis, so none lines up with the axis-aligned faces procedural
 * meshes are full of), visited in a scrambled order (37 is coprime with 64) so
 * that consecutive tries point far apart.
 */
function direction(k: number, out: Float64Array): void {
  const j = (k * 37) % MAX_RAYS;
  const z = 1 - (2 * (j + 0.5)) / MAX_RAYS;
  const phi = 2.399963229728653 * j + 0.3; // golden angle steps
  const s = Math.sqrt(1 - z * z);
  out[0] = s * det.cos(phi);
  out[1] = s * det.sin(phi);
  out[2] = z;
}

/**
 * Crossing count of the ray p + t d (t > 0) with the mesh, or -1 when the ray
 * grazes an edge, vertex or triangle plane, or starts on the surface.
 */
function crossings(table: RayTable, px: number, py: number, pz: number, d: Float64Array): number {
  const tri = table.tri;
  const dx = d[0]!;
  const dy = d[1]!;
  const dz = d[2]!;
  const n = tri.length / 9;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const o = 9 * i;
    const e1x = tri[o + 3]!;
    const e1y = tri[o + 4]!;
    const e1z = tri[o + 5]!;
    const e2x = tri[o + 6]!;
    const e2y = tri[o + 7]!;
    const e2z = tri[o + 8]!;
    // Moller-Trumbore: solve p + t d = v0 + u e1 + v e2 by Cramer's rule.
    const qx = dy * e2z - dz * e2y;
    const qy = dz * e2x - dx * e2z;
    const qz = dx * e2y - dy * e2x;
    const det = e1x * qx + e1y * qy + e1z * qz;
    const tx = px - tri[o]!;
    const ty = py - tri[o + 1]!;
    const tz = pz - tri[o + 2]!;
    const scale = Math.sqrt((e1x * e1x + e1y * e1y + e1z * e1z) * (e2x * e2x + e2y * e2y + e2z * e2z));
    if (Math.abs(det) <= 1e-12 * scale) {
      // Ray parallel to the triangle's plane: harmless unless it lies in it.
      const nx = e1y * e2z - e1z * e2y;
      const ny = e1z * e2x - e1x * e2z;
      const nz = e1x * e2y - e1y * e2x;
      const nlen = Math.hypot(nx, ny, nz);
      if (nlen === 0 || Math.abs(nx * tx + ny * ty + nz * tz) / nlen <= table.onSurface) return -1;
      continue;
    }
    const inv = 1 / det;
    const u = (tx * qx + ty * qy + tz * qz) * inv;
    if (u < -EDGE_EPS || u > 1 + EDGE_EPS) continue;
    const rx = ty * e1z - tz * e1y;
    const ry = tz * e1x - tx * e1z;
    const rz = tx * e1y - ty * e1x;
    const v = (dx * rx + dy * ry + dz * rz) * inv;
    if (v < -EDGE_EPS || u + v > 1 + EDGE_EPS) continue;
    const t = (e2x * rx + e2y * ry + e2z * rz) * inv;
    if (t < -table.onSurface) continue;
    if (t <= table.onSurface) return -1; // starts on the surface
    if (u < EDGE_EPS || v < EDGE_EPS || u + v > 1 - EDGE_EPS) return -1; // grazes an edge or vertex
    count++;
  }
  return count;
}

const dir = new Float64Array(3);

/**
 * True when (x, y, z) is inside the closed mesh, by a majority vote of ray
 * crossing parities over several directions. Points within ~1e-12 of the
 * mesh size from the surface are reported outside (undefined there).
 */
export function insideByRayParity(mesh: TriMesh, x: number, y: number, z: number): boolean {
  const table = rayTable(mesh);
  let inside = 0;
  let votes = 0;
  for (let k = 0; k < MAX_RAYS && votes < VOTES; k++) {
    direction(k, dir);
    const c = crossings(table, x, y, z, dir);
    if (c < 0) continue;
    votes++;
    if (c % 2 === 1) inside++;
  }
  return votes > 0 && 2 * inside > votes;
}
