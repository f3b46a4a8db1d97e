/**
 * Candidate triangle pairs for the self-intersection test (intersect.ts;
 * docs/ALGORITHM.md 1, "Meshes whose parts cross or nest") in a mesh with
 * hubs: vertices of more than HUB_DEGREE triangles, such as the corner a
 * fan-triangulated cap or polygon face is fanned from.
 *
 * Why not box overlap alone: the boxes of the triangles around a vertex all
 * hold it, so a box traversal meets all d (d - 1) / 2 pairs of a vertex of d
 * triangles: a cylinder of 5 000 segments with caps fanned from a rim vertex
 * spent 6.2 s in the pair search (25 million pairs, 0.25 us each), one of
 * 20 000 segments (80 000 triangles) over a minute. Leaving out only the pairs
 * that share the hub is not enough: the boxes of the fan's long diagonal
 * slivers also hold most of the rim, so every triangle along it still meets
 * most of them (34 s at 20 000 segments).
 *
 * Instead, the triangles around a hub v are searched by direction from v:
 * each spans a wedge at v, whose directions are the arc its two edges at v
 * cut on the unit sphere about v. A fan's arcs are slivers of one circle,
 * each next to its neighbours only. Then
 *  - two triangles that share v and nothing else can only meet next to v
 *    (what two triangles share is convex and holds v), so only if their arcs
 *    cross or overlap: pairs of overlapping arc boxes;
 *  - a triangle B not around v meets A around v only where B's directions
 *    from v (the spherical triangle B projects to) cross A's arc: B's
 *    direction box against the arc boxes, for every B whose box overlaps
 *    those of v's triangles.
 * Triangles around no hub pair up by box overlap as before. Every pair is
 * tested once: a triangle's home is its first hub corner; a pair that shares
 * a hub is left to that hub's search, and a pair of a triangle A homed at v
 * and a triangle B not around v to v's search, unless B is homed at a hub
 * before v (then that hub's search has the pair).
 *
 * Every box is grown to cover rounding: a pair the exact test can report is
 * one whose triangles come within eta = 1e-7 M + 1e-9 E of each other (M the
 * largest coordinate: positions round to 1.1e-16 M, and the test's crossing
 * line amplifies that by up to 1e9 for planes 1e-9 apart, its parallel bound;
 * E the mesh's extent: the box traversal's own slack); seen from v at a
 * distance r that is eta / r in direction. Arcs and direction boxes are grown
 * by 1e-6 + 10 eta / r, r the shorter edge at v for a triangle around v and
 * the distance from v for any other.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { pointTriangleDistanceSquared } from './pointTriangle.ts';
import { buildBoxTree, overlappingPairs, type BoxTree, type PairVisitor } from './boxPairs.ts';

/**
 * More triangles than this around a vertex make it a hub. Below it a vertex
 * costs at most 496 pair tests through box overlap (0.1 ms), and the
 * procedural shapes' defaults have none above it (a lathe's poles have 16 to
 * 24), so their pairs are found exactly as before.
 */
export const HUB_DEGREE = 32;

/** The hubs of a mesh, the triangles around each, and each triangle's home hub. */
export class Hubs {
  /** Hub number of each vertex, -1 for the others. */
  readonly hubOf: Int32Array;
  count = 0;
  /** Triangles around hub h: around[first[h] .. first[h + 1]). */
  readonly first: Int32Array;
  readonly around: Int32Array;
  /** The vertex of each hub. */
  readonly vertex: Int32Array;
  /** Each triangle's first hub corner (its hub number), -1 for a triangle around none. */
  readonly home: Int32Array;

