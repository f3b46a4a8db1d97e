/**
 * Self-intersections of a triangle mesh: every pair of triangles whose
 * surfaces cross, with the segment along which they cross, and every pair of
 * coplanar triangles whose interiors overlap (two parts touching face to face).
 * Candidates come from a BVH traversed against itself (boxes that overlap,
 * boxPairs.ts), so the pass costs O(T log T) plus a test per touching pair,
 * mostly the neighbours that share a vertex. That is quadratic around a vertex
 * of many triangles (a hub: a fan-triangulated cap, a polygon face fanned
 * from a corner), whose triangles are found by their directions from it
 * instead (hubPairs.ts), which tests every pair that could meet and finds
 * the same pairs (tests/sdf/hubPairs.test.ts).
 *
 * The test of one pair (A, B), not coplanar:
 *  - signed distances of A's corners to B's plane and of B's to A's, always
 *    computed by the same expression from the same numbers, so two
 *    triangles sharing a corner or an edge see it on the same side;
 *  - a corner exactly on the other plane counts as on its positive side (a
 *    symbolic perturbation): then a surface that merely touches a plane along
 *    an edge does not cross it, one that passes through it along an edge
 *    crosses it exactly once (through the one triangle whose far corner is
 *    on the other side), and corners shared by A and B need no special case;
 *  - if A has corners on both sides of B's plane and B on both sides of A's,
 *    each cuts the other's plane in a segment of the line where the planes
 *    meet; the overlap of the two segments, if it has positive length, is
 *    where the triangles cross.
 * Pairs that share an edge meet along it and are skipped; a shared corner
 * needs nothing special (see above). Nearly parallel planes (sin of the angle
 * below 1e-9) count as coplanar: their crossing line is ill-defined, and
 * they are reported as overlapping when their interiors overlap in the plane.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { buildTriangleBvh, type TriangleBvh } from './bvh.ts';
import { overlappingPairs, type PairVisitor } from './boxPairs.ts';
import { HUB_DEGREE, hubPairs, Hubs } from './hubPairs.ts';

export interface SelfIntersections {
  /** Crossing pairs, two mesh triangle indices each (lower index first). */
  pairs: number[];
  /** The crossing segment of each pair: x0 y0 z0 x1 y1 z1. */
  segments: number[];
  /** Coplanar pairs whose interiors overlap, two triangle indices each. */
  coplanar: number[];
  /** The search stopped at its limit of pairs (findSelfIntersections): there are more. */
  truncated: boolean;
}

/** sin^2 of the angle between two planes below which they count as parallel. */
const PARALLEL_SIN2 = 1e-18;

/**
 * `hubDegree`: more triangles than this around a vertex make it a hub
 * (HUB_DEGREE; the tests pass Infinity for the plain box traversal, the
 * reference the hub search must agree with).
 */
export function findSelfIntersections(
  mesh: TriMesh,
  bvh: TriangleBvh = buildTriangleBvh(mesh),
  hubDegree = HUB_DEGREE,
  limit = Infinity,
): SelfIntersections {
  const out: SelfIntersections = { pairs: [], segments: [], coplanar: [], truncated: false };
  const { bounds } = bvh;
  // Box overlap with a little slack, so triangles that touch are tested.
  let ext = 0;
  for (let k = 0; k < 3; k++) ext = Math.max(ext, bounds[3 + k]! - bounds[k]!);
  const slack = 1e-9 * ext;
  const tester = new PairTester(mesh, out, slack, limit);
  const hubs = new Hubs(mesh, hubDegree);
  try {
    if (hubs.count === 0) overlappingPairs(bvh, bvh, slack, tester);
    else hubPairs(mesh, hubs, bvh, tester.boxes, slack, tester);
  } catch (e) {
    if (e !== LIMIT_REACHED) throw e;
    out.truncated = true;
  }
  return out;
}

/** Thrown by PairTester past its limit, to leave the traversal (a million crossing pairs of a hostile mesh would take gigabytes). */
const LIMIT_REACHED = new Error('self-intersection limit reached');

/** One pair test, with scratch space reused across pairs. */
class PairTester implements PairVisitor {
  private readonly p: Float64Array;
  private readonly idx: Uint32Array;
  /** Per triangle: unnormalised normal (3) and its length. */
  private readonly normals: Float64Array;
  private readonly da = new Float64Array(3);
  private readonly db = new Float64Array(3);
  private readonly pts = new Float64Array(12);
  /** Per triangle: its box (min xyz, max xyz). */
  readonly boxes: Float64Array;

