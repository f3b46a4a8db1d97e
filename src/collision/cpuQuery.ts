/**
 * CPU twin of shaders/penetration.wgsl on one thread (see src/collision/query.ts
 * for the contract). Float64 arithmetic on the same Float32 inputs the GPU
 * gets; the per-task work, with its exact culls, is the kernel in
 * cpuKernel.ts, which the worker pool (parallelQuery.ts) runs too.
 */
import { sampleCount } from '../geometry/samples.ts';
import { grown } from '../util/growable.ts';
import { prepareKernelShape, queryRange, type KernelShape } from './cpuKernel.ts';
import { newQueryCounters, POSE_STRIDE, type PenetrationBackend, type QueryBatch, type QueryResult, type QueryShape } from './query.ts';

/** `query task T names shape S, but only N shapes are loaded` for the first bad shape index of a batch, else null. */
export function badShapeMessage(batch: QueryBatch, shapes: number): string | null {
  for (let t = 0; t < batch.count; t++) {
    const a = batch.shapeA[t]!, b = batch.shapeB[t]!;
    if (a >= shapes || b >= shapes) return `query task ${t} names shape ${a >= shapes ? a : b}, but only ${shapes} shapes are loaded`;
  }
  return null;
}

export class CpuPenetrationBackend implements PenetrationBackend {
  readonly kind = 'cpu' as const;
  private shapes: KernelShape[] = [];
  private result: QueryResult = {
    count: 0,
    taskStart: new Uint32Array(1),
    sample: new Uint32Array(256),
    phi: new Float32Array(256),
    normal: new Float32Array(768),
  };
  private readonly n = new Float64Array(3);
  /** Samples whose SDF value the last query computed (after the culls). */
  evaluated = 0;
  readonly counters = newQueryCounters();

  setShapes(shapes: readonly QueryShape[]): void {
    this.shapes = shapes.map((s) => prepareKernelShape(s.samples.points, sampleCount(s.samples), s.sdf));
  }

  /** Shapes already prepared for the kernel (the pool's, over shared memory). */
  setKernelShapes(shapes: KernelShape[]): void {
    this.shapes = shapes;
  }

  async query(batch: QueryBatch): Promise<QueryResult> {
    return this.querySync(batch);
  }

  /** The same as query(), without the promise (for tests and the CPU timing path). */
  querySync(batch: QueryBatch): QueryResult {
    const bad = badShapeMessage(batch, this.shapes.length);
    if (bad) throw new RangeError(bad);
    const res = this.result;
    if (res.taskStart.length < batch.count + 1) res.taskStart = new Uint32Array(batch.count + 1);
    res.count = 0;
    this.evaluated = 0;
    for (let t = 0; t < batch.count; t++) {
      res.taskStart[t] = res.count;
      const A = this.shapes[batch.shapeA[t]!]!;
      const B = this.shapes[batch.shapeB[t]!]!;
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
    for (let t = 0; t < batch.count; t++) cn.samplesSent += this.shapes[batch.shapeA[t]!]!.count;
    return res;
  }

  destroy(): void {
    this.shapes = [];
  }
}