  constructor(mesh: TriMesh, hubDegree = HUB_DEGREE) {
    const idx = mesh.indices;
    const nv = mesh.positions.length / 3;
    const nt = idx.length / 3;
    const degree = new Int32Array(nv);
    for (let i = 0; i < idx.length; i++) degree[idx[i]!]++;
    this.hubOf = new Int32Array(nv).fill(-1);
    let total = 0;
    for (let v = 0; v < nv; v++) {
      if (degree[v]! > hubDegree) {
        this.hubOf[v] = this.count++;
        total += degree[v]!;
      }
    }
    this.vertex = new Int32Array(this.count);
    this.first = new Int32Array(this.count + 1);
    for (let v = 0; v < nv; v++) {
      const h = this.hubOf[v]!;
      if (h < 0) continue;
      this.vertex[h] = v;
      this.first[h + 1] = this.first[h]! + degree[v]!;
    }
    this.around = new Int32Array(total);
    const fill = this.first.slice(0, this.count);
    this.home = new Int32Array(nt).fill(-1);
    for (let i = 0; i < idx.length; i++) {
      const h = this.hubOf[idx[i]!]!;
      if (h < 0) continue;
      const t = (i / 3) | 0;
      this.around[fill[h]!++] = t;
      if (this.home[t]! < 0) this.home[t] = h;
    }
  }

  /** Do triangles ta and tb share a hub? */
  shareHub(idx: Uint32Array, ta: number, tb: number): boolean {
    for (let i = 0; i < 3; i++) {
      const v = idx[3 * ta + i]!;
      if (this.hubOf[v]! >= 0 && (v === idx[3 * tb] || v === idx[3 * tb + 1] || v === idx[3 * tb + 2])) return true;
    }
    return false;
  }
}

/**
 * Every candidate pair of a mesh with hubs, each once, to `visitor` (which
 * tests the triangles' own boxes first, as intersect.ts's pair test does).
 * `bvh` is any box tree over all the mesh's triangles, `boxes` the triangle
 * boxes (min xyz, max xyz), `slack` the box traversal's.
 */
export function hubPairs(mesh: TriMesh, hubs: Hubs, bvh: BoxTree, boxes: Float64Array, slack: number, visitor: PairVisitor): void {
  // Pairs of triangles around no hub: the BVH traversed with each node's box
  // shrunk to those triangles (empty without any), so the hubs' triangles
  // neither widen a box nor make a pair; a tree of its own for them took
  // twice as long to build and traverse as the SAH tree they are already in.
  const { start, count, order } = bvh;
  const restBounds = new Float64Array(bvh.bounds.length);
  for (let n = count.length - 1; n >= 0; n--) {
    const o = 6 * n;
    restBounds.fill(Infinity, o, o + 3);
    restBounds.fill(-Infinity, o + 3, o + 6);
    if (count[n]! > 0) {
      for (let s = start[n]!; s < start[n]! + count[n]!; s++) {
        const t = order[s]!;
        if (hubs.home[t]! < 0) for (let k = 0; k < 3; k++) {
          restBounds[o + k] = Math.min(restBounds[o + k]!, boxes[6 * t + k]!);
          restBounds[o + 3 + k] = Math.max(restBounds[o + 3 + k]!, boxes[6 * t + 3 + k]!);
        }
      }
    } else {
      // Children come after their parent.
      const l = 6 * start[n]!, r = l + 6;
      for (let k = 0; k < 3; k++) {
        restBounds[o + k] = Math.min(restBounds[l + k]!, restBounds[r + k]!);
        restBounds[o + 3 + k] = Math.max(restBounds[l + 3 + k]!, restBounds[r + 3 + k]!);
      }
    }
  }
  const rest: BoxTree = { bounds: restBounds, start, count, order };
  overlappingPairs(rest, rest, slack, new AroundNoHub(hubs.home, visitor));
  const search = new HubSearch(mesh, hubs, bvh, boxes, slack, visitor);
  for (let h = 0; h < hubs.count; h++) search.run(h);
}

/** Passes on the pairs of two triangles around no hub. */
class AroundNoHub implements PairVisitor {
  constructor(private readonly home: Int32Array, private readonly visitor: PairVisitor) {}

  visit(ta: number, tb: number): void {
    if (this.home[ta]! < 0 && this.home[tb]! < 0) this.visitor.visit(ta, tb);
  }
}