  constructor(mesh: TriMesh, private readonly out: SelfIntersections, private readonly slack: number, private readonly limit = Infinity) {
    this.p = mesh.positions;
    this.idx = mesh.indices;
    const nt = this.idx.length / 3;
    this.normals = new Float64Array(4 * nt);
    this.boxes = new Float64Array(6 * nt);
    const p = this.p;
    for (let t = 0; t < nt; t++) {
      const a = 3 * this.idx[3 * t]!, b = 3 * this.idx[3 * t + 1]!, c = 3 * this.idx[3 * t + 2]!;
      for (let k = 0; k < 3; k++) {
        this.boxes[6 * t + k] = Math.min(p[a + k]!, p[b + k]!, p[c + k]!);
        this.boxes[6 * t + 3 + k] = Math.max(p[a + k]!, p[b + k]!, p[c + k]!);
      }
      const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
      const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
      const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      this.normals[4 * t] = nx;
      this.normals[4 * t + 1] = ny;
      this.normals[4 * t + 2] = nz;
      this.normals[4 * t + 3] = Math.hypot(nx, ny, nz);
    }
  }

  /** After a pair is recorded: leaves the search once there are more than the limit. */
  private count(): void {
    if ((this.out.pairs.length + this.out.coplanar.length) / 2 > this.limit) throw LIMIT_REACHED;
  }

