/**
 * Exact signed distance fields on the CPU (docs/ALGORITHM.md 1, seed ch. 3).
 *
 * Every grid node gets the exact distance to its nearest triangle, signed by
 * dot(p - closest, pseudonormal of the closest feature) (pseudonormals.ts).
 *
 * Search, per brick of BRICK^3 nodes with centre c and radius rho:
 *  1. d(c) from a BVH nearest query (bvh.ts), seeded with the previous brick's
 *     answer so most of the tree is pruned at once;
 *  2. candidates: every triangle T with dist(c, T) <= d(c) + 2 rho. For any
 *     node p of the brick, its nearest triangle T* has
 *     dist(c, T*) <= d(p) + |p - c| <= d(c) + 2 |p - c|, so T* is among them;
 *  3. candidates ordered by dist(c, T) (counting sort into quarter-cell bins);
 *     each node starts from its neighbour's answer (within a cell of its own
 *     distance) and scans the list with three lower bounds on dist(p, T):
 *       dist(c, T) - |p - c|                 (triangle inequality; lets the
 *                                             scan stop, the rest being farther),
 *       dist(c, T) + g_T . (p - c)           (the distance to a triangle is
 *                                             convex, so above its tangent plane
 *                                             at c; g_T = its unit gradient there),
 *       |plane distance|,
 *     so the full point-triangle test runs for a handful of triangles per node.
 * The BVH work is paid once per brick instead of once per node, and the result
 * is exact, not an approximation. Rejected: a BVH query per node (measured 5x
 * slower: inside a body, boxes of the surrounding shell all contain the node
 * and prune nothing) and exact narrow band + fast sweeping (approximate away
 * from the surface; not needed for the time budget).
 *
 * Measured (one core, Node 20; sphereMesh(1, 64, 24) = 2944 triangles and
 * torusMesh(1, 0.35, 64, 24) = 3072): see the report in the bake tests' commit.
 *
 * `bakeSdfBruteForce` is the O(nodes x triangles) oracle. Both bakes compute
 * per-triangle distances with the same routine (preparedClosest) on the same
 * node coordinates and break exact ties towards the lowest triangle index, so
 * they agree bit for bit.
 *
 * Grid nodes come from gridLayout (grid.ts), shared with the GPU bake.
 */
import { meshBounds, type TriMesh } from '../geometry/mesh.ts';
import { gridLayout, type SdfGrid } from './grid.ts';
import { buildTriangleBvh, TriangleBvhQuery, type TriangleBvh } from './bvh.ts';
import { PREPARED_STRIDE, prepareTriangles, preparedClosest } from './pointTriangle.ts';
import { computePseudonormals, featureNormal, type MeshPseudonormals } from './pseudonormals.ts';

export interface BakeOptions {
  /** Cells along the longest axis of the mesh bounds (default 48). */
  cells?: number;
  /** Extra cells on every side (default 2). */
  padding?: number;
  /** Told the fraction of the grid done (0..1) after each slab of bricks, for a progress display. */
  onProgress?: (fraction: number) => void;
}

/** One mesh of a batch of bakes (a scene's shapes, baked together: SceneIo.bakeAll). */
export interface BakeJob extends BakeOptions {
  mesh: TriMesh;
}

export const DEFAULT_CELLS = 48;
export const DEFAULT_PADDING = 2;

/**
 * Nodes per brick edge. Larger bricks amortise the BVH work over more nodes but
 * widen the candidate band (2 x brick radius).
 */
export const BRICK = 4;
/** Relative and (in cells) absolute slack on the lower-bound tests, so rounding never drops an exact tie. */
const REL_SLACK = 1 + 1e-9;
const ABS_SLACK_CELLS = 1e-9;