/** The search around one hub at a time (file comment), with scratch reused from hub to hub. */
class HubSearch {
  private readonly p: Float64Array;
  private readonly idx: Uint32Array;
  /** eta (file comment). */
  private readonly eta: number;
  /** The hub searched, its vertex's position, and its triangles hubs.around[base .. base + d). */
  private hub = 0;
  private vx = 0;
  private vy = 0;
  private vz = 0;
  private base = 0;
  private arcs = new Float64Array(0);
  /** A one-box tree: the box searched for (the hub's triangles' box, a triangle's direction box). */
  private readonly probe: BoxTree = { bounds: new Float64Array(6), start: Int32Array.of(0), count: Int32Array.of(1), order: Uint32Array.of(0) };
  /** Triangles whose box overlaps the hub's triangles' box. */
  private near: number[] = [];
  /** The triangle whose directions are searched, and the phase of `visit`. */
  private other = 0;
  private phase = PAIRS;
  private readonly box = new Float64Array(6);

  constructor(
    mesh: TriMesh,
    private readonly hubs: Hubs,
    private readonly bvh: BoxTree,
    private readonly boxes: Float64Array,
    private readonly slack: number,
    private readonly visitor: PairVisitor,
  ) {
    this.p = mesh.positions;
    this.idx = mesh.indices;
    let ext = 0, mag = 0;
    for (let k = 0; k < 3; k++) {
      ext = Math.max(ext, bvh.bounds[3 + k]! - bvh.bounds[k]!);
      mag = Math.max(mag, Math.abs(bvh.bounds[k]!), Math.abs(bvh.bounds[3 + k]!));
    }
    this.eta = 1e-7 * mag + 1e-9 * ext;
  }

  run(h: number): void {
    const { first, around, home } = this.hubs;
    const p = this.p, idx = this.idx;
    const v = this.hubs.vertex[h]!;
    const d = first[h + 1]! - first[h]!;
    this.hub = h;
    this.base = first[h]!;
    this.vx = p[3 * v]!;
    this.vy = p[3 * v + 1]!;
    this.vz = p[3 * v + 2]!;
    if (this.arcs.length < 6 * d) this.arcs = new Float64Array(12 * d);
    const arcs = this.arcs;
    const items = new Uint32Array(d);
    // The hub's own triangles' box (those homed here).
    const own = this.probe.bounds;
    own.fill(Infinity, 0, 3);
    own.fill(-Infinity, 3, 6);
    for (let i = 0; i < d; i++) {
      items[i] = i;
      const t = around[this.base + i]!;
      const k = idx[3 * t] === v ? 0 : idx[3 * t + 1] === v ? 1 : 2;
      const a = 3 * idx[3 * t + ((k + 1) % 3)]!, b = 3 * idx[3 * t + ((k + 2) % 3)]!;
      const la = this.dist(a), lb = this.dist(b);
      this.arcBox(a, la, b, lb, 1e-6 + (10 * this.eta) / Math.min(la, lb), arcs, 6 * i);
      if (home[t] === h) {
        for (let c = 0; c < 3; c++) {
          own[c] = Math.min(own[c]!, this.boxes[6 * t + c]!);
          own[3 + c] = Math.max(own[3 + c]!, this.boxes[6 * t + 3 + c]!);
        }
      }
    }
    const tree = buildBoxTree(arcs, items);
    // Pairs that share the hub and nothing else (the pair test skips those that share an edge).
    this.phase = PAIRS;
    overlappingPairs(tree, tree, 0, this);
    if (!(own[0]! <= own[3]!)) return; // no triangle homed here
    // Triangles near those homed here, then each one's directions against the arcs.
    this.near = [];
    this.phase = NEAR;
    overlappingPairs(this.bvh, this.probe, this.slack, this);
    const near = this.near;
    this.phase = DIRECTIONS;
    for (const t of near) {
      if (idx[3 * t] === v || idx[3 * t + 1] === v || idx[3 * t + 2] === v) continue; // around the hub: found above
      if (home[t]! >= 0 && home[t]! < h) continue; // that hub's search has the pair
      this.directionBox(t);
      this.probe.bounds.set(this.box);
      this.other = t;
      overlappingPairs(tree, this.probe, 0, this);
    }
  }

