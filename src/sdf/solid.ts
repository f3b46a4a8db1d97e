/**
 * What a closed mesh encloses, when that is more than "the inside of one
 * outward surface": parts that cross each other, parts nested inside others,
 * parts that touch face to face, a vertex pushed through the opposite face.
 *
 * The solid is taken as every point whose winding number is not zero
 * (winding.ts): the union of everything the surface wraps, counted once (two
 * overlapping unit cubes offset by half a side: 1.875, not the 2.0 the
 * divergence theorem gives; a cube inside a cube: the outer one, not the sum
 * of both; an inside-out part: the space it wraps). Its boundary is the part of
 * the mesh with a different answer on its two sides; the rest (surfaces
 * inside the solid, or walls shared by two touching parts) bounds nothing.
 *
 * `analyseSolid`:
 *  1. finds crossing and coplanar-overlapping triangle pairs (intersect.ts);
 *  2. groups the other triangles into patches connected across edges; no
 *     other surface crosses a patch, so the winding number just in front of
 *     and just behind it is the same all over it, and one query pair
 *     classifies the whole patch;
 *  3. cuts each crossed triangle along its crossing segments (and along the
 *     edges of coplanar partners): a piece cut by one straight line through
 *     it is split exactly along that line; elsewhere (where segments meet or
 *     end) it is quartered, down to MAX_DEPTH levels, and each final piece
 *     is classified at its centroid;
 *  4. weights every piece by [in(w_back) - in(w_front)] / (w_back - w_front)
 *     (in(w) = 1 when w is not zero): +1 for ordinary boundary, 0 for surface
 *     inside or outside the solid, -1 for boundary facing into the solid
 *     (flipped), 1/2 each for two coincident copies of one face.
 * The weighted pieces form the boundary: a triangle soup, outward, whose
 * divergence-theorem integrals are the solid's exact mass properties (up to
 * the pieces of the last subdivision level, a 2^-16 of a triangle wide, next
 * to points where crossing curves meet) and whose distance field, signed by
 * the winding number, is the body's SDF (`signByWinding`).
 *
 * An ordinary mesh (nothing crosses or overlaps, every patch has winding 1
 * behind it and 0 in front) comes back as `simple`: its mesh is its boundary
 * and the exact pseudonormal SDF applies. The analysis costs a BVH
 * self-traversal and two winding queries per patch, a few milliseconds for
 * thousands of triangles.
 */
import type { TriMesh, Vec3 } from '../geometry/mesh.ts';
import { DisjointSets } from '../geometry/disjointSets.ts';
import { buildTriangleBvh } from './bvh.ts';
import type { SdfGrid } from './grid.ts';
import { HUB_DEGREE } from './hubPairs.ts';
import { findSelfIntersections } from './intersect.ts';
import { massFromMesh, massFromWeightedTriangles, type MassProperties } from './mass.ts';
import { WindingQuery } from './winding.ts';

/** Quartering levels for pieces next to points where crossing segments meet or end. */
const MAX_DEPTH = 16;
/**
 * Pieces the cutting of all crossed triangles may classify (two winding
 * queries each), shared evenly among them: a triangle crossed so often that
 * its next level of quarters would pass its share stops quartering there,
 * and its pieces still straddling a crossing are classified at their centres
 * (SolidAnalysis.coarse). Twenty unit cubes turned every way about one point
 * (240 triangles, 8 360 crossing pairs, thousands of points where crossings
 * meet in each triangle) took 6 minutes and 20 000 such cubes ran out of
 * memory without it.
 */
const PIECE_BUDGET = 500_000;
/**
 * Crossing (and overlapping coplanar) triangle pairs beyond which a mesh is
 * refused as too tangled to analyse (TangledMeshError): the pairs' segments
 * alone would take gigabytes for a soup of thousands of overlapping parts.
 */
export const MAX_SELF_INTERSECTIONS = 100_000;

/** A mesh that crosses itself in more than MAX_SELF_INTERSECTIONS pairs of triangles. */
export class TangledMeshError extends Error {
  override name = 'TangledMeshError';
}
/** Offset of a query point from the surface, relative to the piece classified. */
const OFFSET_REL = 1e-6;

