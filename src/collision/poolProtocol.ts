/**
 * What the main thread and the query workers share (parallelQuery.ts is the
 * main side, queryWorker.ts the worker side): the control words, the layout
 * of the shared buffers, the config message, and the one loop by which any
 * thread claims and runs chunks of a batch. Loaded inside the workers: no
 * DOM, no Node, nothing but the kernel.
 *
 * A query call is cut into *pieces* (a task, or a range of a large task's
 * samples) grouped into *chunks* of about equal estimated cost, in
 * (task, sample) order. Every chunk owns a slot of the shared output as
 * large as its pieces have samples, so any thread can run any chunk without
 * coordinating with the others; the main thread then packs the slots in
 * chunk order, which is the order of the contract.
 *
 * Chunks are claimed through one counter (compare-and-swap on NEXT), so a
 * worker that wakes late, or not at all, only means another thread runs its
 * share: no thread ever waits for a particular other one, the main thread
 * included, which claims chunks like the workers do.
 *
 * Sample sets (query.ts, SAMPLE_SET), which change every call, travel with
 * the call: the main thread copies the sets its tasks sample, with their
 * cull data, into the shared set buffers and renumbers them by slot (a
 * task's shapeA is then SAMPLE_SET | slot); every thread reads them there.
 */
import { prepareKernelShape, queryRange, sphereFloats, type KernelSamples, type KernelShape, type RecordOut } from './cpuKernel.ts';
import { POSE_STRIDE, SAMPLE_SET } from './query.ts';
import type { SdfGrid } from '../sdf/grid.ts';

/**
 * Control words (Int32, each on its own 64-byte line so that the counters
 * the threads hammer do not share a cache line).
 */
export const C = {
  /** Bumped (and notified) to wake the workers; they wait on it. */
  SEQ: 0,
  /** Config generation: a worker whose config is older returns to its event loop for the new one. */
  GEN: 16,
  /** Next chunk to claim (absolute index). */
  NEXT: 32,
  /** Chunks [BASE, END) belong to the current call. */
  END: 48,
  BASE: 64,
  /** Chunks completed (absolute); the main thread waits for DONE === END. */
  DONE: 80,
  /** Workers inside the claim section (the main thread waits for 0 before swapping buffers). */
  BUSY: 96,
  /** Nonzero: exit. */
  EXIT: 112,
  /** First error a worker met (1), for the main thread to raise. */
  ERROR: 128,
  /** Per worker w: the config generation it has applied, at READY + 16 w. */
  READY: 144,
} as const;

export function controlWords(workers: number): number {
  return C.READY + 16 * Math.max(1, workers);
}

/** Capacities of the per-call buffers (they only grow; a growth is a new config). */
export interface BatchCaps {
  tasks: number;
  pieces: number;
  chunks: number;
  records: number;
  /** Sample sets of one call, their points (floats, 4 per point) and their clusters' spheres (float64s, 4 per cluster). */
  sets: number;
  setPoints: number;
  setClusters: number;
}

/** The per-call shared buffers (SharedArrayBuffer in the pool; any ArrayBuffer works). */
export interface BatchBuffers {
  /** Per task: shapeA, shapeB (Uint32). */
  taskInts: ArrayBufferLike;
  /** Per task: POSE_STRIDE pose floats, then (after all poses) one margin (Float32). */
  taskFloats: ArrayBufferLike;
  /** Per piece: task, first sample, end sample, records found (Uint32, 4 columns). */
  pieces: ArrayBufferLike;
  /** Per chunk: first piece (caps.chunks + 1 of them), slot base, records found, samples evaluated (Uint32). */
  chunks: ArrayBufferLike;
  /** The output slots: sample (Uint32), phi (Float32), normal (3 Float32) per record. */
  sample: ArrayBufferLike;
  phi: ArrayBufferLike;
  normal: ArrayBufferLike;
  /** The call's sample sets: per slot SET_META float64s (SetMeta), then their points (Float32) and clusters (Float64). */
  setMeta: ArrayBufferLike;
  setPoints: ArrayBufferLike;
  setClusters: ArrayBufferLike;
}