  visit(i: number, j: number): void {
    const around = this.hubs.around;
    if (this.phase === PAIRS) {
      this.visitor.visit(around[this.base + i]!, around[this.base + j]!);
    } else if (this.phase === NEAR) {
      const b = this.boxes, pb = this.probe.bounds, s = this.slack;
      for (let k = 0; k < 3; k++) if (b[6 * i + k]! > pb[3 + k]! + s || pb[k]! > b[6 * i + 3 + k]! + s) return;
      this.near.push(i);
    } else {
      const t = around[this.base + i]!;
      if (this.hubs.home[t] !== this.hub || this.hubs.shareHub(this.idx, t, this.other)) return;
      this.visitor.visit(t, this.other);
    }
  }

  /** Distance from the hub to the vertex at p[a]. */
  private dist(a: number): number {
    const p = this.p;
    const x = p[a]! - this.vx, y = p[a + 1]! - this.vy, z = p[a + 2]! - this.vz;
    return Math.sqrt(x * x + y * y + z * z);
  }

  /**
   * The box of the directions from the hub to the points of triangle t (a
   * spherical triangle: its three edges' arcs, and an axis direction where the
   * ray along it from the hub meets t), grown for rounding; the whole cube
   * when t passes through the hub or within rounding of it.
   */
  private directionBox(t: number): void {
    const p = this.p, idx = this.idx, box = this.box;
    const a = 3 * idx[3 * t]!, b = 3 * idx[3 * t + 1]!, c = 3 * idx[3 * t + 2]!;
    const r = Math.sqrt(pointTriangleDistanceSquared(this.vx, this.vy, this.vz, p[a]!, p[a + 1]!, p[a + 2]!, p[b]!, p[b + 1]!, p[b + 2]!, p[c]!, p[c + 1]!, p[c + 2]!));
    const grow = 1e-6 + (10 * this.eta) / r;
    if (!(grow < 1)) {
      box.set(WHOLE);
      return;
    }
    box.fill(Infinity, 0, 3);
    box.fill(-Infinity, 3, 6);
    const la = this.dist(a), lb = this.dist(b), lc = this.dist(c);
    this.arcBox(a, la, b, lb, 0, ARC, 0);
    unite(box, ARC);
    this.arcBox(b, lb, c, lc, 0, ARC, 0);
    unite(box, ARC);
    this.arcBox(c, lc, a, la, 0, ARC, 0);
    unite(box, ARC);
    // Axis directions inside the spherical triangle: along axis k from the hub,
    // is there a point of t (its projection across k holds the hub's, within
    // rounding, and a corner lies ahead)?
    const P = CORNERS, V = HUB;
    for (let k = 0; k < 3; k++) {
      P[k] = p[a + k]!;
      P[3 + k] = p[b + k]!;
      P[6 + k] = p[c + k]!;
    }
    V[0] = this.vx;
    V[1] = this.vy;
    V[2] = this.vz;
    for (let k = 0; k < 3; k++) {
      const i = (k + 1) % 3, j = (k + 2) % 3;
      let pos = 0, neg = 0;
      for (let m = 0; m < 3; m++) {
        const m1 = (m + 1) % 3;
        const ex = P[3 * m1 + i]! - P[3 * m + i]!, ey = P[3 * m1 + j]! - P[3 * m + j]!;
        const qx = V[i]! - P[3 * m + i]!, qy = V[j]! - P[3 * m + j]!;
        const e = ex * qy - ey * qx;
        const le = Math.sqrt(ex * ex + ey * ey);
        const tol = 1e-9 * le * (Math.sqrt(qx * qx + qy * qy) + le);
        if (e >= -tol) pos++;
        if (e <= tol) neg++;
      }
      if (pos < 3 && neg < 3) continue;
      const ahead = Math.max(P[k]!, P[3 + k]!, P[6 + k]!) - V[k]!, behind = V[k]! - Math.min(P[k]!, P[3 + k]!, P[6 + k]!);
      if (ahead >= 0) box[3 + k] = 1;
      if (behind >= 0) box[k] = -1;
    }
    for (let k = 0; k < 3; k++) {
      box[k] = box[k]! - grow;
      box[3 + k] = box[3 + k]! + grow;
    }
  }

