/**
 * CPU twin of shaders/penetration.wgsl on one thread (see src/collision/query.ts
 * for the contract). Float64 arithmetic on the same Float32 inputs the GPU
 * gets; the per-task work, with its exact culls, is the kernel in
 * cpuKernel.ts, which the worker pool (parallelQuery.ts) runs too.
 *
 * Sample sets (query.ts, SAMPLE_SET) are kept as copies with their cull data
 * rebuilt on every setSampleSet (O(points)); the pool reads them from here.
 */
import { sampleCount } from '../geometry/samples.ts';
import { grown } from '../util/growable.ts';
import { prepareKernelSamples, prepareKernelShape, queryRange, type KernelSamples, type KernelShape } from './cpuKernel.ts';
import { newQueryCounters, POSE_STRIDE, SAMPLE_SET, type PenetrationBackend, type QueryBatch, type QueryResult, type QueryShape } from './query.ts';

/**
 * What is wrong with the first bad task of a batch, else null: a shape index
 * past the `shapes` loaded, a sample set that was never set (`hasSet`), or a
 * sample set as B (it has no field).
 */
export function badShapeMessage(batch: QueryBatch, shapes: number, hasSet: (set: number) => boolean = () => false): string | null {
  for (let t = 0; t < batch.count; t++) {
    const a = batch.shapeA[t]!, b = batch.shapeB[t]!;
    if (a & SAMPLE_SET) {
      const set = (a & ~SAMPLE_SET) >>> 0;
      if (!hasSet(set)) return `query task ${t} names sample set ${set}, which was never set`;
    } else if (a >= shapes) {
      return `query task ${t} names shape ${a}, but only ${shapes} shapes are loaded`;
    }
    if (b & SAMPLE_SET) return `query task ${t} names sample set ${(b & ~SAMPLE_SET) >>> 0} as B (a sample set cannot be B: it has no field)`;
    if (b >= shapes) return `query task ${t} names shape ${b}, but only ${shapes} shapes are loaded`;
  }
  return null;
}

export class CpuPenetrationBackend implements PenetrationBackend {
  readonly kind = 'cpu' as const;
  private shapes: KernelShape[] = [];
  private sets: (KernelSamples | undefined)[] = [];
  private result: QueryResult = {
    count: 0,
    taskStart: new Uint32Array(1),
    sample: new Uint32Array(256),
    phi: new Float32Array(256),
    normal: new Float32Array(768),
  };
  private readonly n = new Float64Array(3);
  private readonly hasSet = (set: number): boolean => this.sets[set] !== undefined;
  /** Samples whose SDF value the last query computed (after the culls). */
  evaluated = 0;
  readonly counters = newQueryCounters();
  /** The kernel counts the samples it evaluates after its culls (queryRange's return). */
  readonly countsEvaluated = true;

  setShapes(shapes: readonly QueryShape[]): void {
    this.shapes = shapes.map((s) => prepareKernelShape(s.samples.points, sampleCount(s.samples), s.sdf));
  }

  /** Shapes already prepared for the kernel (the pool's, over shared memory). */
  setKernelShapes(shapes: KernelShape[]): void {
    this.shapes = shapes;
  }

  setSampleSet(set: number, points: Float32Array, count: number): void {
    if (!(Number.isInteger(set) && set >= 0 && set < SAMPLE_SET)) throw new RangeError(`sample set ${set} is not a valid set number`);
    if (!(Number.isInteger(count) && count >= 0)) throw new RangeError(`sample set ${set}: expected a point count, got ${count}`);
    if (points.length < 4 * count) throw new RangeError(`sample set ${set}: ${count} points need ${4 * count} floats, got ${points.length}`);
    const old = this.sets[set]?.points;
    const buf = old && old.length >= 4 * count ? old : new Float32Array(Math.max(4 * count, 2 * (old?.length ?? 0)));
    buf.set(points.subarray(0, 4 * count));
    this.sets[set] = prepareKernelSamples(buf, count, false);
  }

  /** Side A of a task: a shape, or a sample set (SAMPLE_SET); undefined when there is none. */
  sideA(a: number): KernelSamples | undefined {
    return a & SAMPLE_SET ? this.sets[(a & ~SAMPLE_SET) >>> 0] : this.shapes[a];
  }

  async query(batch: QueryBatch, overlap?: () => void): Promise<QueryResult> {
    // One thread: nothing runs beside the batch, so the overlap goes first.
    overlap?.();
    return this.querySync(batch);
  }

  /** The same as query(), without the promise (for tests and the CPU timing path). */
  querySync(batch: QueryBatch): QueryResult {
    const bad = badShapeMessage(batch, this.shapes.length, this.hasSet);
    if (bad) throw new RangeError(bad);
    const res = this.result;
    if (res.taskStart.length < batch.count + 1) res.taskStart = new Uint32Array(batch.count + 1);
    res.count = 0;
    this.evaluated = 0;
    let sent = 0;
    for (let t = 0; t < batch.count; t++) {
      res.taskStart[t] = res.count;
      const A = this.sideA(batch.shapeA[t]!)!;
      const B = this.shapes[batch.shapeB[t]!]!;
      sent += A.count;
      // The kernel writes without checking: room for every sample of A.
      if (res.sample.length < res.count + A.count) {
        const c = res.count + A.count;
        res.sample = grown(res.sample, c);
        res.phi = grown(res.phi, c);
        res.normal = grown(res.normal, 3 * c);
      }
      this.evaluated += queryRange(A, B, batch.poses, t * POSE_STRIDE, batch.margin[t]!, 0, A.count, res, this.n);
    }
    res.taskStart[batch.count] = res.count;
    const cn = this.counters;
    cn.calls++;
    cn.samplesEvaluated += this.evaluated;
    cn.samplesSent += sent;
    return res;
  }

  destroy(): void {
    this.shapes = [];
    this.sets = [];
  }
}