/** Exact SDF by bricks of nodes over a BVH (file comment). */
export function bakeSdfCpu(mesh: TriMesh, opts: BakeOptions = {}): SdfGrid {
  requireTriangles(mesh);
  const layout = gridLayout(meshBounds(mesh), opts.cells ?? DEFAULT_CELLS, opts.padding ?? DEFAULT_PADDING);
  const [nx, ny, nz] = layout.dims;
  const [ox, oy, oz] = layout.origin;
  const h = layout.cellSize;
  const bvh = buildTriangleBvh(mesh);
  const search = new BrickSearch(bvh, ABS_SLACK_CELLS * h);
  const signer = new FeatureSigner(mesh, bvh.tris, bvh.order);
  const p = search.point;
  const values = new Float32Array(nx * ny * nz);
  for (let k0 = 0; k0 < nz; k0 += BRICK) {
    const k1 = Math.min(k0 + BRICK, nz);
    for (let j0 = 0; j0 < ny; j0 += BRICK) {
      const j1 = Math.min(j0 + BRICK, ny);
      for (let i0 = 0; i0 < nx; i0 += BRICK) {
        const i1 = Math.min(i0 + BRICK, nx);
        search.loadBrick(ox, oy, oz, h, i0, i1, j0, j1, k0, k1);
        for (let k = k0; k < k1; k++) {
          for (let j = j0; j < j1; j++) {
            for (let i = i0; i < i1; i++) {
              // Same expressions as the brute-force bake: identical node coordinates.
              p[0] = ox + h * i;
              p[1] = oy + h * j;
              p[2] = oz + h * k;
              const slot = search.nearest();
              values[i + nx * (j + ny * k)] = signer.sign(slot, search.feature, search.result, p);
            }
          }
        }
      }
    }
    opts.onProgress?.(k1 / nz);
  }
  return { origin: layout.origin, cellSize: h, dims: layout.dims, values };
}

/**
 * The candidate list of one brick and the per-node scan over it. Small
 * methods rather than one loop nest, so V8 optimises each with full type
 * feedback (a huge on-stack-replaced function kept deoptimising); doubles
 * cross calls only through Float64Arrays (see pointTriangle.ts).
 */
class BrickSearch {
  /** Node position, set by the caller before `nearest`. */
  readonly point: Float64Array;
  /** The answer of `nearest`: [0] squared distance, [1], [2] barycentrics v, w of the closest point. */
  readonly result = new Float64Array(3);
  /** Feature code of the closest point (pointTriangle.ts FEATURE_*). */
  feature = 0;
  private readonly query: TriangleBvhQuery;
  private readonly tris: Float64Array;
  private readonly order: Uint32Array;
  private readonly res = new Float64Array(3);
  /** Gathered candidates, unsorted: slot, distance to the centre, gradient there. */
  private readonly rawSlot: Int32Array;
  private readonly rawDist: Float64Array;
  private readonly rawGrad: Float64Array;
  private readonly binStart = new Int32Array(MAX_BINS + 1);
  /** Candidates in order of distance to the brick centre (to within a bin): slot, and (distance, gradient x, y, z). */
  private readonly candSlot: Int32Array;
  private readonly cand: Float64Array;
  /** [0..2] brick centre, [3] absolute slack, [4] bin width. */
  private readonly centre = new Float64Array(5);
  private count = 0;
  private centreSeed = -1;
  /** Answer at the previous node: the seed for the next. */
  private prev = -1;

  constructor(bvh: TriangleBvh, absSlack: number) {
    const n = bvh.order.length;
    this.query = new TriangleBvhQuery(bvh);
    this.point = new Float64Array(3);
    this.tris = bvh.tris;
    this.order = bvh.order;
    this.rawSlot = new Int32Array(n);
    this.rawDist = new Float64Array(n);
    this.rawGrad = new Float64Array(3 * n);
    this.candSlot = new Int32Array(n);
    this.cand = new Float64Array(4 * n);
    this.centre[3] = absSlack;
  }

