/**
 * Pairs of overlapping axis-aligned boxes, by traversing a box tree against
 * itself or against another tree: the candidate search of the mesh
 * self-intersection test (intersect.ts; docs/ALGORITHM.md 1, "Meshes whose
 * parts cross or nest").
 *
 * A tree has the node layout of the triangle BVH (bvh.ts), so that BVH is one
 * (its slots name mesh triangles): bounds[6n .. 6n+5] = min x, y, z, max x,
 * y, z of node n; count[n] = 0 for an internal node with children start[n]
 * and start[n] + 1, else a leaf of slots start[n] .. start[n] + count[n] - 1;
 * slot s holds item order[s]. `buildBoxTree` makes one over any boxes (the
 * arcs of directions of the triangles around a hub, hubPairs.ts): median
 * splits along the longest axis of the box centres, so the depth is
 * log2(n / LEAF) whatever the boxes.
 */

export interface BoxTree {
  bounds: Float64Array;
  start: Int32Array;
  count: Int32Array;
  order: Uint32Array;
}

/** Receives each candidate pair of items (a class, not a closure: the pair test is the hot loop, STYLE.md point 6). */
export interface PairVisitor {
  visit(i: number, j: number): void;
}

/** Most items in a leaf of `buildBoxTree` (the triangle BVH's LEAF_SIZE). */
const LEAF = 4;

/**
 * Every pair of items (one from A, one from B; or two of A when B is A) whose
 * boxes overlap within `slack`, each once, to `visit`. Within one leaf of a
 * tree traversed against itself every pair is visited without a box test (the
 * visitor tests its items' own boxes). The order of the visits is that of a
 * depth-first descent into the larger of two overlapping nodes, the order the
 * self-intersection test has always used.
 */
export function overlappingPairs(A: BoxTree, B: BoxTree, slack: number, visitor: PairVisitor): void {
  const same = A === B;
  const ba = A.bounds, bb = B.bounds;
  if (A.count.length === 0 || B.count.length === 0) return;
  const stack: number[] = [0, 0];
  while (stack.length > 0) {
    const b = stack.pop()!;
    const a = stack.pop()!;
    const ca = A.count[a]!, cb = B.count[b]!;
    if (same && a === b) {
      if (ca > 0) {
        const s0 = A.start[a]!;
        for (let i = s0; i < s0 + ca; i++) for (let j = i + 1; j < s0 + ca; j++) visitor.visit(A.order[i]!, A.order[j]!);
      } else {
        const l = A.start[a]!;
        stack.push(l, l, l + 1, l + 1, l, l + 1);
      }
      continue;
    }
    if (!overlap(ba, a, bb, b, slack)) continue;
    if (ca > 0 && cb > 0) {
      for (let i = A.start[a]!; i < A.start[a]! + ca; i++) {
        for (let j = B.start[b]!; j < B.start[b]! + cb; j++) visitor.visit(A.order[i]!, B.order[j]!);
      }
    } else if (ca === 0 && (cb > 0 || boxSize(ba, a) >= boxSize(bb, b))) {
      stack.push(A.start[a]!, b, A.start[a]! + 1, b);
    } else {
      stack.push(a, B.start[b]!, a, B.start[b]! + 1);
    }
  }
}

function overlap(ba: Float64Array, a: number, bb: Float64Array, b: number, slack: number): boolean {
  for (let k = 0; k < 3; k++) {
    if (ba[6 * a + k]! > bb[6 * b + 3 + k]! + slack) return false;
    if (bb[6 * b + k]! > ba[6 * a + 3 + k]! + slack) return false;
  }
  return true;
}

function boxSize(b: Float64Array, n: number): number {
  return b[6 * n + 3]! - b[6 * n]! + b[6 * n + 4]! - b[6 * n + 1]! + b[6 * n + 5]! - b[6 * n + 2]!;
}

/**
 * A tree over the boxes of `items` (box of item i at boxes[6i .. 6i+5]: min
 * xyz, max xyz). With no items it has no nodes (and overlappingPairs visits
 * nothing).
 */
export function buildBoxTree(boxes: Float64Array, items: ArrayLike<number>): BoxTree {
  const b = new BoxTreeBuilder(boxes, items);
  if (items.length === 0) return { bounds: b.bounds, start: b.start, count: b.count, order: b.order };
  // Work list of (node, first slot, slot count).
  const work: number[] = [0, 0, items.length];
  while (work.length > 0) {
    const cnt = work.pop()!;
    const first = work.pop()!;
    const node = work.pop()!;
    const half = b.split(node, first, cnt);
    if (half === 0) continue;
    const left = b.nodes;
    b.nodes += 2;
    b.start[node] = left;
    b.count[node] = 0;
    work.push(left, first, half, left + 1, first + half, cnt - half);
  }
  const n = b.nodes;
  return { bounds: b.bounds.subarray(0, 6 * n), start: b.start.subarray(0, n), count: b.count.subarray(0, n), order: b.order };
}