/** Float64s per sample-set slot in BatchBuffers.setMeta: point offset, count, cluster offset, centre x, y, z, radius, unused. */
export const SET_META = 8;

export function allocBatchBuffers(caps: BatchCaps, alloc: (bytes: number) => ArrayBufferLike): BatchBuffers {
  return {
    taskInts: alloc(8 * caps.tasks),
    taskFloats: alloc(4 * (POSE_STRIDE + 1) * caps.tasks),
    pieces: alloc(16 * caps.pieces),
    chunks: alloc(4 * (4 * caps.chunks + 1)),
    sample: alloc(4 * caps.records),
    phi: alloc(4 * caps.records),
    normal: alloc(12 * caps.records),
    setMeta: alloc(8 * SET_META * caps.sets),
    setPoints: alloc(4 * caps.setPoints),
    setClusters: alloc(8 * caps.setClusters),
  };
}

/** Typed views of BatchBuffers, laid out the same way on every thread. */
export interface BatchViews {
  shapeA: Uint32Array;
  shapeB: Uint32Array;
  poses: Float32Array;
  margin: Float32Array;
  pieceTask: Uint32Array;
  pieceFirst: Uint32Array;
  pieceEnd: Uint32Array;
  pieceCount: Uint32Array;
  chunkPiece: Uint32Array;
  chunkBase: Uint32Array;
  chunkCount: Uint32Array;
  chunkEval: Uint32Array;
  out: RecordOut;
  setMeta: Float64Array;
  setPoints: Float32Array;
  setClusters: Float64Array;
}

export function batchViews(b: BatchBuffers, caps: BatchCaps): BatchViews {
  const T = caps.tasks, P = caps.pieces, K = caps.chunks;
  return {
    shapeA: new Uint32Array(b.taskInts, 0, T),
    shapeB: new Uint32Array(b.taskInts, 4 * T, T),
    poses: new Float32Array(b.taskFloats, 0, POSE_STRIDE * T),
    margin: new Float32Array(b.taskFloats, 4 * POSE_STRIDE * T, T),
    pieceTask: new Uint32Array(b.pieces, 0, P),
    pieceFirst: new Uint32Array(b.pieces, 4 * P, P),
    pieceEnd: new Uint32Array(b.pieces, 8 * P, P),
    pieceCount: new Uint32Array(b.pieces, 12 * P, P),
    chunkPiece: new Uint32Array(b.chunks, 0, K + 1),
    chunkBase: new Uint32Array(b.chunks, 4 * (K + 1), K),
    chunkCount: new Uint32Array(b.chunks, 4 * (2 * K + 1), K),
    chunkEval: new Uint32Array(b.chunks, 4 * (3 * K + 1), K),
    out: {
      count: 0,
      sample: new Uint32Array(b.sample, 0, caps.records),
      phi: new Float32Array(b.phi, 0, caps.records),
      normal: new Float32Array(b.normal, 0, 3 * caps.records),
    },
    setMeta: new Float64Array(b.setMeta, 0, SET_META * caps.sets),
    setPoints: new Float32Array(b.setPoints, 0, caps.setPoints),
    setClusters: new Float64Array(b.setClusters, 0, caps.setClusters),
  };
}

/**
 * Writes sample set `A` into slot `slot` of the call's set buffers, its points
 * at float `pointOffset` and its clusters at float64 `clusterOffset` (the
 * caller has made room); the task then names it as SAMPLE_SET | slot.
 */
