/**
 * A bounding volume hierarchy over a mesh's triangles for exact closest-
 * triangle queries (the CPU SDF bake, docs/ALGORITHM.md 1).
 *
 * Build: binned surface-area heuristic on triangle centroids, leaves of at most
 * LEAF_SIZE triangles. SAH rather than a median split because tight boxes are
 * what lets a nearest query prune; the build is O(n log n) and runs once per
 * shape.
 *
 * Layout (flat typed arrays, node 0 is the root):
 *  - bounds[6n .. 6n+5] = min x, y, z, max x, y, z of node n;
 *  - count[n] = 0 for an internal node, whose children are start[n] and
 *    start[n] + 1; count[n] > 0 for a leaf holding triangle slots
 *    start[n] .. start[n] + count[n] - 1;
 *  - slot s is mesh triangle order[s], and tris holds the prepared triangle
 *    data (pointTriangle.ts) in slot order, so a leaf's triangles are
 *    contiguous in memory.
 *
 * Queries: `nearest`, a nearest-first depth-first traversal started from a
 * "seed" triangle (for the grid bake: the previous brick's answer, whose
 * distance bounds this one's to within a brick), so most of the tree is pruned
 * by the first box tests; and `gather`, every triangle within a radius. A box
 * is skipped when its squared distance exceeds the bound by more than rounding;
 * ties at equal distance go to the lowest mesh triangle index, the same rule
 * as the brute-force oracle, so both bakes pick the same triangle.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { PREPARED_STRIDE, prepareTriangles, preparedClosest } from './pointTriangle.ts';

export const LEAF_SIZE = 4;
const BINS = 12;
/** Relative slack on box pruning, so rounding in a box distance never skips an exactly tied triangle. */
const PRUNE_SLACK = 1 + 1e-9;

export interface TriangleBvh {
  nodeCount: number;
  bounds: Float64Array;
  start: Int32Array;
  count: Int32Array;
  order: Uint32Array;
  tris: Float64Array;
  /** Longest root-to-leaf path (in nodes), sizes the traversal stack. */
  depth: number;
}

export function buildTriangleBvh(mesh: TriMesh): TriangleBvh {
  const n = mesh.indices.length / 3;
  if (n === 0) throw new RangeError('cannot build a BVH over a mesh without triangles');
  const b = new BvhBuilder(mesh);
  // Explicit work list instead of recursion: (node, first slot, slot count, depth).
  const work: number[] = [0, 0, n, 1];
  while (work.length > 0) {
    const d = work.pop()!;
    const cnt = work.pop()!;
    const first = work.pop()!;
    const node = work.pop()!;
    if (d > b.depth) b.depth = d;
    const leftCount = b.split(node, first, cnt);
    if (leftCount === 0) continue; // leaf
    const left = b.nodeCount;
    b.nodeCount += 2;
    b.start[node] = left;
    b.count[node] = 0;
    work.push(left, first, leftCount, d + 1);
    work.push(left + 1, first + leftCount, cnt - leftCount, d + 1);
  }
  const nodes = b.nodeCount;
  return {
    nodeCount: nodes,
    bounds: b.bounds.slice(0, 6 * nodes),
    start: b.start.slice(0, nodes),
    count: b.count.slice(0, nodes),
    order: b.order,
    tris: prepareTriangles(mesh.positions, mesh.indices, b.order),
    depth: b.depth,
  };
}

/**
 * Build state and per-node steps. Small methods called once per node rather
 * than one long function: the build runs once per shape, and V8 only
 * optimises a function after many calls, so a monolithic build ran mostly in
 * the interpreter (~30x slower).
 */
class BvhBuilder {
  /** Triangle boxes (min xyz, max xyz) and centroids (of the boxes). */
  readonly tb: Float64Array;
  readonly cen: Float64Array;
  readonly order: Uint32Array;
  readonly bounds: Float64Array;
  readonly start: Int32Array;
  readonly count: Int32Array;
  nodeCount = 1;
  depth = 1;
  /** Centroid box of the node being split: min xyz, max xyz. */
  private readonly cbox = new Float64Array(6);
  private readonly binBox = new Float64Array(6 * BINS);
  private readonly binCount = new Int32Array(BINS);
  private readonly rightArea = new Float64Array(BINS);
  private readonly rightCount = new Int32Array(BINS);

