/**
 * The CPU query kernel's own guarantees (src/collision/cpuKernel.ts): its
 * spatial clusters hold their samples and are compact, its culls never drop
 * a record, a task cut into pieces gives the whole task's records, and the
 * records of a task come out sorted by sample index.
 */
import { describe, expect, it } from 'vitest';
import {
  BLOCK_SAMPLES,
  CLUSTER_SAMPLES,
  GROUP_SAMPLES,
  prepareKernelShape,
  queryRange,
  sortRecords,
  spatialOrder,
  type KernelShape,
  type RecordOut,
} from '../../src/collision/cpuKernel.ts';
import { POSE_STRIDE } from '../../src/collision/query.ts';
import { sampleCount, samplesBoundingSphere } from '../../src/geometry/samples.ts';
import { randomBatch, rng, SHAPE_NAMES, testShapes, TORUS } from './queryFixtures.ts';

const shapes = testShapes();
const kernel: KernelShape[] = shapes.map((s) => prepareKernelShape(s.samples.points, sampleCount(s.samples), s.sdf));

function records(n: number): RecordOut {
  return { count: 0, sample: new Uint32Array(n), phi: new Float32Array(n), normal: new Float32Array(3 * n) };
}

/** Records [from, to) of `out` as rows (sample, phi, normal), for exact comparison. */
function rows(out: RecordOut, from = 0, to = out.count): number[][] {
  const r: number[][] = [];
  for (let i = from; i < to; i++) r.push([out.sample[i]!, out.phi[i]!, out.normal[3 * i]!, out.normal[3 * i + 1]!, out.normal[3 * i + 2]!]);
  return r;
}

/**
 * The spatial order by its definition: each range longer than a cluster
 * sorted whole along its box's longest axis (index as the last key) and
 * split at the whole unit nearest its median; a cluster keeps its parent's
 * order.
 */
function sortedOrder(points: Float32Array, count: number): Uint32Array {
  const order = new Uint32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  const split = (lo: number, hi: number): void => {
    if (hi - lo <= CLUSTER_SAMPLES) return;
    const ext = [0, 1, 2].map((c) => {
      let a = Infinity, b = -Infinity;
      for (let i = lo; i < hi; i++) { const x = points[4 * order[i]! + c]!; a = Math.min(a, x); b = Math.max(b, x); }
      return b - a;
    });
    const axis = ext[0]! >= ext[1]! && ext[0]! >= ext[2]! ? 0 : ext[1]! >= ext[2]! ? 1 : 2;
    const part = Array.from(order.subarray(lo, hi)).sort((a, b) => points[4 * a + axis]! - points[4 * b + axis]! || a - b);
    order.set(part, lo);
    const unit = hi - lo > BLOCK_SAMPLES ? BLOCK_SAMPLES : hi - lo > GROUP_SAMPLES ? GROUP_SAMPLES : CLUSTER_SAMPLES;
    const mid = lo + unit * Math.ceil(Math.ceil((hi - lo) / unit) / 2);
    split(lo, mid);
    split(mid, hi);
  };
  split(0, count);
  return order;
}