export function writeCallSet(v: BatchViews, slot: number, A: KernelSamples, pointOffset: number, clusterOffset: number): void {
  const m = SET_META * slot;
  const c = A.centre ?? [0, 0, 0];
  v.setMeta[m] = pointOffset;
  v.setMeta[m + 1] = A.count;
  v.setMeta[m + 2] = clusterOffset;
  v.setMeta[m + 3] = c[0];
  v.setMeta[m + 4] = c[1];
  v.setMeta[m + 5] = c[2];
  v.setMeta[m + 6] = A.radius;
  v.setPoints.set(A.points.subarray(0, 4 * A.count), pointOffset);
  v.setClusters.set(A.clusters, clusterOffset);
}

/**
 * The sample sets of the current call as one thread's kernel sees them:
 * views of the shared set buffers, made on first use and kept for the call
 * (a call is known by its first chunk, BASE, which no other call of the
 * same config shares; a new config makes a new CallSets).
 */
export class CallSets {
  private base = -1;
  private readonly cache: (KernelSamples | undefined)[] = [];

  constructor(private readonly v: BatchViews) {}

  get(slot: number, base: number): KernelSamples {
    if (base !== this.base) {
      this.base = base;
      this.cache.length = 0;
    }
    let s = this.cache[slot];
    if (!s) {
      const v = this.v, m = SET_META * slot;
      const pointOffset = v.setMeta[m]!, count = v.setMeta[m + 1]!, clusterOffset = v.setMeta[m + 2]!;
      s = {
        points: v.setPoints.subarray(pointOffset, pointOffset + 4 * count),
        count,
        radius: v.setMeta[m + 6]!,
        centre: [v.setMeta[m + 3]!, v.setMeta[m + 4]!, v.setMeta[m + 5]!],
        order: null,
        clusters: v.setClusters.subarray(clusterOffset, clusterOffset + sphereFloats(count)),
      };
      this.cache[slot] = s;
    }
    return s;
  }
}

/** Where a shape's data sits in the shared shape buffers (the config message carries these). */
export interface SharedShapeMeta {
  /** First float of its points in `points`, and its sample count (4 floats each). */
  pointOffset: number;
  count: number;
  /** First value of its field in `values`, and the grid's geometry. */
  valueOffset: number;
  origin: [number, number, number];
  cellSize: number;
  dims: [number, number, number];
  /**
   * Its cull data as the main thread prepared it (prepareKernelShape): its
   * spatial order at `orderOffset` in `orders` (count entries), its spheres at
   * `sphereOffset` in `spheres` (sphereFloats(count)), and its radius. A
   * worker reads them instead of preparing them again: on a mesh of a
   * million triangles that took each worker as long as the main thread.
   */
  orderOffset: number;
  sphereOffset: number;
  radius: number;
}

/** The one message the main thread sends a worker: everything it needs, sent again whenever a buffer changes. */
export interface PoolConfig {
  type: 'config';
  /** The worker's index (its READY word). */
  worker: number;
  gen: number;
  control: SharedArrayBuffer;
  /** Bumped when the shapes change (the worker re-derives its cull data only then). */
  shapesVersion: number;
  points: ArrayBufferLike;
  values: ArrayBufferLike;
  /** The shapes' spatial orders (Uint32) and cull spheres (Float64), SharedShapeMeta. */
  orders: ArrayBufferLike;
  spheres: ArrayBufferLike;
  shapes: SharedShapeMeta[];
  caps: BatchCaps;
  batch: BatchBuffers;
}

/** The shapes of a config as the kernel sees them: views of the shared buffers, cull data included. */
export function kernelShapesOf(points: ArrayBufferLike, values: ArrayBufferLike, orders: ArrayBufferLike, spheres: ArrayBufferLike, meta: readonly SharedShapeMeta[]): KernelShape[] {
  return meta.map((m) => ({
    points: new Float32Array(points, 4 * m.pointOffset, 4 * m.count),
    count: m.count,
    radius: m.radius,
    centre: null,
    order: new Uint32Array(orders, 4 * m.orderOffset, m.count),
    clusters: new Float64Array(spheres, 8 * m.sphereOffset, sphereFloats(m.count)),
    grid: sharedGrid(values, m),
  }));
}