  /**
   * Into out[o .. o + 5]: the box of the arc of directions from the hub to the
   * segment between the vertices at p[a] and p[b] (at distances la, lb from
   * the hub), grown by `grow`. The great circle through the ends u and w is
   * u cos s + n sin s, s in [0, angle], with n the unit vector in its plane
   * normal to u; coordinate k is largest where the circle meets the plane of
   * axis k, at s with cos s = u_k / R_k, sin s = n_k / R_k (R_k =
   * sqrt(u_k^2 + n_k^2)), which is on the arc when sin s >= 0 and cos s >=
   * cos(angle) = u.w; likewise the smallest. The whole cube for a missing
   * direction, or for ends more than 174 degrees apart (nearly half a great
   * circle, which rounding blurs: a segment passing the hub within 1/40 of
   * its length; rare).
   */
  private arcBox(a: number, la: number, b: number, lb: number, grow: number, out: Float64Array, o: number): void {
    const p = this.p;
    if (!(la > 0 && lb > 0 && Number.isFinite(la) && Number.isFinite(lb) && Number.isFinite(grow))) {
      out.set(WHOLE, o);
      return;
    }
    const ux = (p[a]! - this.vx) / la, uy = (p[a + 1]! - this.vy) / la, uz = (p[a + 2]! - this.vz) / la;
    const wx = (p[b]! - this.vx) / lb, wy = (p[b + 1]! - this.vy) / lb, wz = (p[b + 2]! - this.vz) / lb;
    const dot = ux * wx + uy * wy + uz * wz;
    if (dot < -0.995) {
      out.set(WHOLE, o);
      return;
    }
    out[o] = Math.min(ux, wx);
    out[o + 1] = Math.min(uy, wy);
    out[o + 2] = Math.min(uz, wz);
    out[o + 3] = Math.max(ux, wx);
    out[o + 4] = Math.max(uy, wy);
    out[o + 5] = Math.max(uz, wz);
    let nx = wx - dot * ux, ny = wy - dot * uy, nz = wz - dot * uz;
    const nl = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (nl > 0) {
      nx /= nl; ny /= nl; nz /= nl;
      for (let k = 0; k < 3; k++) {
        const uk = k === 0 ? ux : k === 1 ? uy : uz, nk = k === 0 ? nx : k === 1 ? ny : nz;
        const R = Math.sqrt(uk * uk + nk * nk);
        if (nk >= 0 && uk >= dot * R) out[o + 3 + k] = Math.max(out[o + 3 + k]!, R);
        if (nk <= 0 && -uk >= dot * R) out[o + k] = Math.min(out[o + k]!, -R);
      }
    }
    for (let k = 0; k < 3; k++) {
      out[o + k] = out[o + k]! - grow;
      out[o + 3 + k] = out[o + 3 + k]! + grow;
    }
  }
}

/** The phases of HubSearch.visit: pairs around the hub, triangles near it, one triangle's directions against the arcs. */
const PAIRS = 0, NEAR = 1, DIRECTIONS = 2;
/** A box holding every direction. */
const WHOLE = Float64Array.of(-2, -2, -2, 2, 2, 2);
/** Scratch: one arc's box, a triangle's corners, the hub. */
const ARC = new Float64Array(6);
const CORNERS = new Float64Array(9);
const HUB = new Float64Array(3);

function unite(box: Float64Array, b: Float64Array): void {
  for (let k = 0; k < 3; k++) {
    box[k] = Math.min(box[k]!, b[k]!);
    box[3 + k] = Math.max(box[3 + k]!, b[3 + k]!);
  }
}