export interface SolidAnalysis {
  /** An ordinary closed solid (see the file comment): the mesh is its own boundary. */
  simple: boolean;
  /** Pairs of triangles whose surfaces cross. */
  crossings: number;
  /** Pairs of coplanar triangles that overlap (parts touching face to face). */
  coplanarOverlaps: number;
  /** A crossing (or overlap) to name in messages: two triangles and a point where they meet. */
  example: { a: number; b: number; point: Vec3 } | null;
  /** Patches of surface that bound nothing (inside the solid, or shared walls). */
  innerPatches: number;
  /** Patches that face into the solid (an inside-out part), counted flipped. */
  invertedPatches: number;
  /** Crossed triangles cut more coarsely than the rest, their pieces limited by PIECE_BUDGET. */
  coarse: number;
  /** Outward boundary of the solid: the mesh itself when simple, else a triangle soup. */
  boundary: TriMesh;
  /** Weight of each boundary triangle in the mass integrals (null: all 1). */
  weights: Float64Array | null;
  mass: MassProperties;
}

/** The winding number just behind (in) and in front of (out) a surface point. */
interface Sides {
  inside: number;
  outside: number;
}

export function analyseSolid(mesh: TriMesh): SolidAnalysis {
  const bvh = buildTriangleBvh(mesh);
  const hits = findSelfIntersections(mesh, bvh, HUB_DEGREE, MAX_SELF_INTERSECTIONS);
  if (hits.truncated) {
    throw new TangledMeshError(
      `the mesh intersects itself in more than ${MAX_SELF_INTERSECTIONS} pairs of triangles, too tangled to tell what it encloses; ` +
        'join its overlapping parts into one surface first (a boolean union in a mesh editor), or give each part a body of its own',
    );
  }
  const winding = new WindingQuery(mesh, bvh);
  const p = mesh.positions;
  const idx = mesh.indices;
  const nt = idx.length / 3;

  // Segments cutting each triangle (3D endpoints), from crossings and coplanar partners.
  const cuts = new Map<number, number[]>();
  const addCut = (t: number, seg: ArrayLike<number>): void => {
    let list = cuts.get(t);
    if (!list) cuts.set(t, (list = []));
    for (let k = 0; k < 6; k++) list.push(seg[k]!);
  };
  for (let i = 0; i < hits.pairs.length; i += 2) {
    const seg = hits.segments.slice(3 * i, 3 * i + 6);
    addCut(hits.pairs[i]!, seg);
    addCut(hits.pairs[i + 1]!, seg);
  }
  for (let i = 0; i < hits.coplanar.length; i += 2) {
    const a = hits.coplanar[i]!, b = hits.coplanar[i + 1]!;
    for (const [t, u] of [[a, b], [b, a]] as const) {
      for (let e = 0; e < 3; e++) {
        const v0 = 3 * idx[3 * u + e]!, v1 = 3 * idx[3 * u + (e + 1) % 3]!;
        addCut(t, [p[v0]!, p[v0 + 1]!, p[v0 + 2]!, p[v1]!, p[v1 + 1]!, p[v1 + 2]!]);
      }
    }
  }
  let example: SolidAnalysis['example'] = null;
  if (hits.pairs.length > 0) {
    const s = hits.segments;
    example = { a: hits.pairs[0]!, b: hits.pairs[1]!, point: [(s[0]! + s[3]!) / 2, (s[1]! + s[4]!) / 2, (s[2]! + s[5]!) / 2] };
  } else if (hits.coplanar.length > 0) {
    const t = hits.coplanar[0]!;
    const c: Vec3 = [0, 0, 0];
    for (let k = 0; k < 3; k++) for (let c3 = 0; c3 < 3; c3++) c[c3] += p[3 * idx[3 * t + k]! + c3]! / 3;
    example = { a: t, b: hits.coplanar[1]!, point: c };
  }

  // Patches: the uncut triangles, connected across shared edges (found through
  // each vertex's list of triangles, typed arrays only: a million triangles
  // would spend seconds in a Map of edges). An edge's neighbours are looked
  // for around its end with fewer triangles: from the corner a cap of 20 000
  // triangles is fanned from, its 20 000 edges each scanned all 20 000 (2.9 s
  // for a fan-capped cylinder of 80 000 triangles; 0.01 s from the other end).
  const sets = new DisjointSets(nt);
  const find = (t: number): number => sets.find(t);
  const nv = p.length / 3;
  const first = new Int32Array(nv + 1);
  for (let i = 0; i < idx.length; i++) first[idx[i]! + 1]++;
  for (let v = 0; v < nv; v++) first[v + 1] += first[v]!;
  const fill = first.slice(0, nv);
  const around = new Int32Array(idx.length);
  for (let i = 0; i < idx.length; i++) around[fill[idx[i]!]!++] = (i / 3) | 0;
  for (let t = 0; t < nt; t++) {
    if (cuts.has(t)) continue;
    for (let k = 0; k < 3; k++) {
      let a = idx[3 * t + k]!, b = idx[3 * t + (k === 2 ? 0 : k + 1)]!;
      if (first[a + 1]! - first[a]! > first[b + 1]! - first[b]!) {
        const c = a;
        a = b;
        b = c;
      }
      for (let i = first[a]!; i < first[a + 1]!; i++) {
        const u = around[i]!;
        if (u <= t || cuts.has(u)) continue;
        if (idx[3 * u] === b || idx[3 * u + 1] === b || idx[3 * u + 2] === b) sets.union(t, u);
      }
    }
  }
  // Representative of each patch: its largest triangle (the most room around its centroid).
  const area = new Float64Array(nt);
  for (let t = 0; t < nt; t++) area[t] = triArea(p, idx, t);
  const best = new Int32Array(nt).fill(-1);
  for (let t = 0; t < nt; t++) {
    if (cuts.has(t)) continue;
    const r = find(t);
    if (best[r]! < 0 || area[t]! > area[best[r]!]!) best[r] = t;
  }
  const rep = new Map<number, number>();
  for (let r = 0; r < nt; r++) if (best[r]! >= 0) rep.set(r, best[r]!);
  const classifier = new Classifier(winding);
  const patchWeight = new Map<number, number>();
  let ordinary = cuts.size === 0;
  let innerPatches = 0;
  let invertedPatches = 0;
  for (const [root, t] of rep) {
    const s = classifier.sidesOfTriangle(p, idx, t);
    if (!(s.inside === 1 && s.outside === 0)) ordinary = false;
    const w = weight(s);
    if (w === 0) innerPatches++;
    if (w < 0) invertedPatches++;
    patchWeight.set(root, w);
  }
  const base = { crossings: hits.pairs.length / 2, coplanarOverlaps: hits.coplanar.length / 2, example, innerPatches, invertedPatches, coarse: 0 };
  if (ordinary) return { simple: true, ...base, boundary: mesh, weights: null, mass: massFromMesh(mesh) };

  const soup = new Soup();
  for (let t = 0; t < nt; t++) {
    if (cuts.has(t)) continue;
    const w = patchWeight.get(find(t))!;
    if (w === 0) continue;
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
    soup.add(p[a]!, p[a + 1]!, p[a + 2]!, p[b]!, p[b + 1]!, p[b + 2]!, p[c]!, p[c + 1]!, p[c + 2]!, w);
  }
  const share = Math.max(64, Math.floor(PIECE_BUDGET / Math.max(1, cuts.size)));
  for (const [t, segs] of cuts) if (!new TriangleCutter(p, idx, t, segs, classifier, soup).run(share)) base.coarse++;
  const boundary = soup.mesh();
  const weights = Float64Array.from(soup.weights);
  return { simple: false, ...base, boundary, weights, mass: massFromWeightedTriangles(boundary, weights) };
}