describe('the CPU query kernel', () => {
  it('orders samples as sorting every range would, ties between equal coordinates included, by selection', () => {
    const r = rng(7);
    for (const n of [0, 5, 8, 9, 64, 65, 513, 3000, 20000]) {
      const spread = new Float32Array(4 * n), ties = new Float32Array(4 * n), flat = new Float32Array(4 * n);
      for (let i = 0; i < n; i++) {
        for (let c = 0; c < 3; c++) spread[4 * i + c] = 2 * r() - 1;
        // A lattice: many samples share each coordinate (and 0 meets -0).
        ties[4 * i] = Math.floor(5 * r()); ties[4 * i + 1] = Math.floor(3 * r()); ties[4 * i + 2] = i % 2 ? 0 : -0;
      }
      for (const pts of [spread, ties, flat]) expect(Array.from(spatialOrder(pts, n))).toEqual(Array.from(sortedOrder(pts, n)));
    }
  });

  it('groups each shape\'s samples into spatial clusters whose spheres hold them, far tighter than in mesh order', () => {
    kernel.forEach((k, si) => {
      const name = SHAPE_NAMES[si];
      const n = k.count;
      const order = k.order!;
      expect(order, name).not.toBeNull();
      // A permutation of the samples.
      const seen = new Uint8Array(n);
      for (let i = 0; i < n; i++) seen[order[i]!]!++;
      expect(seen.every((x) => x === 1), name).toBe(true);
      // Every cluster's (group's, block's) sphere holds the points at its positions.
      const nc = Math.ceil(n / CLUSTER_SAMPLES);
      const holds = (sphere: number, first: number, end: number): void => {
        const [cx, cy, cz, r] = k.clusters.subarray(4 * sphere, 4 * sphere + 4);
        for (let i = first; i < end; i++) {
          const p = 4 * order[i]!;
          const d = Math.hypot(k.points[p]! - cx!, k.points[p + 1]! - cy!, k.points[p + 2]! - cz!);
          expect(d, `${name} position ${i}`).toBeLessThanOrEqual(r! * (1 + 1e-12) + 1e-12);
        }
      };
      for (let c = 0; c < nc; c++) holds(c, c * CLUSTER_SAMPLES, Math.min(n, (c + 1) * CLUSTER_SAMPLES));
      const ng = Math.ceil(n / GROUP_SAMPLES);
      for (let g = 0; g < ng; g++) holds(nc + g, g * GROUP_SAMPLES, Math.min(n, (g + 1) * GROUP_SAMPLES));
      for (let q = 0; q < Math.ceil(n / BLOCK_SAMPLES); q++) holds(nc + ng + q, q * BLOCK_SAMPLES, Math.min(n, (q + 1) * BLOCK_SAMPLES));
      expect(k.clusters.length, name).toBe(4 * (nc + ng + Math.ceil(n / BLOCK_SAMPLES)));
    });
    // Compact: the groups of a torus in mesh order span half the ring.
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    kernel.forEach((k, si) => {
      const n = k.count, nc = Math.ceil(n / CLUSTER_SAMPLES);
      const spatial: number[] = [], meshOrder: number[] = [];
      for (let g = 0; g < Math.ceil(n / GROUP_SAMPLES); g++) {
        spatial.push(k.clusters[4 * (nc + g) + 3]!);
        meshOrder.push(samplesBoundingSphere(shapes[si]!.samples, g * GROUP_SAMPLES, Math.min(n, (g + 1) * GROUP_SAMPLES))[3]);
      }
      expect(median(spatial), SHAPE_NAMES[si]).toBeLessThanOrEqual(median(meshOrder));
      if (si === TORUS) expect(median(spatial)).toBeLessThan(0.5 * median(meshOrder));
    });
  });

  it('its culls never drop a record: the same records as with every sample evaluated', () => {
    const batch = randomBatch(shapes, 11, 24, 1);
    // Spheres of infinite radius pass every cull below the whole-task one.
    const uncull = kernel.map((k) => ({ ...k, clusters: k.clusters.map((v, i) => (i % 4 === 3 ? Infinity : v)) }));
    const nrm = new Float64Array(3);
    let total = 0, culledEval = 0, fullEval = 0;
    for (let t = 0; t < batch.count; t++) {
      const A = kernel[batch.shapeA[t]!]!, B = kernel[batch.shapeB[t]!]!;
      const a = records(A.count), b = records(A.count);
      culledEval += queryRange(A, B, batch.poses, t * POSE_STRIDE, batch.margin[t]!, 0, A.count, a, nrm);
      fullEval += queryRange(uncull[batch.shapeA[t]!]!, B, batch.poses, t * POSE_STRIDE, batch.margin[t]!, 0, A.count, b, nrm);
      expect(rows(a), `task ${t}`).toEqual(rows(b));
      total += a.count;
    }
    expect(total).toBeGreaterThan(1000);
    // ...and they do cull.
    expect(culledEval).toBeLessThan(0.8 * fullEval);
  });

  it('returns a task\'s records sorted by sample, and a task cut into pieces of whole groups, sorted again, gives the same', () => {
    const batch = randomBatch(shapes, 5, 16, 1);
    const r = rng(9);
    const nrm = new Float64Array(3);
    let split = 0;
    for (let t = 0; t < batch.count; t++) {
      const A = kernel[batch.shapeA[t]!]!, B = kernel[batch.shapeB[t]!]!;
      const whole = records(A.count);
      queryRange(A, B, batch.poses, t * POSE_STRIDE, batch.margin[t]!, 0, A.count, whole, nrm);
      for (let i = 1; i < whole.count; i++) expect(whole.sample[i]!).toBeGreaterThan(whole.sample[i - 1]!);
      const parts = records(A.count);
      for (let f = 0; f < A.count; ) {
        const e = Math.min(A.count, f + GROUP_SAMPLES * (1 + Math.floor(r() * 3)));
        queryRange(A, B, batch.poses, t * POSE_STRIDE, batch.margin[t]!, f, e, parts, nrm);
        split++;
        f = e;
      }
      sortRecords(parts, 0, parts.count);
      expect(rows(parts), `task ${t}`).toEqual(rows(whole));
    }
    expect(split).toBeGreaterThan(2 * batch.count);
  });

  it('sortRecords orders any records by sample and carries each one\'s value and normal along', () => {
    const r = rng(3);
    for (const [n, range] of [[0, 1], [1, 9], [2, 200000], [7, 200000], [32, 200000], [33, 200000], [100, 200000], [5000, 200000], [100, 300], [5000, 15000]] as const) {
      // Distinct samples from a range far larger than n or a few times n,
      // shuffled: up to 32 sorted by insertion, beyond through the table of
      // places and its bits (one sort after another, so a bit left set by
      // one would show in the next).
      const picked = new Set<number>();
      while (picked.size < n) picked.add(Math.floor(r() * range));
      const samples = [...picked];
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [samples[i], samples[j]] = [samples[j]!, samples[i]!];
      }
      // Records at an offset, between untouched ones.
      const out = records(n + 4);
      const at = 2;
      out.sample[0] = 999999;
      out.sample[n + 3] = 1;
      samples.forEach((s, i) => {
        out.sample[at + i] = s;
        out.phi[at + i] = s / 7;
        out.normal.set([s, -s, s / 2], 3 * (at + i));
      });
      sortRecords(out, at, at + n);
      const want = [...samples].sort((a, b) => a - b);
      for (let i = 0; i < n; i++) {
        const s = want[i]!;
        expect(out.sample[at + i]).toBe(s);
        expect(out.phi[at + i]).toBe(Math.fround(s / 7));
        expect([...out.normal.subarray(3 * (at + i), 3 * (at + i) + 3)]).toEqual([s, -s, Math.fround(s / 2)]);
      }
      expect(out.sample[0]).toBe(999999);
      expect(out.sample[n + 3]).toBe(1);
    }
  });
});
