import type { CollisionSamples } from '../geometry/samples.ts';
import type { SdfGrid } from '../sdf/grid.ts';
import { growColumns } from '../util/growable.ts';

/**
 * The penetration query, the one hot path shared by collision and contact
 * resolution (docs/ALGORITHM.md 4.3). It has two twins with this one interface:
 * `CpuPenetrationBackend` (src/collision/cpuQuery.ts) and
 * `GpuPenetrationBackend` (src/gpu/penetrationPass.ts, shaders/penetration.wgsl).
 *
 * A *task* is one direction of one candidate pair: "the samples of shape A,
 * posed in the frame of shape B, against B's SDF". The world sends both
 * directions of every pair that needs a fresh query in ONE call.
 *
 * Results: every sample of A (vertex, face or edge sample) with
 * phi_B < margin, where the margin is the task's own (B's units). Beyond B's
 * grid box the field continues as its value at the nearest point of the box
 * plus the distance to that point (normal: away from the box), so a margin
 * may reach past the grid's padding and the field stays Lipschitz (constant
 * 1 + sqrt(3)) everywhere, which the narrow phase's motion bound relies on. A margin
 * above 0 returns the samples near B's surface too, so the narrow phase can
 * evaluate later iterations, and later steps, from these records alone while
 * the pair moves less than the margin (src/dynamics/narrowphase.ts). Records
 * are sorted by task, then by sample index, so both twins return identical
 * lists (the GPU appends in arbitrary order and the host sorts).
 */

/** A shape as the query sees it: its samples and its SDF (analytic planes are not query shapes). */
export interface QueryShape {
  samples: CollisionSamples;
  sdf: SdfGrid;
}

/**
 * Sample sets: point sets that change every step (the particles of soft
 * bodies, and points mapped into a soft body's rest shape;
 * docs/soft-bodies.md). A task whose `shapeA` has this bit set samples set
 * `shapeA & ~SAMPLE_SET` instead of a shape. A set has no field, so it is
 * only ever A. Sets are numbered by their owner, replaced whole by
 * `setSampleSet` (any count, every step if need be) and kept across
 * `setShapes`; their points are in whatever frame the owner chose, posed
 * into B's frame by the task like a shape's samples.
 */
export const SAMPLE_SET = 0x80000000;

/** The `shapeA` of a task that samples set `set`. */
export function sampleSetRef(set: number): number {
  return (SAMPLE_SET | set) >>> 0;
}

/** Floats per task pose: rotation quaternion (x, y, z, w), then translation (x, y, z, 0). */
export const POSE_STRIDE = 8;

export interface QueryBatch {
  count: number;
  /** Shape index (into the array given to setShapes) of the sampled body A, or sampleSetRef(set) for a sample set. */
  shapeA: Uint32Array;
  /** Shape index of the body B whose SDF is sampled. */
  shapeB: Uint32Array;
  /** Pose of A's frame in B's frame, POSE_STRIDE floats per task: p_B = rotate(q, p_A) + t. */
  poses: Float32Array;
  /** Per task: report the samples with phi_B below this (B's local units; 0 reports the penetrating ones). */
  margin: Float32Array;
}

export interface QueryResult {
  /** Number of records. */
  count: number;
  /** Records of task t are [taskStart[t], taskStart[t + 1]). Length: tasks + 1. */
  taskStart: Uint32Array;
  /** Sample index within shape A's samples. */
  sample: Uint32Array;
  /** phi_B at the sample (< the task's margin). */
  phi: Float32Array;
  /** Unit normal (grad phi_B) in B's frame, 3 floats per record. */
  normal: Float32Array;
}

export type BackendKind = 'cpu' | 'gpu';

/**
 * What a backend has done since it was created, cumulative (callers take
 * differences): the profile books them per step and `bench` reports them.
 */