/** [in(w_back) - in(w_front)] / (w_back - w_front), in(w) = (w != 0); 0 when both sides agree. */
function weight(s: Sides): number {
  if (s.inside === s.outside) return 0;
  const inB = s.inside !== 0 ? 1 : 0;
  const inF = s.outside !== 0 ? 1 : 0;
  return (inB - inF) / (s.inside - s.outside);
}

function triArea(p: Float64Array, idx: Uint32Array, t: number): number {
  const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
  const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
  const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}

/** Winding numbers on both sides of a surface point, a small step off it. */
class Classifier {
  constructor(private readonly winding: WindingQuery) {}

  /** At point x on a surface with unit normal n; `size` is the extent of the piece classified. */
  sides(x: number, y: number, z: number, nx: number, ny: number, nz: number, size: number): Sides {
    let d = OFFSET_REL * size;
    for (let attempt = 0; attempt < 4; attempt++, d *= 8) {
      const outside = this.winding.at(x + d * nx, y + d * ny, z + d * nz);
      const inside = this.winding.at(x - d * nx, y - d * ny, z - d * nz);
      if (outside === outside && inside === inside) return { inside, outside };
    }
    // Every ray grazed something at every offset: take it as ordinary boundary.
    return { inside: 1, outside: 0 };
  }