  constructor(mesh: TriMesh) {
    const pos = mesh.positions;
    const idx = mesh.indices;
    const n = idx.length / 3;
    this.tb = new Float64Array(6 * n);
    this.cen = new Float64Array(3 * n);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 3; k++) {
        const a = pos[3 * idx[3 * t]! + k]!;
        const b = pos[3 * idx[3 * t + 1]! + k]!;
        const c = pos[3 * idx[3 * t + 2]! + k]!;
        const lo = Math.min(a, b, c);
        const hi = Math.max(a, b, c);
        this.tb[6 * t + k] = lo;
        this.tb[6 * t + 3 + k] = hi;
        this.cen[3 * t + k] = 0.5 * (lo + hi);
      }
    }
    this.order = new Uint32Array(n);
    for (let t = 0; t < n; t++) this.order[t] = t;
    this.bounds = new Float64Array(12 * n);
    this.start = new Int32Array(2 * n);
    this.count = new Int32Array(2 * n);
  }

  /**
   * Sets the node's box; either makes it a leaf (returns 0) or partitions its
   * slots and returns how many go to the left child.
   */
  split(node: number, first: number, cnt: number): number {
    this.nodeBox(node, first, cnt);
    const cb = this.cbox;
    const ex = cb[3]! - cb[0]!;
    const ey = cb[4]! - cb[1]!;
    const ez = cb[5]! - cb[2]!;
    const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
    const extent = axis === 0 ? ex : axis === 1 ? ey : ez;
    if (cnt <= LEAF_SIZE) {
      this.start[node] = first;
      this.count[node] = cnt;
      return 0;
    }
    // All centroids coincide: no plane separates them, split by count.
    if (!(extent > 0)) return cnt >> 1;
    const bin = this.bestBin(first, cnt, axis, cb[axis]!, extent);
    const left = bin > 0 ? this.partition(first, cnt, axis, cb[axis]!, BINS / extent, bin) : 0;
    return left === 0 || left === cnt ? cnt >> 1 : left;
  }

  /** Node box from its triangles' boxes, and the box of their centroids into cbox. */
  private nodeBox(node: number, first: number, cnt: number): void {
    const { tb, cen, order, cbox } = this;
    let bx0 = Infinity, by0 = Infinity, bz0 = Infinity, bx1 = -Infinity, by1 = -Infinity, bz1 = -Infinity;
    let cx0 = Infinity, cy0 = Infinity, cz0 = Infinity, cx1 = -Infinity, cy1 = -Infinity, cz1 = -Infinity;
    for (let s = first; s < first + cnt; s++) {
      const t = order[s]!;
      bx0 = Math.min(bx0, tb[6 * t]!);
      by0 = Math.min(by0, tb[6 * t + 1]!);
      bz0 = Math.min(bz0, tb[6 * t + 2]!);
      bx1 = Math.max(bx1, tb[6 * t + 3]!);
      by1 = Math.max(by1, tb[6 * t + 4]!);
      bz1 = Math.max(bz1, tb[6 * t + 5]!);
      cx0 = Math.min(cx0, cen[3 * t]!);
      cy0 = Math.min(cy0, cen[3 * t + 1]!);
      cz0 = Math.min(cz0, cen[3 * t + 2]!);
      cx1 = Math.max(cx1, cen[3 * t]!);
      cy1 = Math.max(cy1, cen[3 * t + 1]!);
      cz1 = Math.max(cz1, cen[3 * t + 2]!);
    }
    const o = 6 * node;
    const b = this.bounds;
    b[o] = bx0;
    b[o + 1] = by0;
    b[o + 2] = bz0;
    b[o + 3] = bx1;
    b[o + 4] = by1;
    b[o + 5] = bz1;
    cbox[0] = cx0;
    cbox[1] = cy0;
    cbox[2] = cz0;
    cbox[3] = cx1;
    cbox[4] = cy1;
    cbox[5] = cz1;
  }

  /** Binned SAH: the bin b minimising the cost of "bins < b | bins >= b" (-1 if none splits). */
  private bestBin(first: number, cnt: number, axis: number, lo: number, extent: number): number {
    const { tb, cen, order, binBox, binCount, rightArea, rightCount } = this;
    binCount.fill(0);
    binBox.fill(Infinity);
    for (let b = 0; b < BINS; b++) binBox[6 * b + 3] = binBox[6 * b + 4] = binBox[6 * b + 5] = -Infinity;
    const scale = BINS / extent;
    for (let s = first; s < first + cnt; s++) {
      const t = order[s]!;
      const b = Math.min(BINS - 1, Math.floor((cen[3 * t + axis]! - lo) * scale));
      binCount[b]++;
      for (let k = 0; k < 3; k++) {
        binBox[6 * b + k] = Math.min(binBox[6 * b + k]!, tb[6 * t + k]!);
        binBox[6 * b + 3 + k] = Math.max(binBox[6 * b + 3 + k]!, tb[6 * t + 3 + k]!);
      }
    }
    // Sweep from the right: surface area and count of bins b..BINS-1.
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    let c = 0;
    for (let b = BINS - 1; b > 0; b--) {
      x0 = Math.min(x0, binBox[6 * b]!);
      y0 = Math.min(y0, binBox[6 * b + 1]!);
      z0 = Math.min(z0, binBox[6 * b + 2]!);
      x1 = Math.max(x1, binBox[6 * b + 3]!);
      y1 = Math.max(y1, binBox[6 * b + 4]!);
      z1 = Math.max(z1, binBox[6 * b + 5]!);
      c += binCount[b]!;
      rightCount[b] = c;
      rightArea[b] = c > 0 ? halfArea(x1 - x0, y1 - y0, z1 - z0) : 0;
    }
    // Sweep from the left, pricing each split.
    x0 = y0 = z0 = Infinity;
    x1 = y1 = z1 = -Infinity;
    c = 0;
    let bestCost = Infinity;
    let bestBin = -1;
    for (let b = 1; b < BINS; b++) {
      const p = b - 1;
      x0 = Math.min(x0, binBox[6 * p]!);
      y0 = Math.min(y0, binBox[6 * p + 1]!);
      z0 = Math.min(z0, binBox[6 * p + 2]!);
      x1 = Math.max(x1, binBox[6 * p + 3]!);
      y1 = Math.max(y1, binBox[6 * p + 4]!);
      z1 = Math.max(z1, binBox[6 * p + 5]!);
      c += binCount[p]!;
      if (c === 0 || rightCount[b]! === 0) continue;
      const cost = c * halfArea(x1 - x0, y1 - y0, z1 - z0) + rightCount[b]! * rightArea[b]!;
      if (cost < bestCost) {
        bestCost = cost;
        bestBin = b;
      }
    }
    return bestBin;
  }

  /** In-place partition of the slots: centroid bins < `bin` first; returns their count. */
  private partition(first: number, cnt: number, axis: number, lo: number, scale: number, bin: number): number {
    const { cen, order } = this;
    let i = first;
    let j = first + cnt - 1;
    while (i <= j) {
      const t = order[i]!;
      const b = Math.min(BINS - 1, Math.floor((cen[3 * t + axis]! - lo) * scale));
      if (b < bin) i++;
      else {
        order[i] = order[j]!;
        order[j] = t;
        j--;
      }
    }
    return i - first;
  }
}