  /** Collect the candidates of the brick of nodes [i0, i1) x [j0, j1) x [k0, k1). */
  loadBrick(ox: number, oy: number, oz: number, h: number, i0: number, i1: number, j0: number, j1: number, k0: number, k1: number): void {
    const q = this.query;
    const c = this.centre;
    c[0] = q.point[0] = ox + h * 0.5 * (i0 + i1 - 1);
    c[1] = q.point[1] = oy + h * 0.5 * (j0 + j1 - 1);
    c[2] = q.point[2] = oz + h * 0.5 * (k0 + k1 - 1);
    const ex = i1 - 1 - i0;
    const ey = j1 - 1 - j0;
    const ez = k1 - 1 - k0;
    const rho = 0.5 * h * Math.sqrt(ex * ex + ey * ey + ez * ez);
    const nearest = q.nearest(this.centreSeed);
    this.centreSeed = nearest;
    this.prev = nearest;
    const dMin = Math.sqrt(q.result[0]!);
    const radius = dMin + 2 * rho + c[3]!;
    const m = q.gather(radius, this.rawSlot, this.rawDist, this.rawGrad);
    this.count = m;
    // Counting sort into bins of width h / BIN_FRACTION by distance to the centre:
    // O(m), and the order inside a bin does not matter (see the stop test in nearest).
    const width = h / BIN_FRACTION;
    c[4] = width;
    const inv = 1 / width;
    const bs = this.binStart;
    bs.fill(0);
    const dist = this.rawDist;
    for (let i = 0; i < m; i++) bs[binOf(dist[i]!, dMin, inv) + 1]++;
    for (let b = 0; b < MAX_BINS; b++) bs[b + 1] += bs[b]!;
    const cand = this.cand;
    const grad = this.rawGrad;
    for (let i = 0; i < m; i++) {
      const at = bs[binOf(dist[i]!, dMin, inv)]!++;
      this.candSlot[at] = this.rawSlot[i]!;
      cand[4 * at] = dist[i]!;
      cand[4 * at + 1] = grad[3 * i]!;
      cand[4 * at + 2] = grad[3 * i + 1]!;
      cand[4 * at + 3] = grad[3 * i + 2]!;
    }
  }

  /** Slot of the triangle nearest to `point` (which must lie in the loaded brick); details in `result`, `feature`. */
  nearest(): number {
    const tris = this.tris;
    const order = this.order;
    const candSlot = this.candSlot;
    const cand = this.cand;
    const res = this.res;
    const win = this.result;
    const p = this.point;
    const c = this.centre;
    const px = p[0]!;
    const py = p[1]!;
    const pz = p[2]!;
    const absSlack = c[3]!;
    const width = c[4]!;
    const dx = px - c[0]!;
    const dy = py - c[1]!;
    const dz = pz - c[2]!;
    const r = Math.sqrt(dx * dx + dy * dy + dz * dz);
    // Seed with the neighbour's answer: an upper bound within a cell of the truth.
    let bestSlot = this.prev;
    let feature = preparedClosest(tris, bestSlot, p, win);
    let best = win[0]!;
    let limit = Math.sqrt(best) * REL_SLACK + absSlack;
    const m = this.count;
    for (let q = 0; q < m; q++) {
      const dc = cand[4 * q]!;
      // dist(p, T) >= dist(c, T) - |p - c|. Later candidates sit in the same or
      // later bins, so they are at least dc - width from c: once that is too far, stop.
      if (dc - r > limit) {
        if (dc - width - r > limit) break;
        continue;
      }
      // The distance to a triangle is convex in p: it lies above its tangent plane at c.
      if (dc + cand[4 * q + 1]! * dx + cand[4 * q + 2]! * dy + cand[4 * q + 3]! * dz > limit) continue;
      const s = candSlot[q]!;
      if (s === bestSlot) continue;
      // The triangle's plane is no farther than the triangle.
      const o = s * PREPARED_STRIDE;
      const pd = tris[o + 12]! * px + tris[o + 13]! * py + tris[o + 14]! * pz - tris[o + 15]!;
      if (pd * pd > best * REL_SLACK) continue;
      const f = preparedClosest(tris, s, p, res);
      const d2 = res[0]!;
      if (d2 < best || (d2 === best && order[s]! < order[bestSlot]!)) {
        best = d2;
        bestSlot = s;
        feature = f;
        win[0] = d2;
        win[1] = res[1]!;
        win[2] = res[2]!;
        limit = Math.sqrt(best) * REL_SLACK + absSlack;
      }
    }
    this.prev = bestSlot;
    this.feature = feature;
    return bestSlot;
  }
}

/** Candidate-sort bins per cell, and a cap on the bin count (the last bin takes the rest). */
const BIN_FRACTION = 4;
const MAX_BINS = 128;

function binOf(d: number, dMin: number, inv: number): number {
  const b = Math.floor((d - dMin) * inv);
  return b < 0 ? 0 : b >= MAX_BINS ? MAX_BINS - 1 : b;
}