  sidesOfTriangle(p: Float64Array, idx: Uint32Array, t: number): Sides {
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
    const ux = p[b]! - p[a]!, uy = p[b + 1]! - p[a + 1]!, uz = p[b + 2]! - p[a + 2]!;
    const vx = p[c]! - p[a]!, vy = p[c + 1]! - p[a + 1]!, vz = p[c + 2]! - p[a + 2]!;
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const len = Math.hypot(nx, ny, nz);
    const cx = (p[a]! + p[b]! + p[c]!) / 3, cy = (p[a + 1]! + p[b + 1]! + p[c + 1]!) / 3, cz = (p[a + 2]! + p[b + 2]! + p[c + 2]!) / 3;
    return this.sides(cx, cy, cz, nx / len, ny / len, nz / len, Math.sqrt(0.5 * len));
  }
}

/** Weighted triangles, unshared vertices (only distances and integrals are taken of them). */
class Soup {
  private readonly pos: number[] = [];
  readonly weights: number[] = [];

  /** Adds triangle abc with weight w; a negative weight adds it flipped with |w|. */
  add(ax: number, ay: number, az: number, bx: number, by: number, bz: number, cx: number, cy: number, cz: number, w: number): void {
    if (w > 0) this.pos.push(ax, ay, az, bx, by, bz, cx, cy, cz);
    else this.pos.push(ax, ay, az, cx, cy, cz, bx, by, bz);
    this.weights.push(Math.abs(w));
  }

  mesh(): TriMesh {
    const positions = Float64Array.from(this.pos);
    const indices = new Uint32Array(positions.length / 3);
    for (let i = 0; i < indices.length; i++) indices[i] = i;
    return { positions, indices };
  }
}

/**
 * Cuts one triangle along its segments (file comment, step 3), in the
 * triangle's own coordinates (s, t): x = a + s (b - a) + t (c - a), the
 * triangle being s, t >= 0, s + t <= 1. Pieces are kept counter-clockwise in
 * (s, t), which is the triangle's own orientation in space.
 */
class TriangleCutter {
  private readonly a: Vec3;
  private readonly e1: Vec3;
  private readonly e2: Vec3;
  private readonly n: Vec3;
  /** |e1 x e2|: 3D area of a unit of (s, t) area, times 2. */
  private readonly jac: number;
  /** Segments in (s, t): s0 t0 s1 t1. */
  private readonly segs: number[] = [];