/**
 * Build state and the step per node: a method called once per node, not one
 * long loop, since V8 optimises a function after many calls (as bvh.ts's
 * BvhBuilder; in one function the first build of 40 000 boxes took 580 ms,
 * ten times the later ones).
 */
class BoxTreeBuilder {
  readonly order: Uint32Array;
  readonly bounds: Float64Array;
  readonly start: Int32Array;
  readonly count: Int32Array;
  nodes = 1;
  private seed = 2463534242;

  constructor(private readonly boxes: Float64Array, items: ArrayLike<number>) {
    const n = items.length;
    this.order = Uint32Array.from(items);
    // Halving stops at LEAF or fewer, so a leaf holds at least 2 items (when n > 1): at most n nodes.
    const maxNodes = n;
    this.bounds = new Float64Array(6 * maxNodes);
    this.start = new Int32Array(maxNodes);
    this.count = new Int32Array(maxNodes);
  }

  /** Sets the node's box; makes it a leaf (returns 0) or orders its slots about the median and returns the left half's size. */
  split(node: number, first: number, cnt: number): number {
    const boxes = this.boxes, order = this.order;
    // Node box, and the box of the item centres (doubled: no halving needed to compare them).
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    let cx0 = Infinity, cy0 = Infinity, cz0 = Infinity, cx1 = -Infinity, cy1 = -Infinity, cz1 = -Infinity;
    for (let s = first; s < first + cnt; s++) {
      const o = 6 * order[s]!;
      const lx = boxes[o]!, ly = boxes[o + 1]!, lz = boxes[o + 2]!, hx = boxes[o + 3]!, hy = boxes[o + 4]!, hz = boxes[o + 5]!;
      if (lx < x0) x0 = lx;
      if (ly < y0) y0 = ly;
      if (lz < z0) z0 = lz;
      if (hx > x1) x1 = hx;
      if (hy > y1) y1 = hy;
      if (hz > z1) z1 = hz;
      const cx = lx + hx, cy = ly + hy, cz = lz + hz;
      if (cx < cx0) cx0 = cx;
      if (cx > cx1) cx1 = cx;
      if (cy < cy0) cy0 = cy;
      if (cy > cy1) cy1 = cy;
      if (cz < cz0) cz0 = cz;
      if (cz > cz1) cz1 = cz;
    }
    const o = 6 * node, bounds = this.bounds;
    bounds[o] = x0;
    bounds[o + 1] = y0;
    bounds[o + 2] = z0;
    bounds[o + 3] = x1;
    bounds[o + 4] = y1;
    bounds[o + 5] = z1;
    if (cnt <= LEAF) {
      this.start[node] = first;
      this.count[node] = cnt;
      return 0;
    }
    const ex = cx1 - cx0, ey = cy1 - cy0, ez = cz1 - cz0;
    const axis = ex >= ey && ex >= ez ? 0 : ey >= ez ? 1 : 2;
    const half = cnt >> 1;
    this.select(axis, first, first + cnt, first + half);
    return half;
  }

  /**
   * Reorders order[lo, hi) so that slot k holds the item whose box centre
   * along `axis` is k-th smallest, with no larger centre before it and no
   * smaller one after (quickselect, Hoare partition: linear on average, and
   * even when many centres are equal). The pivot is the median of three slots
   * drawn by a fixed pseudo-random sequence, not the first, middle and last:
   * those are a bad choice for centres that rise and fall along the slots (a
   * fan's directions, x = -sin(angle / 2)), which made the tree of 20 000
   * such boxes take 60 ms instead of 15.
   */
  private select(axis: number, lo: number, hi: number, k: number): void {
    const boxes = this.boxes, order = this.order;
    const lo3 = axis, hi3 = 3 + axis;
    while (hi - lo > 1) {
      const n = hi - lo;
      const ia = 6 * order[lo + this.draw(n)]!, ib = 6 * order[lo + this.draw(n)]!, ic = 6 * order[lo + this.draw(n)]!;
      const a = boxes[ia + lo3]! + boxes[ia + hi3]!, b = boxes[ib + lo3]! + boxes[ib + hi3]!, c = boxes[ic + lo3]! + boxes[ic + hi3]!;
      const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
      let i = lo, j = hi - 1;
      while (i <= j) {
        while (boxes[6 * order[i]! + lo3]! + boxes[6 * order[i]! + hi3]! < pivot) i++;
        while (boxes[6 * order[j]! + lo3]! + boxes[6 * order[j]! + hi3]! > pivot) j--;
        if (i <= j) {
          const t = order[i]!;
          order[i] = order[j]!;
          order[j] = t;
          i++;
          j--;
        }
      }
      if (k <= j) hi = j + 1;
      else if (k >= i) lo = i;
      else return;
    }
  }

  /** A pseudo-random slot in [0, n) (xorshift32 from a fixed seed, so the tree is the same on every run). */
  private draw(n: number): number {
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x;
    return (x >>> 0) % n;
  }
}