  visit(ta: number, tb: number): void {
    const idx = this.idx, box = this.boxes;
    // Triangle boxes first: most pairs of two overlapping leaves do not touch at all.
    for (let k = 0; k < 3; k++) {
      if (box[6 * ta + k]! > box[6 * tb + 3 + k]! + this.slack || box[6 * tb + k]! > box[6 * ta + 3 + k]! + this.slack) return;
    }
    let shared = 0;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) if (idx[3 * ta + i] === idx[3 * tb + j]) shared++;
    if (shared >= 2) return; // neighbours across an edge meet along it
    const n = this.normals, o = 4 * ta, q = 4 * tb;
    const cx = n[o + 1]! * n[q + 2]! - n[o + 2]! * n[q + 1]!;
    const cy = n[o + 2]! * n[q]! - n[o]! * n[q + 2]!;
    const cz = n[o]! * n[q + 1]! - n[o + 1]! * n[q]!;
    const lenA = n[o + 3]!, lenB = n[q + 3]!;
    if (cx * cx + cy * cy + cz * cz <= PARALLEL_SIN2 * lenA * lenA * lenB * lenB) {
      if (this.coplanarOverlap(ta, tb)) {
        this.out.coplanar.push(Math.min(ta, tb), Math.max(ta, tb));
        this.count();
      }
      return;
    }
    // Corner distances to the other plane (scaled by the other normal's length).
    if (!this.sides(ta, tb, this.da, shared)) return;
    if (!this.sides(tb, ta, this.db, shared)) return;
    // Each triangle cuts the other's plane in a segment; project both on the line direction.
    const pts = this.pts;
    this.cut(ta, this.da, pts, 0);
    this.cut(tb, this.db, pts, 6);
    let a0 = cx * pts[0]! + cy * pts[1]! + cz * pts[2]!, a1 = cx * pts[3]! + cy * pts[4]! + cz * pts[5]!;
    let b0 = cx * pts[6]! + cy * pts[7]! + cz * pts[8]!, b1 = cx * pts[9]! + cy * pts[10]! + cz * pts[11]!;
    let i0 = 0, i1 = 3, j0 = 6, j1 = 9;
    if (a0 > a1) {
      const t = a0; a0 = a1; a1 = t;
      i0 = 3; i1 = 0;
    }
    if (b0 > b1) {
      const t = b0; b0 = b1; b1 = t;
      j0 = 9; j1 = 6;
    }
    const lo = a0 > b0 ? i0 : j0;
    const hi = a1 < b1 ? i1 : j1;
    const tLo = Math.max(a0, b0), tHi = Math.min(a1, b1);
    // Positive length, relative to the two segments (a touch at a point is not a crossing).
    if (!(tHi - tLo > 1e-12 * Math.max(a1 - a0, b1 - b0))) return;
    this.out.pairs.push(Math.min(ta, tb), Math.max(ta, tb));
    this.out.segments.push(pts[lo]!, pts[lo + 1]!, pts[lo + 2]!, pts[hi]!, pts[hi + 1]!, pts[hi + 2]!);
    this.count();
  }

  /**
   * Distances of triangle t's corners to the plane of u (times |n_u|) into d;
   * false when t cannot cross that plane: all corners on one side (a corner
   * on the plane, or shared with u, counts as positive), or, when the two
   * triangles share a corner, t's other two corners on one side (t then meets
   * the plane only at the shared corner).
   */
  private sides(t: number, u: number, d: Float64Array, shared: number): boolean {
    const p = this.p, idx = this.idx, n = this.normals;
    const b = 3 * idx[3 * u]!;
    let pos = 0, neg = 0, otherPos = 0;
    for (let i = 0; i < 3; i++) {
      const v = idx[3 * t + i]!;
      let s = 0;
      const own = v === idx[3 * u] || v === idx[3 * u + 1] || v === idx[3 * u + 2];
      if (!own) {
        s = n[4 * u]! * (p[3 * v]! - p[b]!) + n[4 * u + 1]! * (p[3 * v + 1]! - p[b + 1]!) + n[4 * u + 2]! * (p[3 * v + 2]! - p[b + 2]!);
      }
      d[i] = s;
      if (s >= 0) {
        pos++;
        if (!own) otherPos++;
      } else neg++;
    }
    if (pos === 0 || neg === 0) return false;
    return shared === 0 || otherPos === 1;
  }

  /** The two points where triangle t's edges cross the other plane (corners on it count as positive), into out[o..o+5]. */
  private cut(t: number, d: Float64Array, out: Float64Array, o: number): void {
    const p = this.p, idx = this.idx;
    let k = o;
    for (let i = 0; i < 3; i++) {
      const j = i === 2 ? 0 : i + 1;
      const si = d[i]! >= 0, sj = d[j]! >= 0;
      if (si === sj) continue;
      // Interpolate from the positive end, so a corner exactly on the plane comes out exactly.
      const from = 3 * idx[3 * t + (si ? i : j)]!, to = 3 * idx[3 * t + (si ? j : i)]!;
      const df = si ? d[i]! : d[j]!, dt = si ? d[j]! : d[i]!;
      const s = df / (df - dt);
      out[k] = p[from]! + s * (p[to]! - p[from]!);
      out[k + 1] = p[from + 1]! + s * (p[to + 1]! - p[from + 1]!);
      out[k + 2] = p[from + 2]! + s * (p[to + 2]! - p[from + 2]!);
      k += 3;
    }
  }

  /**
   * Do two (nearly) coplanar triangles overlap with positive area? Their
   * planes must also coincide (not two parallel planes), within 1e-9 of the
   * triangles' size; then a 2D separating-axis test on the edges of both.
   */
  private coplanarOverlap(ta: number, tb: number): boolean {
    const p = this.p, idx = this.idx, n = this.normals;
    const len = n[4 * ta + 3]!;
    const nx = n[4 * ta]! / len, ny = n[4 * ta + 1]! / len, nz = n[4 * ta + 2]! / len;
    const a0 = 3 * idx[3 * ta]!;
    const size = Math.sqrt(len) + Math.sqrt(n[4 * tb + 3]!);
    for (let i = 0; i < 3; i++) {
      const v = 3 * idx[3 * tb + i]!;
      const dist = nx * (p[v]! - p[a0]!) + ny * (p[v + 1]! - p[a0 + 1]!) + nz * (p[v + 2]! - p[a0 + 2]!);
      if (Math.abs(dist) > 1e-9 * size) return false;
    }
    // 2D coordinates in the plane of A.
    const ax = Math.abs(nx), ay = Math.abs(ny), az = Math.abs(nz);
    const [u, v] = ax >= ay && ax >= az ? [1, 2] : ay >= az ? [2, 0] : [0, 1];
    const P: number[] = [];
    for (const t of [ta, tb]) for (let i = 0; i < 3; i++) P.push(p[3 * idx[3 * t + i]! + u]!, p[3 * idx[3 * t + i]! + v]!);
    // Separating axis: an edge normal of either triangle along which the projections overlap by at most rounding.
    for (let tri = 0; tri < 2; tri++) {
      for (let e = 0; e < 3; e++) {
        const i = 6 * tri + 2 * e, j = 6 * tri + 2 * ((e + 1) % 3);
        const ex = P[j]! - P[i]!, ey = P[j + 1]! - P[i + 1]!;
        const axx = -ey, axy = ex;
        let minA = Infinity, maxA = -Infinity, minB = Infinity, maxB = -Infinity;
        for (let k = 0; k < 3; k++) {
          const da = axx * P[2 * k]! + axy * P[2 * k + 1]!;
          const db = axx * P[6 + 2 * k]! + axy * P[6 + 2 * k + 1]!;
          minA = Math.min(minA, da); maxA = Math.max(maxA, da);
          minB = Math.min(minB, db); maxB = Math.max(maxB, db);
        }
        const tol = 1e-9 * (maxA - minA + maxB - minB);
        if (maxA <= minB + tol || maxB <= minA + tol) return false;
      }
    }
    return true;
  }
}