  constructor(
    p: Float64Array,
    idx: Uint32Array,
    t: number,
    segs3: number[],
    private readonly classifier: Classifier,
    private readonly soup: Soup,
  ) {
    const ia = 3 * idx[3 * t]!, ib = 3 * idx[3 * t + 1]!, ic = 3 * idx[3 * t + 2]!;
    this.a = [p[ia]!, p[ia + 1]!, p[ia + 2]!];
    this.e1 = [p[ib]! - p[ia]!, p[ib + 1]! - p[ia + 1]!, p[ib + 2]! - p[ia + 2]!];
    this.e2 = [p[ic]! - p[ia]!, p[ic + 1]! - p[ia + 1]!, p[ic + 2]! - p[ia + 2]!];
    const [ux, uy, uz] = this.e1, [vx, vy, vz] = this.e2;
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    this.jac = Math.hypot(nx, ny, nz);
    this.n = [nx / this.jac, ny / this.jac, nz / this.jac];
    // (s, t) of a 3D point: least squares through the Gram matrix.
    const g11 = ux * ux + uy * uy + uz * uz, g12 = ux * vx + uy * vy + uz * vz, g22 = vx * vx + vy * vy + vz * vz;
    const det = g11 * g22 - g12 * g12;
    const st = (x: number, y: number, z: number): [number, number] => {
      const dx = x - this.a[0], dy = y - this.a[1], dz = z - this.a[2];
      const r1 = ux * dx + uy * dy + uz * dz, r2 = vx * dx + vy * dy + vz * dz;
      return [(g22 * r1 - g12 * r2) / det, (g11 * r2 - g12 * r1) / det];
    };
    const TOL = 1e-9;
    for (let i = 0; i < segs3.length; i += 6) {
      let [s0, t0] = st(segs3[i]!, segs3[i + 1]!, segs3[i + 2]!);
      let [s1, t1] = st(segs3[i + 3]!, segs3[i + 4]!, segs3[i + 5]!);
      // Clip to the triangle (coplanar partners' edges may reach beyond it).
      const c = clipToUnitTriangle(s0, t0, s1, t1);
      if (!c) continue;
      [s0, t0, s1, t1] = c;
      if (Math.hypot(s1 - s0, t1 - t0) <= TOL) continue;
      // Along the triangle's own edges a cut divides nothing.
      if ((Math.abs(s0) <= TOL && Math.abs(s1) <= TOL) || (Math.abs(t0) <= TOL && Math.abs(t1) <= TOL)) continue;
      if (Math.abs(s0 + t0 - 1) <= TOL && Math.abs(s1 + t1 - 1) <= TOL) continue;
      // A copy of a cut already listed (two triangles of a surface meeting along it) adds nothing.
      let dup = false;
      for (let j = 0; j < this.segs.length && !dup; j += 4) {
        const q = this.segs;
        dup =
          (Math.hypot(q[j]! - s0, q[j + 1]! - t0) <= TOL && Math.hypot(q[j + 2]! - s1, q[j + 3]! - t1) <= TOL) ||
          (Math.hypot(q[j]! - s1, q[j + 1]! - t1) <= TOL && Math.hypot(q[j + 2]! - s0, q[j + 3]! - t0) <= TOL);
      }
      if (!dup) this.segs.push(s0, t0, s1, t1);
    }
  }

  /**
   * Cuts the triangle level by level: a piece no segment crosses, or one that
   * a single line splits, is emitted; the others are quartered for the next
   * level, down to MAX_DEPTH or until the next level would take the pieces
   * classified past `budget`, where they are emitted as they are. Returns
   * whether it reached MAX_DEPTH (or needed no more levels) within the budget.
   */
  run(budget: number): boolean {
    const all: number[] = [];
    for (let j = 0; j < this.segs.length; j += 4) all.push(j);
    let level: { q: number[]; cand: number[] }[] = [{ q: [0, 0, 1, 0, 0, 1], cand: all }];
    for (let depth = 0; ; depth++) {
      const next: { q: number[]; cand: number[] }[] = [];
      for (const { q, cand } of level) {
        const straddle: number[] = [];
        for (const j of cand) if (this.crosses(q, j)) straddle.push(j);
        if (straddle.length === 0) {
          this.emit([q]);
          continue;
        }
        const line = this.commonLine(q, straddle);
        if (line) {
          const [left, right] = splitByLine(q, line);
          this.emit(left);
          this.emit(right);
          continue;
        }
        next.push({ q, cand: straddle });
      }
      if (next.length === 0) return true;
      const within = this.emitted + 4 * next.length <= budget;
      if (depth >= MAX_DEPTH || !within) {
        for (const { q } of next) this.emit([q]);
        return within;
      }
      level = [];
      for (const { q, cand } of next) {
        const [s0, t0, s1, t1, s2, t2] = q as [number, number, number, number, number, number];
        const m01 = [(s0 + s1) / 2, (t0 + t1) / 2], m12 = [(s1 + s2) / 2, (t1 + t2) / 2], m20 = [(s2 + s0) / 2, (t2 + t0) / 2];
        level.push(
          { q: [s0, t0, m01[0]!, m01[1]!, m20[0]!, m20[1]!], cand },
          { q: [m01[0]!, m01[1]!, s1, t1, m12[0]!, m12[1]!], cand },
          { q: [m20[0]!, m20[1]!, m12[0]!, m12[1]!, s2, t2], cand },
          { q: [m01[0]!, m01[1]!, m12[0]!, m12[1]!, m20[0]!, m20[1]!], cand },
        );
      }
    }
  }