/** A shape's field as a view of the shared values. */
function sharedGrid(values: ArrayBufferLike, m: SharedShapeMeta): SdfGrid {
  return { origin: m.origin, cellSize: m.cellSize, dims: m.dims, values: new Float32Array(values, 4 * m.valueOffset, m.dims[0] * m.dims[1] * m.dims[2]) };
}

/**
 * Prepares the cull data of the shapes whose points and fields `meta` places
 * in the shared buffers (prepareKernelShape, once, on the calling thread),
 * fills in each one's offsets and radius, and returns the shared buffers
 * holding the orders and spheres.
 */
export function shareCullData(points: ArrayBufferLike, values: ArrayBufferLike, meta: SharedShapeMeta[], share: (bytes: number) => ArrayBufferLike): { orders: ArrayBufferLike; spheres: ArrayBufferLike } {
  let orderCount = 0, sphereCount = 0;
  const prepared = meta.map((m) => {
    m.orderOffset = orderCount;
    m.sphereOffset = sphereCount;
    orderCount += m.count;
    sphereCount += sphereFloats(m.count);
    return prepareKernelShape(new Float32Array(points, 4 * m.pointOffset, 4 * m.count), m.count, sharedGrid(values, m));
  });
  const orders = share(4 * Math.max(1, orderCount)), spheres = share(8 * Math.max(1, sphereCount));
  const ov = new Uint32Array(orders), sv = new Float64Array(spheres);
  prepared.forEach((k, i) => {
    const m = meta[i]!;
    m.radius = k.radius;
    if (k.order) ov.set(k.order, m.orderOffset);
    else for (let j = 0; j < m.count; j++) ov[m.orderOffset + j] = j;
    sv.set(k.clusters.subarray(0, sphereFloats(m.count)), m.sphereOffset);
  });
  return { orders, spheres };
}

/** Runs chunk k of the call whose first chunk is `base`: each piece through the kernel into the chunk's slot. */
export function runChunk(v: BatchViews, shapes: readonly KernelShape[], sets: CallSets, base: number, k: number, nrm: Float64Array): void {
  const out = v.out;
  const slot = v.chunkBase[k]!;
  out.count = slot;
  let evaluated = 0;
  for (let p = v.chunkPiece[k]!, pe = v.chunkPiece[k + 1]!; p < pe; p++) {
    const t = v.pieceTask[p]!;
    const before = out.count;
    const a = v.shapeA[t]!;
    const A = a & SAMPLE_SET ? sets.get((a & ~SAMPLE_SET) >>> 0, base) : shapes[a]!;
    evaluated += queryRange(A, shapes[v.shapeB[t]!]!, v.poses, t * POSE_STRIDE, v.margin[t]!, v.pieceFirst[p]!, v.pieceEnd[p]!, out, nrm);
    v.pieceCount[p] = out.count - before;
  }
  v.chunkCount[k] = out.count - slot;
  v.chunkEval[k] = evaluated;
}

/**
 * Claims and runs chunks of the current call until none is left (any
 * thread); returns how many it ran. A failing chunk still counts as done, with the error flagged,
 * so the main thread never waits for it forever.
 */
export function drainChunks(ctrl: Int32Array, v: BatchViews, shapes: readonly KernelShape[], sets: CallSets, nrm: Float64Array): number {
  let ran = 0;
  for (;;) {
    const i = Atomics.load(ctrl, C.NEXT);
    const end = Atomics.load(ctrl, C.END);
    if (i >= end) return ran;
    if (Atomics.compareExchange(ctrl, C.NEXT, i, i + 1) !== i) continue;
    try {
      const base = Atomics.load(ctrl, C.BASE);
      runChunk(v, shapes, sets, base, i - base, nrm);
    } catch {
      Atomics.store(ctrl, C.ERROR, 1);
    }
    ran++;
    if (Atomics.add(ctrl, C.DONE, 1) + 1 === end) Atomics.notify(ctrl, C.DONE);
  }
}