/** O(nodes x triangles) oracle: same layout, same per-triangle routine, no acceleration. */
export function bakeSdfBruteForce(mesh: TriMesh, opts: BakeOptions = {}): SdfGrid {
  requireTriangles(mesh);
  const layout = gridLayout(meshBounds(mesh), opts.cells ?? DEFAULT_CELLS, opts.padding ?? DEFAULT_PADDING);
  const [nx, ny, nz] = layout.dims;
  const [ox, oy, oz] = layout.origin;
  const h = layout.cellSize;
  const tris = prepareTriangles(mesh.positions, mesh.indices);
  const signer = new FeatureSigner(mesh, tris, null);
  const p = new Float64Array(3);
  const res = new Float64Array(3);
  const values = new Float32Array(nx * ny * nz);
  let n = 0;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++, n++) {
        p[0] = ox + h * i;
        p[1] = oy + h * j;
        p[2] = oz + h * k;
        const slot = nearestBruteForce(tris, p, res);
        const feature = preparedClosest(tris, slot, p, res);
        values[n] = signer.sign(slot, feature, res, p);
      }
    }
  }
  return { origin: layout.origin, cellSize: h, dims: layout.dims, values };
}

/** Nearest triangle by scanning all; strict < keeps the lowest index among exact ties. */
function nearestBruteForce(tris: Float64Array, p: Float64Array, res: Float64Array): number {
  const nt = tris.length / PREPARED_STRIDE;
  let best = Infinity;
  let bestT = 0;
  for (let t = 0; t < nt; t++) {
    preparedClosest(tris, t, p, res);
    if (res[0]! < best) {
      best = res[0]!;
      bestT = t;
    }
  }
  return bestT;
}

/**
 * Signed distance from (x, y, z) to the whole mesh by brute force (no grid);
 * for tests and one-off queries.
 */
export function signedDistanceBruteForce(mesh: TriMesh, x: number, y: number, z: number): number {
  requireTriangles(mesh);
  const tris = prepareTriangles(mesh.positions, mesh.indices);
  const p = Float64Array.of(x, y, z);
  const res = new Float64Array(3);
  const slot = nearestBruteForce(tris, p, res);
  const feature = preparedClosest(tris, slot, p, res);
  return new FeatureSigner(mesh, tris, null).sign(slot, feature, res, p);
}

/**
 * Signs a distance with the pseudonormal of the closest feature: outside iff
 * dot(p - closest, n_feature) > 0 (docs/ALGORITHM.md 1).
 */
class FeatureSigner {
  private readonly pn: MeshPseudonormals;
  private readonly normal = new Float64Array(3);

  /** `tris` holds the prepared triangles the slots refer to; slot s is mesh triangle order[s] (or s when order is null). */
  constructor(
    private readonly mesh: TriMesh,
    private readonly tris: Float64Array,
    private readonly order: Uint32Array | null,
  ) {
    this.pn = computePseudonormals(mesh);
  }

  /**
   * Signed distance at p, whose nearest triangle is `slot` with closest point
   * on `feature` and res = [squared distance, v, w] (from preparedClosest).
   */
  sign(slot: number, feature: number, res: Float64Array, p: Float64Array): number {
    const tris = this.tris;
    const o = slot * PREPARED_STRIDE;
    const v = res[1]!;
    const w = res[2]!;
    const cx = tris[o]! + v * tris[o + 3]! + w * tris[o + 6]!;
    const cy = tris[o + 1]! + v * tris[o + 4]! + w * tris[o + 7]!;
    const cz = tris[o + 2]! + v * tris[o + 5]! + w * tris[o + 8]!;
    const nrm = this.normal;
    featureNormal(this.mesh, this.pn, this.order ? this.order[slot]! : slot, feature, nrm);
    const s = (p[0]! - cx) * nrm[0]! + (p[1]! - cy) * nrm[1]! + (p[2]! - cz) * nrm[2]!;
    const d = Math.sqrt(res[0]!);
    return s > 0 ? d : -d;
  }
}

function requireTriangles(mesh: TriMesh): void {
  if (mesh.indices.length < 3) throw new RangeError('cannot bake an SDF of a mesh without triangles');
}