  /** Polygons classified so far (emit). */
  private emitted = 0;

  /** Does segment j pass through the interior of piece q (not just touch it or run along its edge)? */
  private crosses(q: number[], j: number): boolean {
    const g = this.segs;
    const c = clipToTriangle(q, g[j]!, g[j + 1]!, g[j + 2]!, g[j + 3]!);
    if (!c) return false;
    const len = Math.hypot(c[2] - c[0], c[3] - c[1]);
    return len > 1e-9 * pieceSize(q);
  }

  /**
   * A line that splits q exactly: all crossing segments lie on one line and,
   * together, run across q from edge to edge. Returns [s, t, ds, dt] or null.
   */
  private commonLine(q: number[], straddle: number[]): number[] | null {
    const g = this.segs;
    const j0 = straddle[0]!;
    const ox = g[j0]!, oy = g[j0 + 1]!, dx = g[j0 + 2]! - ox, dy = g[j0 + 3]! - oy;
    const dd = dx * dx + dy * dy;
    const tol = 1e-9 * pieceSize(q);
    const off = (x: number, y: number) => Math.abs(dx * (y - oy) - dy * (x - ox)) / Math.sqrt(dd);
    const spans: [number, number][] = [];
    for (const j of straddle) {
      if (off(g[j]!, g[j + 1]!) > tol || off(g[j + 2]!, g[j + 3]!) > tol) return null;
      const a = ((g[j]! - ox) * dx + (g[j + 1]! - oy) * dy) / dd;
      const b = ((g[j + 2]! - ox) * dx + (g[j + 3]! - oy) * dy) / dd;
      spans.push(a < b ? [a, b] : [b, a]);
    }
    // The chord of the infinite line through q (a stretch of it longer than q is wide), in the same parameter.
    const reachOut = (4 * pieceSize(q)) / Math.sqrt(dd) + 1;
    const chord = clipToTriangle(q, ox - reachOut * dx, oy - reachOut * dy, ox + reachOut * dx, oy + reachOut * dy);
    if (!chord) return null;
    let c0 = ((chord[0] - ox) * dx + (chord[1] - oy) * dy) / dd;
    let c1 = ((chord[2] - ox) * dx + (chord[3] - oy) * dy) / dd;
    if (c0 > c1) [c0, c1] = [c1, c0];
    spans.sort((u, v) => u[0] - v[0]);
    const ptol = tol / Math.sqrt(dd);
    let reach = c0;
    for (const [a, b] of spans) {
      if (a > reach + ptol) return null;
      reach = Math.max(reach, b);
    }
    return reach >= c1 - ptol ? [ox, oy, dx, dy] : null;
  }

