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
 */
import { prepareKernelShape, queryRange, type KernelShape, type RecordOut } from './cpuKernel.ts';
import { POSE_STRIDE } from './query.ts';

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
}

export function allocBatchBuffers(caps: BatchCaps, alloc: (bytes: number) => ArrayBufferLike): BatchBuffers {
  return {
    taskInts: alloc(8 * caps.tasks),
    taskFloats: alloc(4 * (POSE_STRIDE + 1) * caps.tasks),
    pieces: alloc(16 * caps.pieces),
    chunks: alloc(4 * (4 * caps.chunks + 1)),
    sample: alloc(4 * caps.records),
    phi: alloc(4 * caps.records),
    normal: alloc(12 * caps.records),
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
  };
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
  shapes: SharedShapeMeta[];
  caps: BatchCaps;
  batch: BatchBuffers;
}

/** The shapes of a config as the kernel sees them: views of the shared buffers, plus cull data. */
export function kernelShapesOf(points: ArrayBufferLike, values: ArrayBufferLike, meta: readonly SharedShapeMeta[]): KernelShape[] {
  return meta.map((m) =>
    prepareKernelShape(new Float32Array(points, 4 * m.pointOffset, 4 * m.count), m.count, {
      origin: m.origin,
      cellSize: m.cellSize,
      dims: m.dims,
      values: new Float32Array(values, 4 * m.valueOffset, m.dims[0] * m.dims[1] * m.dims[2]),
    }),
  );
}

/** Runs chunk k (relative to the call): each piece through the kernel into the chunk's slot. */
export function runChunk(v: BatchViews, shapes: readonly KernelShape[], k: number, nrm: Float64Array): void {
  const out = v.out;
  const base = v.chunkBase[k]!;
  out.count = base;
  let evaluated = 0;
  for (let p = v.chunkPiece[k]!, pe = v.chunkPiece[k + 1]!; p < pe; p++) {
    const t = v.pieceTask[p]!;
    const before = out.count;
    evaluated += queryRange(shapes[v.shapeA[t]!]!, shapes[v.shapeB[t]!]!, v.poses, t * POSE_STRIDE, v.margin[t]!, v.pieceFirst[p]!, v.pieceEnd[p]!, out, nrm);
    v.pieceCount[p] = out.count - before;
  }
  v.chunkCount[k] = out.count - base;
  v.chunkEval[k] = evaluated;
}

/**
 * Claims and runs chunks of the current call until none is left (any
 * thread); returns how many it ran. A failing chunk still counts as done, with the error flagged,
 * so the main thread never waits for it forever.
 */
export function drainChunks(ctrl: Int32Array, v: BatchViews, shapes: readonly KernelShape[], nrm: Float64Array): number {
  let ran = 0;
  for (;;) {
    const i = Atomics.load(ctrl, C.NEXT);
    const end = Atomics.load(ctrl, C.END);
    if (i >= end) return ran;
    if (Atomics.compareExchange(ctrl, C.NEXT, i, i + 1) !== i) continue;
    try {
      runChunk(v, shapes, i - Atomics.load(ctrl, C.BASE), nrm);
    } catch {
      Atomics.store(ctrl, C.ERROR, 1);
    }
    ran++;
    if (Atomics.add(ctrl, C.DONE, 1) + 1 === end) Atomics.notify(ctrl, C.DONE);
  }
}