function halfArea(x: number, y: number, z: number): number {
  return x * y + y * z + z * x;
}

/**
 * Reusable queries over one BVH. The query point goes in `point` and results
 * come back in `result`/return values, and scratch stacks live here, so the
 * per-node loops neither allocate nor box doubles (see pointTriangle.ts).
 */
export class TriangleBvhQuery {
  /** Query point (x, y, z); set before calling nearest / gather. */
  readonly point = new Float64Array(3);
  /** After nearest: [0] squared distance, [1], [2] barycentrics v, w of the closest point. */
  readonly result = new Float64Array(3);
  private readonly scratch = new Float64Array(3);
  private readonly stackNode: Int32Array;
  private readonly stackD2: Float64Array;

  constructor(readonly bvh: TriangleBvh) {
    // Each level leaves at most one deferred sibling on the stack.
    this.stackNode = new Int32Array(bvh.depth + 2);
    this.stackD2 = new Float64Array(bvh.depth + 2);
  }

  /**
   * The slot of the triangle nearest to `point` (mesh triangle
   * bvh.order[slot]); result[0] gets its squared distance. `seed` is a slot to
   * try first (-1 = none): a nearby answer bounds this one from above and
   * prunes most of the tree at once.
   */
  nearest(seed: number): number {
    const { bounds, start, count, order, tris } = this.bvh;
    const p = this.point;
    const px = p[0]!;
    const py = p[1]!;
    const pz = p[2]!;
    const sc = this.scratch;
    let best = Infinity;
    let bestSlot = -1;
    if (seed >= 0) {
      preparedClosest(tris, seed, p, sc);
      best = sc[0]!;
      bestSlot = seed;
    }
    const sn = this.stackNode;
    const sd = this.stackD2;
    sn[0] = 0;
    sd[0] = boxD2(bounds, 0, px, py, pz);
    let top = 1;
    while (top > 0) {
      top--;
      if (sd[top]! > best * PRUNE_SLACK) continue;
      const node = sn[top]!;
      const c = count[node]!;
      if (c > 0) {
        const s0 = start[node]!;
        for (let s = s0; s < s0 + c; s++) {
          if (s === bestSlot) continue;
          const o = s * PREPARED_STRIDE;
          const pd = tris[o + 12]! * px + tris[o + 13]! * py + tris[o + 14]! * pz - tris[o + 15]!;
          if (pd * pd > best * PRUNE_SLACK) continue;
          preparedClosest(tris, s, p, sc);
          const d2 = sc[0]!;
          if (d2 < best || (d2 === best && order[s]! < order[bestSlot]!)) {
            best = d2;
            bestSlot = s;
          }
        }
        continue;
      }
      const l = start[node]!;
      const dl = boxD2(bounds, l, px, py, pz);
      const dr = boxD2(bounds, l + 1, px, py, pz);
      const lim = best * PRUNE_SLACK;
      // Push the farther child first so the nearer one is explored first.
      if (dl <= dr) {
        if (dr <= lim) {
          sn[top] = l + 1;
          sd[top++] = dr;
        }
        if (dl <= lim) {
          sn[top] = l;
          sd[top++] = dl;
        }
      } else {
        if (dl <= lim) {
          sn[top] = l;
          sd[top++] = dl;
        }
        if (dr <= lim) {
          sn[top] = l + 1;
          sd[top++] = dr;
        }
      }
    }
    if (bestSlot >= 0) preparedClosest(tris, bestSlot, p, this.result);
    return bestSlot;
  }