  /** Classifies each polygon (in (s, t)) at its centroid and adds it to the soup with its weight. */
  private emit(polys: number[][]): void {
    for (const poly of polys) {
      const m = poly.length / 2;
      if (m < 3) continue;
      this.emitted++;
      let cs = 0, ct = 0, area2 = 0;
      for (let i = 0; i < m; i++) {
        cs += poly[2 * i]!;
        ct += poly[2 * i + 1]!;
        const j = (i + 1) % m;
        area2 += poly[2 * i]! * poly[2 * j + 1]! - poly[2 * j]! * poly[2 * i + 1]!;
      }
      if (!(area2 > 0)) continue;
      cs /= m;
      ct /= m;
      const size = Math.sqrt(0.5 * area2 * this.jac);
      const [x, y, z] = this.at(cs, ct);
      const w = weight(this.classifier.sides(x, y, z, this.n[0], this.n[1], this.n[2], size));
      if (w === 0) continue;
      const [x0, y0, z0] = this.at(poly[0]!, poly[1]!);
      for (let i = 1; i + 1 < m; i++) {
        const [x1, y1, z1] = this.at(poly[2 * i]!, poly[2 * i + 1]!);
        const [x2, y2, z2] = this.at(poly[2 * i + 2]!, poly[2 * i + 3]!);
        this.soup.add(x0, y0, z0, x1, y1, z1, x2, y2, z2, w);
      }
    }
  }

  private at(s: number, t: number): Vec3 {
    const { a, e1, e2 } = this;
    return [a[0] + s * e1[0] + t * e2[0], a[1] + s * e1[1] + t * e2[1], a[2] + s * e1[2] + t * e2[2]];
  }
}

function pieceSize(q: number[]): number {
  return Math.max(Math.abs(q[2]! - q[0]!) + Math.abs(q[3]! - q[1]!), Math.abs(q[4]! - q[0]!) + Math.abs(q[5]! - q[1]!));
}

/**
 * Liang-Barsky clip of segment (x0, y0)-(x1, y1) to the counter-clockwise
 * triangle q (closed, with a little slack); the clipped segment or null.
 */
function clipToTriangle(q: number[], x0: number, y0: number, x1: number, y1: number): [number, number, number, number] | null {
  let lo = 0, hi = 1;
  const dx = x1 - x0, dy = y1 - y0;
  const len = Math.hypot(dx, dy);
  for (let e = 0; e < 3; e++) {
    const ax = q[2 * e]!, ay = q[2 * e + 1]!, bx = q[(2 * e + 2) % 6]!, by = q[(2 * e + 3) % 6]!;
    const ex = bx - ax, ey = by - ay;
    const tol = 1e-12 * Math.hypot(ex, ey) * Math.max(len, Math.hypot(ex, ey));
    // Inside = left of the edge: f = e x (x - a) >= 0.
    const f0 = ex * (y0 - ay) - ey * (x0 - ax);
    const f1 = ex * (y1 - ay) - ey * (x1 - ax);
    if (f0 < -tol && f1 < -tol) return null;
    if (Math.abs(f0) <= tol && Math.abs(f1) <= tol) return null; // along this edge: on the boundary, not through
    if (f0 < -tol || f1 < -tol) {
      const r = f0 / (f0 - f1);
      if (f0 < f1) lo = Math.max(lo, r);
      else hi = Math.min(hi, r);
    }
  }
  if (!(hi > lo)) return null;
  return [x0 + lo * dx, y0 + lo * dy, x0 + hi * dx, y0 + hi * dy];
}

function clipToUnitTriangle(s0: number, t0: number, s1: number, t1: number): [number, number, number, number] | null {
  return clipToTriangle([0, 0, 1, 0, 0, 1], s0, t0, s1, t1);
}

/** Splits triangle q by the line (ox, oy) + u (dx, dy) into its left and right polygons. */
function splitByLine(q: number[], line: number[]): [number[][], number[][]] {
  const [ox, oy, dx, dy] = line as [number, number, number, number];
  const f = (i: number) => dx * (q[2 * i + 1]! - oy) - dy * (q[2 * i]! - ox);
  const left: number[] = [];
  const right: number[] = [];
  for (let i = 0; i < 3; i++) {
    const j = (i + 1) % 3;
    const fi = f(i), fj = f(j);
    if (fi >= 0) left.push(q[2 * i]!, q[2 * i + 1]!);
    if (fi <= 0) right.push(q[2 * i]!, q[2 * i + 1]!);
    if ((fi > 0 && fj < 0) || (fi < 0 && fj > 0)) {
      const r = fi / (fi - fj);
      const x = q[2 * i]! + r * (q[2 * j]! - q[2 * i]!), y = q[2 * i + 1]! + r * (q[2 * j + 1]! - q[2 * i + 1]!);
      left.push(x, y);
      right.push(x, y);
    }
  }
  return [[left], [right]];
}