export interface QueryCounters {
  /** query() calls. */
  calls: number;
  /** Samples of the batches' tasks (every sample of A, before any cull). */
  samplesSent: number;
  /**
   * Samples whose field value was actually computed, after every cull, where
   * the backend counts them (PenetrationBackend.countsEvaluated: the CPU
   * twins). The GPU books here the samples it dispatches (every sample of a
   * task past the host's whole-task cull), an upper bound: its shader culls
   * more without counting them, so the two figures are not the same quantity.
   */
  samplesEvaluated: number;
  /** Command-buffer submissions (GPU; 0 on the CPU). */
  submits: number;
  /** Buffer readbacks (mapAsync of a staging buffer; GPU). */
  readbacks: number;
  /** Bytes copied back from the GPU. */
  bytesRead: number;
  /** Bytes written to the GPU by the queries (tasks, chunks, parameters). */
  bytesWritten: number;
}

export function newQueryCounters(): QueryCounters {
  return { calls: 0, samplesSent: 0, samplesEvaluated: 0, submits: 0, readbacks: 0, bytesRead: 0, bytesWritten: 0 };
}

export interface PenetrationBackend {
  readonly kind: BackendKind;
  /** Cumulative work counters (see QueryCounters). */
  readonly counters: QueryCounters;
  /**
   * True when counters.samplesEvaluated counts the samples evaluated after
   * every cull (the CPU twins); absent or false when it does not (the GPU),
   * and a report says "n/a" rather than set the two side by side.
   */
  readonly countsEvaluated?: boolean;
  /** Upload every shape once (replaces the previous set). */
  setShapes(shapes: readonly QueryShape[]): void;
  /**
   * Replaces sample set `set` (see SAMPLE_SET) with the first `count` points
   * of `points` (x, y, z, unused per point, like CollisionSamples.points).
   * The backend copies what it needs; the caller may reuse the array.
   */
  setSampleSet(set: number, points: Float32Array, count: number): void;
  /**
   * Run every task of the batch; the result is valid until the next call.
   *
   * `overlap`, when given, is host work that does not depend on this call
   * (the narrow phase evaluating the pairs whose caches it keeps): the
   * backend calls it once, while the batch is computed elsewhere (the GPU
   * after the submit, before the readback is mapped; the pool's workers on
   * their chunks before the main thread joins them), or before computing the
   * batch where nothing else can (one thread). A caller must not rely on it
   * being called: NarrowPhase.refresh runs it after the call when a backend
   * (a wrapper) did not.
   */
  query(batch: QueryBatch, overlap?: () => void): Promise<QueryResult>;
  /** Release buffers (GPU). */
  destroy(): void;
}

/** A growable batch, reused across iterations so a step allocates nothing once warm. */
/** A task's columns. */
const TASK_COLUMNS = { shapeA: 1, shapeB: 1, poses: POSE_STRIDE, margin: 1 } as const;

export class QueryBatchBuilder implements QueryBatch {
  count = 0;
  shapeA = new Uint32Array(64);
  shapeB = new Uint32Array(64);
  poses = new Float32Array(64 * POSE_STRIDE);
  margin = new Float32Array(64);

  clear(): void {
    this.count = 0;
  }

  /**
   * Appends a task; q = rotation of A's frame into B's frame, t = A's origin
   * in B's frame; samples with phi_B < margin are reported.
   */
  push(a: number, b: number, qx: number, qy: number, qz: number, qw: number, tx: number, ty: number, tz: number, margin = 0): number {
    if (this.count === this.shapeA.length) growColumns(this, TASK_COLUMNS, 2 * this.count);
    const i = this.count++;
    this.shapeA[i] = a;
    this.shapeB[i] = b;
    const o = i * POSE_STRIDE;
    const p = this.poses;
    p[o] = qx;
    p[o + 1] = qy;
    p[o + 2] = qz;
    p[o + 3] = qw;
    p[o + 4] = tx;
    p[o + 5] = ty;
    p[o + 6] = tz;
    p[o + 7] = 0;
    this.margin[i] = margin;
    return i;
  }
}