  /**
   * Every triangle within `radius` of `point`: slots to slots[0..n), their
   * exact distances to dists[0..n) and, in grads[3i..3i+2], the unit gradient
   * of the distance to triangle i at `point` (point - closest) / distance
   * (zero when the point is on it); returns n. Arrays need room for all triangles.
   */
  gather(radius: number, slots: Int32Array, dists: Float64Array, grads: Float64Array): number {
    const { bounds, start, count, tris } = this.bvh;
    const p = this.point;
    const px = p[0]!;
    const py = p[1]!;
    const pz = p[2]!;
    const sc = this.scratch;
    const r2 = radius * radius * PRUNE_SLACK;
    const sn = this.stackNode;
    let n = 0;
    sn[0] = 0;
    let top = 1;
    while (top > 0) {
      const node = sn[--top]!;
      if (boxD2(bounds, node, px, py, pz) > r2) continue;
      const c = count[node]!;
      if (c === 0) {
        sn[top++] = start[node]!;
        sn[top++] = start[node]! + 1;
        continue;
      }
      const s0 = start[node]!;
      for (let s = s0; s < s0 + c; s++) {
        const o = s * PREPARED_STRIDE;
        const pd = tris[o + 12]! * px + tris[o + 13]! * py + tris[o + 14]! * pz - tris[o + 15]!;
        if (pd * pd > r2) continue;
        preparedClosest(tris, s, p, sc);
        const d2 = sc[0]!;
        if (d2 > r2) continue;
        const d = Math.sqrt(d2);
        const inv = d > 0 ? 1 / d : 0;
        const v = sc[1]!;
        const w = sc[2]!;
        grads[3 * n] = (px - (tris[o]! + v * tris[o + 3]! + w * tris[o + 6]!)) * inv;
        grads[3 * n + 1] = (py - (tris[o + 1]! + v * tris[o + 4]! + w * tris[o + 7]!)) * inv;
        grads[3 * n + 2] = (pz - (tris[o + 2]! + v * tris[o + 5]! + w * tris[o + 8]!)) * inv;
        slots[n] = s;
        dists[n++] = d;
      }
    }
    return n;
  }
}

function boxD2(b: Float64Array, node: number, px: number, py: number, pz: number): number {
  const o = 6 * node;
  let d = 0;
  let e = b[o]! - px;
  if (e > 0) d += e * e;
  else {
    e = px - b[o + 3]!;
    if (e > 0) d += e * e;
  }
  e = b[o + 1]! - py;
  if (e > 0) d += e * e;
  else {
    e = py - b[o + 4]!;
    if (e > 0) d += e * e;
  }
  e = b[o + 2]! - pz;
  if (e > 0) d += e * e;
  else {
    e = pz - b[o + 5]!;
    if (e > 0) d += e * e;
  }
  return d;
}