/**
 * The SDF of a solid with any bake (CPU or GPU twin): of `mesh` itself when
 * it is simple (boundary null), else of its boundary soup, signed by the
 * winding number of `mesh` (the bake's pseudonormal signs mean nothing for a
 * soup, which is not closed).
 */
export async function bakeSolid(mesh: TriMesh, boundary: TriMesh | null, bake: (m: TriMesh) => Promise<SdfGrid>): Promise<SdfGrid> {
  if (!boundary) return bake(mesh);
  const grid = await bake(boundary);
  signByWinding(grid, mesh);
  return grid;
}

/**
 * Signs an unsigned distance grid by the winding number of `mesh` (inside:
 * winding not zero), in place. Node values must be distances to the solid's
 * boundary, because the walk leans on them: along a row, two neighbouring
 * nodes whose distances add up to more than the cell size cannot have the
 * boundary between them, so the second copies the first's answer and only
 * nodes near the surface (and the first of each row) cast rays.
 */
export function signByWinding(grid: SdfGrid, mesh: TriMesh): void {
  const winding = new WindingQuery(mesh);
  const [nx, ny, nz] = grid.dims;
  const [ox, oy, oz] = grid.origin;
  const h = grid.cellSize;
  const v = grid.values;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      let inside = false;
      for (let i = 0; i < nx; i++) {
        const n = i + nx * (j + ny * k);
        const d = Math.abs(v[n]!);
        if (i === 0 || d + Math.abs(v[n - 1]!) <= h * (1 + 1e-6)) {
          const w = winding.at(ox + h * i, oy + h * j, oz + h * k);
          // NaN: the node is on the surface itself, where the sign does not matter.
          if (w === w) inside = w !== 0;
        }
        v[n] = inside ? -d : d;
      }
    }
  }
}

/** The warning for a mesh that is not one ordinary closed surface: what was found and what was done. */
export function describeSolid(s: SolidAnalysis, mesh: TriMesh, triangleName: (t: number) => string = (t) => `triangle ${t + 1}`): string {
  const parts: string[] = [];
  const at = (v: Vec3) => `(${v.map(fmt).join(', ')})`;
  if (s.crossings > 0) {
    const ex = s.example!;
    parts.push(`the mesh intersects itself: ${s.crossings} pair${s.crossings === 1 ? '' : 's'} of triangles cross, e.g. ${triangleName(ex.a)} and ${triangleName(ex.b)} at ${at(ex.point)}`);
  } else if (s.coplanarOverlaps > 0) {
    const ex = s.example!;
    parts.push(`parts of the mesh touch face to face: ${s.coplanarOverlaps} pair${s.coplanarOverlaps === 1 ? '' : 's'} of triangles overlap, e.g. ${triangleName(ex.a)} and ${triangleName(ex.b)} at ${at(ex.point)}`);
  }
  if (s.innerPatches > 0) parts.push(`${s.innerPatches} part${s.innerPatches === 1 ? ' lies' : 's lie'} inside the solid (nested)`);
  if (s.invertedPatches > 0) parts.push(`${s.invertedPatches} part${s.invertedPatches === 1 ? ' is' : 's are'} inside out`);
  if (s.coarse > 0) {
    parts.push(
      `${s.coarse} triangle${s.coarse === 1 ? ' is' : 's are'} crossed too often to cut exactly (the volume and inertia are approximate there; ` +
        'join the overlapping parts for exact ones)',
    );
  }
  const tetSum = Math.abs(massFromMesh(mesh).volume);
  return `${parts.join('; ')}. The body is what the surface encloses, counted once (nonzero winding): volume ${Number(s.mass.volume.toPrecision(6))} ` +
    `(the surface integral of the raw mesh gives ${Number(tetSum.toPrecision(6))}); its SDF is signed by the winding number`;
}

function fmt(x: number): string {
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(Number(x.toPrecision(3)));
}
