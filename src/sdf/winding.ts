/**
 * Winding numbers of a closed mesh by ray casting through its BVH.
 *
 * For a closed (watertight) surface the winding number at p is the signed
 * number of times a ray from p leaves it: +1 for each crossing of a triangle
 * whose outward normal points along the ray, -1 against. It is 1 inside an
 * ordinary solid and 0 outside; where parts overlap or nest it counts the
 * shells around p (2 inside two overlapping outward boxes), and an inside-out
 * part counts -1. src/sdf/solid.ts calls a point inside when the winding
 * number is not zero (the nonzero rule), so overlapping, nested and inverted
 * parts all enclose what they visibly enclose.
 *
 * The count is exact whatever direction the ray takes, except when the ray
 * grazes an edge or a vertex or runs inside a triangle's plane: such a ray is
 * thrown away and the next of a fixed list of directions tried (a point on the
 * surface itself has no winding number; callers step off the surface first).
 *
 * Cost: one BVH traversal per query (slab test per box), so tens of thousands
 * of queries per second for meshes of thousands of triangles.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { meshBounds } from '../geometry/mesh.ts';
import { buildTriangleBvh, type TriangleBvh } from './bvh.ts';
import { PREPARED_STRIDE } from './pointTriangle.ts';
import * as det from '../util/detmath.ts';

/** Barycentric margin within which a hit counts as grazing an edge (ambiguous). */
const EDGE_EPS = 1e-10;
/** Directions tried before giving up on a point. */
const DIRECTIONS = 24;

/** Unit directions: a scrambled Fibonacci sphere, none on an axis or a diagonal. */
const DIRS = (() => {
  const out = new Float64Array(3 * DIRECTIONS);
  for (let k = 0; k < DIRECTIONS; k++) {
    const j = (k * 7) % DIRECTIONS;
    const z = 1 - (2 * (j + 0.5)) / DIRECTIONS;
    const phi = 2.399963229728653 * j + 0.4;
    const s = Math.sqrt(1 - z * z);
    out[3 * k] = s * det.cos(phi);
    out[3 * k + 1] = s * det.sin(phi);
    out[3 * k + 2] = z;
  }
  return out;
})();

export class WindingQuery {
  private readonly bvh: TriangleBvh;
  private readonly stack: Int32Array;
  /** Hits closer than this mean the point is on the surface (no answer along that ray). */
  private readonly onSurface: number;

  constructor(mesh: TriMesh, bvh: TriangleBvh = buildTriangleBvh(mesh)) {
    this.bvh = bvh;
    this.stack = new Int32Array(2 * bvh.depth + 4);
    const b = meshBounds(mesh);
    this.onSurface = 1e-15 * Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]);
  }

  /**
   * The winding number at (x, y, z), or NaN when every ray was ambiguous (the
   * point lies on the surface).
   */
  at(x: number, y: number, z: number): number {
    for (let k = 0; k < DIRECTIONS; k++) {
      const w = this.along(x, y, z, DIRS[3 * k]!, DIRS[3 * k + 1]!, DIRS[3 * k + 2]!);
      if (w === w) return w;
    }
    return NaN;
  }

  /** Signed crossing count along one ray, or NaN when the ray is ambiguous. */
  private along(px: number, py: number, pz: number, dx: number, dy: number, dz: number): number {
    const { bounds, start, count, tris } = this.bvh;
    const ix = 1 / dx, iy = 1 / dy, iz = 1 / dz;
    const st = this.stack;
    let top = 0;
    st[top++] = 0;
    let w = 0;
    while (top > 0) {
      const node = st[--top]!;
      // Slab test: the ray (t >= 0) meets the node's box?
      const o = 6 * node;
      let t0 = (bounds[o]! - px) * ix, t1 = (bounds[o + 3]! - px) * ix;
      let lo = Math.min(t0, t1), hi = Math.max(t0, t1);
      t0 = (bounds[o + 1]! - py) * iy;
      t1 = (bounds[o + 4]! - py) * iy;
      lo = Math.max(lo, Math.min(t0, t1));
      hi = Math.min(hi, Math.max(t0, t1));
      t0 = (bounds[o + 2]! - pz) * iz;
      t1 = (bounds[o + 5]! - pz) * iz;
      lo = Math.max(lo, Math.min(t0, t1));
      hi = Math.min(hi, Math.max(t0, t1));
      // A little slack so rounding never drops a triangle that the ray touches.
      if (hi < 0 || lo > hi * (1 + 1e-12) + this.onSurface) continue;
      const c = count[node]!;
      if (c === 0) {
        st[top++] = start[node]!;
        st[top++] = start[node]! + 1;
        continue;
      }
      const s0 = start[node]!;
      for (let s = s0; s < s0 + c; s++) {
        const r = this.cross(tris, s * PREPARED_STRIDE, px, py, pz, dx, dy, dz);
        if (r !== r) return NaN;
        w += r;
      }
    }
    return w;
  }

  /** +1 / -1 when the ray leaves / enters through prepared triangle at `o`, 0 when it misses, NaN when ambiguous. */
  private cross(tris: Float64Array, o: number, px: number, py: number, pz: number, dx: number, dy: number, dz: number): number {
    const e1x = tris[o + 3]!, e1y = tris[o + 4]!, e1z = tris[o + 5]!;
    const e2x = tris[o + 6]!, e2y = tris[o + 7]!, e2z = tris[o + 8]!;
    // Moller-Trumbore: p + t d = a + u e1 + v e2.
    const qx = dy * e2z - dz * e2y, qy = dz * e2x - dx * e2z, qz = dx * e2y - dy * e2x;
    const det = e1x * qx + e1y * qy + e1z * qz;
    const tx = px - tris[o]!, ty = py - tris[o + 1]!, tz = pz - tris[o + 2]!;
    const nx = tris[o + 12]!, ny = tris[o + 13]!, nz = tris[o + 14]!;
    const scale = Math.sqrt(tris[o + 9]! * tris[o + 11]!);
    if (!(Math.abs(det) > 1e-12 * scale)) {
      // Parallel to the plane: only a ray inside the plane is a problem.
      return Math.abs(nx * tx + ny * ty + nz * tz) <= this.onSurface ? NaN : 0;
    }
    const inv = 1 / det;
    const u = (tx * qx + ty * qy + tz * qz) * inv;
    if (u < -EDGE_EPS || u > 1 + EDGE_EPS) return 0;
    const rx = ty * e1z - tz * e1y, ry = tz * e1x - tx * e1z, rz = tx * e1y - ty * e1x;
    const v = (dx * rx + dy * ry + dz * rz) * inv;
    if (v < -EDGE_EPS || u + v > 1 + EDGE_EPS) return 0;
    const t = (e2x * rx + e2y * ry + e2z * rz) * inv;
    if (t < -this.onSurface) return 0;
    if (t <= this.onSurface) return NaN;
    if (u < EDGE_EPS || v < EDGE_EPS || u + v > 1 - EDGE_EPS) return NaN;
    return dx * nx + dy * ny + dz * nz > 0 ? 1 : -1;
  }
}
