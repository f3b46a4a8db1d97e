/**
 * GPU penetration query: the twin of CpuPenetrationBackend
 * (src/collision/cpuQuery.ts), same interface, same records. Kernel:
 * shaders/penetration.wgsl; byte layouts: src/gpu/layout.ts.
 *
 * Per call the host does O(tasks + chunks + records) work and the GPU does all
 * the sampling:
 *  1. tasks are written into a reused buffer; the host culls a task whose
 *     posed bounding sphere of A misses B's grid box (it cannot have records)
 *     and cuts the rest into chunks of WORKGROUP_SIZE work items, leaving out
 *     each chunk whose own bounding sphere misses the box the same way (a
 *     mesh's samples run vertex by vertex, edge by edge and face by face, so
 *     a chunk's lie close together: a static bowl or floor under one ball
 *     sends the chunks near the ball, not all of its samples);
 *  2. ONE dispatch covers every chunk of every task (2D when the chunk count
 *     exceeds the per-dimension limit);
 *  3. ONE readback copies the record counter and up to `capacity` records
 *     (plus the timestamps, when enabled) into a mappable staging buffer.
 *     The capacity is min(records the tasks could possibly produce, the
 *     larger of a learnt size and YIELD_HEADROOM times the most records per
 *     possible record seen so far times this call's possible records); if
 *     the counter says more were found, the capacity grows and the dispatch
 *     runs once more (the set of records is deterministic, so once is
 *     enough). Scaling with the call's possible records is what keeps a step
 *     to its query calls' readbacks while a heap lands: its batches grow with
 *     the pairs, and a size learnt on the first contacts alone overflowed
 *     once per doubling (three readbacks in a step on the bunny and box
 *     heaps, docs/DESIGN.md 5);
 *  4. the host orders the records by (task, sample) straight out of the
 *     mapped range into the reused QueryResult: each record's key names its
 *     chunk, and the chunks run by task, then sample, so one counting pass
 *     and one scatter put every record in its chunk's bucket, and an
 *     insertion sort orders each bucket's at most WORKGROUP_SIZE records by
 *     lane. The radix sort over the sample index and the task that this
 *     replaced, with its copy out of the mapped range, cost 3.6 ms a step
 *     on 1000 rings landing, of an H200 machine's 21 ms query stage; this
 *     costs about 40 % less there (docs/DESIGN.md 5).
 * Buffers only grow; a warm query allocates nothing on the GPU side.
 *
 * Sample sets (query.ts, SAMPLE_SET) live in the same sample buffer, after
 * the shapes' samples, each with a ShapeInfo entry after the shapes' (its
 * field never read), so the kernel does not know them apart: a task naming
 * set k becomes a task on entry shapeCount + k. setSampleSet only copies into
 * host arrays; the next query packs every set behind the shapes' samples and
 * writes them and their entries in two writeBuffer calls (the sets of soft
 * bodies change every step, so there is nothing to keep between calls), and
 * recreates the sample buffer only when the total outgrows it.
 */
import type { PenetrationBackend, QueryBatch, QueryResult, QueryShape } from '../collision/query.ts';
import { newQueryCounters, POSE_STRIDE, SAMPLE_SET } from '../collision/query.ts';
import { sampleCount, samplesBoundingSphere } from '../geometry/samples.ts';
import { grown } from '../util/growable.ts';
import { checkErrors, createComputePipelineChecked, passSource, deviceLostReason } from './device.ts';
import { CHUNK, QUERY_OUTPUT, QUERY_PARAMS, RECORD, SAMPLE_STRIDE, SDF_INFO, SHAPE_INFO, TASK, WORKGROUP_SIZE } from './layout.ts';

export interface GpuPenetrationOptions {
  /** Time the dispatch with timestamp queries when the device allows it (default true). */
  timestamps?: boolean;
  /** Records the output buffer holds before it first has to grow (default 4096). */
  initialCapacity?: number;
}

/**
 * The output's room, in records, per record the call's tasks could produce,
 * over the most records per such record found so far: a batch whose yield
 * doubles past anything seen still fits.
 */
const YIELD_HEADROOM = 2;

interface QueryPipeline {
  pipeline: GPUComputePipeline;
  bindGroupLayout: GPUBindGroupLayout;
}

const pipelines = new WeakMap<GPUDevice, Promise<QueryPipeline>>();

function queryPipeline(device: GPUDevice): Promise<QueryPipeline> {
  let p = pipelines.get(device);
  if (!p) {
    p = createQueryPipeline(device);
    pipelines.set(device, p);
    p.catch(() => pipelines.delete(device));
  }
  return p;
}

async function createQueryPipeline(device: GPUDevice): Promise<QueryPipeline> {
  const ro = { type: 'read-only-storage' } as const;
  const bindGroupLayout = device.createBindGroupLayout({
    label: 'penetration',
    entries: [
      { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: ro }, // sdf values
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: ro }, // samples
      { binding: 2, visibility: GPUShaderStage.COMPUTE, buffer: ro }, // shapes
      { binding: 3, visibility: GPUShaderStage.COMPUTE, buffer: ro }, // tasks
      { binding: 4, visibility: GPUShaderStage.COMPUTE, buffer: ro }, // chunks
      { binding: 5, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } }, // output
      { binding: 6, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } }, // params
    ],
  });
  const pipeline = await createComputePipelineChecked(device, {
    label: 'penetration.wgsl',
    ...passSource('penetration.wgsl'),
    layout: device.createPipelineLayout({ label: 'penetration', bindGroupLayouts: [bindGroupLayout] }),
    constants: { WORKGROUP_SIZE },
  });
  return { pipeline, bindGroupLayout };
}

/** Bytes of the timestamp block at the start of the staging buffer (two u64). */
const TIMESTAMP_BYTES = 16;

export class GpuPenetrationBackend implements PenetrationBackend {
  readonly kind = 'gpu' as const;
  /** GPU time of the last query's dispatch in ms (null without timestamp queries). */
  lastGpuMs: number | null = null;
  /** Dispatches the last query needed (1, or 2 after the output had to grow). */
  lastDispatches = 0;
  readonly counters = newQueryCounters();

  private readonly device: GPUDevice;
  private readonly timestamps: boolean;
  private destroyed = false;
  private busy = false;

  // Shapes (setShapes).
  private shapeCount = 0;
  private valueBuf: GPUBuffer | null = null;
  private sampleBuf: GPUBuffer | null = null;
  private shapeBuf: GPUBuffer | null = null;
  /** Per shape: bounding sphere of the samples (cx, cy, cz, r), local frame. */
  private sphere = new Float64Array(0);
  /** Per shape: grid box (min xyz, max xyz), local frame. */
  private box = new Float64Array(0);
  /** Per shape: work items (vertices, plus edges when they carry samples). */
  private items = new Uint32Array(0);
  /** Per shape: its first chunk's entry in chunkSphere. */
  private chunkSphereAt = new Uint32Array(0);
  /** Per chunk of each shape's samples (WORKGROUP_SIZE at a time): their bounding sphere (cx, cy, cz, r), local frame. */
  private chunkSphere = new Float64Array(0);
  /** The shapes' samples and table as uploaded (the sample buffer is rebuilt from them when the sets outgrow it). */
  private shapePoints = new Float32Array(0);
  private shapeTable = new ArrayBuffer(0);
  private shapeSamples = 0;

  // Sample sets: host copies (setSampleSet), packed behind the shapes at the next query.
  private setPoints: (Float32Array | undefined)[] = [];
  private setCount: number[] = [];
  /** Per set: bounding sphere of its points (cx, cy, cz, r). */
  private setSphere: number[][] = [];
  private setsDirty = true;
  private packedSets = new Float32Array(0);

  // Per-query buffers; they grow and are reused.
  private taskBuf: GPUBuffer | null = null;
  private chunkBuf: GPUBuffer | null = null;
  private outBuf: GPUBuffer | null = null;
  private stagingBuf: GPUBuffer | null = null;
  private readonly paramBuf: GPUBuffer;
  private readonly querySet: GPUQuerySet | null;
  private readonly resolveBuf: GPUBuffer | null;
  private bindGroup: GPUBindGroup | null = null;
  /** Records the output holds right now; grows on overflow. */
  private capacity: number;
  /** The most records found per record the tasks could produce, over the calls so far. */
  private yieldMax = 0;

  // Host scratch, reused.
  private taskData = new ArrayBuffer(0);
  private chunkData = new Uint32Array(0);
  private readonly paramData = new Uint32Array(QUERY_PARAMS.size / 4);
  /** Per task of the call, its first chunk; entry `tasks` is the chunk count. */
  private taskChunk = new Uint32Array(0);
  /** Per chunk, then its bucket's fill position (collect). */
  private chunkFill = new Uint32Array(0);
  private readonly result: QueryResult = {
    count: 0,
    taskStart: new Uint32Array(1),
    sample: new Uint32Array(0),
    phi: new Float32Array(0),
    normal: new Float32Array(0),
  };
  private taskStartStore = new Uint32Array(1);

  constructor(device: GPUDevice, opts: GpuPenetrationOptions = {}) {
    this.device = device;
    this.timestamps = opts.timestamps !== false && device.features.has('timestamp-query');
    this.capacity = Math.max(1, opts.initialCapacity ?? 4096);
    this.paramBuf = device.createBuffer({
      label: 'penetration params',
      size: QUERY_PARAMS.size,
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    if (this.timestamps) {
      this.querySet = device.createQuerySet({ label: 'penetration timestamps', type: 'timestamp', count: 2 });
      this.resolveBuf = device.createBuffer({
        label: 'penetration timestamps',
        size: TIMESTAMP_BYTES,
        usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
      });
    } else {
      this.querySet = null;
      this.resolveBuf = null;
    }
    // Start compiling now; errors surface (with the compiler's message) in the first query.
    queryPipeline(device).catch(() => {});
  }

  setShapes(shapes: readonly QueryShape[]): void {
    this.assertUsable('setShapes');
    // The running query reads the buffers about to be replaced.
    if (this.busy) throw new Error('GpuPenetrationBackend.setShapes called while a query is running');
    const n = shapes.length;
    let totalSamples = 0;
    let totalValues = 0;
    for (let s = 0; s < n; s++) {
      const sh = shapes[s]!;
      const count = sampleCount(sh.samples);
      if (sh.samples.points.length < count * 4) {
        throw new RangeError(`shape ${s}: ${count} samples need ${count * 4} floats, got ${sh.samples.points.length}`);
      }
      const g = sh.sdf;
      const nodes = g.dims[0] * g.dims[1] * g.dims[2];
      if (g.dims.some((d) => !Number.isInteger(d) || d < 2) || g.values.length !== nodes) {
        throw new RangeError(`shape ${s}: SDF dims ${g.dims.join('x')} do not match ${g.values.length} values (or are below 2)`);
      }
      totalSamples += count;
      totalValues += nodes;
    }
    const lim = this.device.limits.maxStorageBufferBindingSize;
    if (totalSamples * SAMPLE_STRIDE > lim || totalValues * 4 > lim) {
      throw new RangeError(`the shapes need ${totalSamples} samples and ${totalValues} SDF values, beyond this device's ${lim}-byte storage binding limit`);
    }

    const points = new Float32Array(Math.max(4, totalSamples * 4));
    const values = new Float32Array(Math.max(4, totalValues));
    const table = new ArrayBuffer(Math.max(SHAPE_INFO.size, n * SHAPE_INFO.size));
    const tf = new Float32Array(table);
    const tu = new Uint32Array(table);
    this.sphere = new Float64Array(n * 4);
    this.box = new Float64Array(n * 6);
    this.items = new Uint32Array(n);
    this.chunkSphereAt = new Uint32Array(n);
    let chunksIn = 0;
    for (let s = 0; s < n; s++) {
      this.chunkSphereAt[s] = chunksIn;
      chunksIn += Math.ceil(sampleCount(shapes[s]!.samples) / WORKGROUP_SIZE);
    }
    this.chunkSphere = new Float64Array(4 * chunksIn);
    let sampleAt = 0;
    let valueAt = 0;
    for (let s = 0; s < n; s++) {
      const { samples, sdf } = shapes[s]!;
      const count = sampleCount(samples);
      points.set(samples.points.subarray(0, count * 4), sampleAt * 4);
      values.set(sdf.values, valueAt);
      const w = (s * SHAPE_INFO.size) / 4;
      const g = w + SHAPE_INFO.offsets.sdf / 4;
      tf[g + SDF_INFO.offsets.origin / 4] = sdf.origin[0];
      tf[g + SDF_INFO.offsets.origin / 4 + 1] = sdf.origin[1];
      tf[g + SDF_INFO.offsets.origin / 4 + 2] = sdf.origin[2];
      tf[g + SDF_INFO.offsets.cellSize / 4] = sdf.cellSize;
      tu[g + SDF_INFO.offsets.dims / 4] = sdf.dims[0];
      tu[g + SDF_INFO.offsets.dims / 4 + 1] = sdf.dims[1];
      tu[g + SDF_INFO.offsets.dims / 4 + 2] = sdf.dims[2];
      tu[g + SDF_INFO.offsets.valueOffset / 4] = valueAt;
      tu[w + SHAPE_INFO.offsets.sampleOffset / 4] = sampleAt;
      tu[w + SHAPE_INFO.offsets.sampleCount / 4] = count;
      this.items[s] = count;
      this.sphere.set(samplesBoundingSphere(samples, 0, count), 4 * s);
      for (let c = 0, at = this.chunkSphereAt[s]!; c * WORKGROUP_SIZE < count; c++) {
        this.chunkSphere.set(samplesBoundingSphere(samples, c * WORKGROUP_SIZE, Math.min(count, (c + 1) * WORKGROUP_SIZE)), 4 * (at + c));
      }
      for (let k = 0; k < 3; k++) {
        this.box[s * 6 + k] = sdf.origin[k]!;
        this.box[s * 6 + 3 + k] = sdf.origin[k]! + sdf.cellSize * (sdf.dims[k]! - 1);
      }
      sampleAt += count;
      valueAt += sdf.values.length;
    }

    this.valueBuf?.destroy();
    this.sampleBuf?.destroy();
    this.shapeBuf?.destroy();
    this.sampleBuf = null;
    this.shapeBuf = null;
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    this.valueBuf = this.device.createBuffer({ label: 'penetration sdf values', size: values.byteLength, usage });
    this.device.queue.writeBuffer(this.valueBuf, 0, values);
    this.shapePoints = points;
    this.shapeTable = table;
    this.shapeSamples = totalSamples;
    this.shapeCount = n;
    this.setsDirty = true;
    this.bindGroup = null;
  }

  setSampleSet(set: number, points: Float32Array, count: number): void {
    this.assertUsable('setSampleSet');
    if (this.busy) throw new Error('GpuPenetrationBackend.setSampleSet called while a query is running');
    if (!(Number.isInteger(set) && set >= 0 && set < SAMPLE_SET)) throw new RangeError(`sample set ${set} is not a valid set number`);
    if (points.length < 4 * count) throw new RangeError(`sample set ${set}: ${count} points need ${4 * count} floats, got ${points.length}`);
    let copy = this.setPoints[set];
    if (!copy || copy.length < 4 * count) copy = this.setPoints[set] = new Float32Array(Math.max(4 * count, 2 * (copy?.length ?? 0), 16));
    copy.set(points.subarray(0, 4 * count));
    this.setCount[set] = count;
    this.setSphere[set] = count > 0 ? samplesBoundingSphere({ points: copy, vertexCount: count, edgeCount: 0, edgeSamples: 0, edges: new Uint32Array(0) }, 0, count) : [0, 0, 0, 0];
    this.setsDirty = true;
  }

  /**
   * Brings the GPU's sample buffer and shape table up to date with the shapes
   * and the sample sets (file comment): the shapes' part is written only when
   * the buffers are recreated, the sets' part on every call that follows a
   * setSampleSet.
   */
  private syncSamples(): void {
    if (!this.setsDirty && this.sampleBuf && this.shapeBuf) return;
    const n = this.shapeCount;
    const sets = this.setPoints.length;
    let setSamples = 0;
    for (let k = 0; k < sets; k++) setSamples += this.setCount[k] ?? 0;
    const sampleBytes = Math.max(16, (this.shapeSamples + setSamples) * SAMPLE_STRIDE);
    const tableBytes = Math.max(SHAPE_INFO.size, (n + sets) * SHAPE_INFO.size);
    const lim = this.device.limits.maxStorageBufferBindingSize;
    if (sampleBytes > lim) throw new RangeError(`the shapes and sample sets need ${this.shapeSamples + setSamples} samples, beyond this device's ${lim}-byte storage binding limit`);
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    if (!this.sampleBuf || this.sampleBuf.size < sampleBytes) {
      const size = roundUp(Math.max(sampleBytes, this.sampleBuf ? Math.min(lim, this.sampleBuf.size * 2) : 0), 16);
      this.sampleBuf?.destroy();
      this.sampleBuf = this.device.createBuffer({ label: 'penetration samples', size, usage });
      this.device.queue.writeBuffer(this.sampleBuf, 0, this.shapePoints, 0, this.shapeSamples * 4);
      this.bindGroup = null;
    }
    if (!this.shapeBuf || this.shapeBuf.size < tableBytes) {
      const size = roundUp(Math.max(tableBytes, this.shapeBuf ? this.shapeBuf.size * 2 : 0), 16);
      this.shapeBuf?.destroy();
      this.shapeBuf = this.device.createBuffer({ label: 'penetration shapes', size, usage });
      this.device.queue.writeBuffer(this.shapeBuf, 0, this.shapeTable, 0, n * SHAPE_INFO.size);
      this.bindGroup = null;
    }
    if (sets > 0) {
      if (this.packedSets.length < setSamples * 4) this.packedSets = new Float32Array(nextPow2(setSamples * 4));
      const table = new ArrayBuffer(sets * SHAPE_INFO.size);
      const tu = new Uint32Array(table);
      let at = 0;
      for (let k = 0; k < sets; k++) {
        const count = this.setCount[k] ?? 0;
        if (count > 0) this.packedSets.set(this.setPoints[k]!.subarray(0, 4 * count), 4 * at);
        // The field part stays zero: a set is never B.
        const w = (k * SHAPE_INFO.size) / 4;
        tu[w + SHAPE_INFO.offsets.sampleOffset / 4] = this.shapeSamples + at;
        tu[w + SHAPE_INFO.offsets.sampleCount / 4] = count;
        at += count;
      }
      if (setSamples > 0) this.device.queue.writeBuffer(this.sampleBuf, this.shapeSamples * SAMPLE_STRIDE, this.packedSets, 0, setSamples * 4);
      this.device.queue.writeBuffer(this.shapeBuf, n * SHAPE_INFO.size, table);
    }
    this.setsDirty = false;
  }

  /**
   * Whether task t's samples may reach B's grid box: A's bounding sphere,
   * posed, against the box. Conservative: the radius is padded for f32
   * rounding on the GPU and for a quaternion that is not exactly unit (the
   * kernel's rotation formula then also scales by up to |q|^2).
   */
  private mayOverlap(sphere: ArrayLike<number>, sa: number, b: number, poses: Float32Array, t: number, margin: number): boolean {
    const o = t * POSE_STRIDE;
    const qx = poses[o]!, qy = poses[o + 1]!, qz = poses[o + 2]!, qw = poses[o + 3]!;
    const vx = sphere[sa]!, vy = sphere[sa + 1]!, vz = sphere[sa + 2]!;
    // v + w t + u x t, t = 2 u x v (same formula as quat_rotate in common.wgsl).
    const tx = 2 * (qy * vz - qz * vy);
    const ty = 2 * (qz * vx - qx * vz);
    const tz = 2 * (qx * vy - qy * vx);
    const cx = vx + qw * tx + (qy * tz - qz * ty) + poses[o + 4]!;
    const cy = vy + qw * ty + (qz * tx - qx * tz) + poses[o + 5]!;
    const cz = vz + qw * tz + (qx * ty - qy * tx) + poses[o + 6]!;
    const qq = qx * qx + qy * qy + qz * qz + qw * qw;
    const r = sphere[sa + 3]! * Math.max(1, qq) * (1 + 1e-4) + 1e-4 * (1 + Math.abs(cx) + Math.abs(cy) + Math.abs(cz)) + Math.max(0, margin);
    const bb = b * 6;
    const box = this.box;
    const d2 = gap2(cx, box[bb]!, box[bb + 3]!) + gap2(cy, box[bb + 1]!, box[bb + 4]!) + gap2(cz, box[bb + 2]!, box[bb + 5]!);
    return d2 <= r * r;
  }

  async query(batch: QueryBatch, overlap?: () => void): Promise<QueryResult> {
    this.assertUsable('query');
    if (this.busy) throw new Error('GpuPenetrationBackend.query called again before the previous query resolved');
    this.busy = true;
    try {
      return await this.run(batch, overlap ?? null);
    } finally {
      this.busy = false;
    }
  }

  private async run(batch: QueryBatch, overlap: (() => void) | null): Promise<QueryResult> {
    const tasks = batch.count;
    const nShapes = this.shapeCount;
    for (let t = 0; t < tasks; t++) {
      const a = batch.shapeA[t]!;
      const b = batch.shapeB[t]!;
      if (a & SAMPLE_SET) {
        const k = (a & ~SAMPLE_SET) >>> 0;
        if (this.setCount[k] === undefined) throw new RangeError(`task ${t}: sample set ${k} was never set`);
      } else if (a >= nShapes) {
        throw new RangeError(`task ${t}: shape index ${a} out of range (${nShapes} shapes set)`);
      }
      if (b >= nShapes) {
        throw new RangeError(`task ${t}: shape index ${b & SAMPLE_SET ? `${b} (a sample set cannot be B)` : b} out of range (${nShapes} shapes set)`);
      }
    }

    // Tasks and chunks (host), culling tasks that cannot touch B's grid.
    this.ensureTaskData(tasks);
    if (this.taskChunk.length < tasks + 1) this.taskChunk = new Uint32Array(nextPow2(tasks + 1));
    const taskChunk = this.taskChunk;
    const tf = new Float32Array(this.taskData);
    const tu = new Uint32Array(this.taskData);
    let chunkCount = 0;
    let bound = 0; // most records the surviving tasks could produce
    for (let t = 0; t < tasks; t++) {
      const ref = batch.shapeA[t]!;
      const b = batch.shapeB[t]!;
      const isSet = (ref & SAMPLE_SET) !== 0;
      const set = (ref & ~SAMPLE_SET) >>> 0;
      // A set's entry follows the shapes' in the table the kernel reads.
      const a = isSet ? nShapes + set : ref;
      const w = (t * TASK.size) / 4;
      const po = t * POSE_STRIDE;
      for (let k = 0; k < POSE_STRIDE; k++) tf[w + k] = batch.poses[po + k]!;
      tu[w + TASK.offsets.shapeA / 4] = a;
      tu[w + TASK.offsets.shapeB / 4] = b;
      tf[w + TASK.offsets.margin / 4] = batch.margin[t]!;
      taskChunk[t] = chunkCount;
      const items = isSet ? this.setCount[set]! : this.items[a]!;
      const overlaps = isSet ? this.mayOverlap(this.setSphere[set]!, 0, b, batch.poses, t, batch.margin[t]!) : this.mayOverlap(this.sphere, 4 * a, b, batch.poses, t, batch.margin[t]!);
      if (items === 0 || !overlaps) continue;
      const chunks = Math.ceil(items / WORKGROUP_SIZE);
      this.ensureChunkData(chunkCount + chunks);
      // A shape's chunks each culled as the task was (a set's points are
      // few and change every call: sent whole).
      const cullChunks = !isSet && chunks > 1, at = cullChunks ? 4 * this.chunkSphereAt[a]! : 0;
      let kept = 0;
      for (let c = 0; c < chunks; c++) {
        if (cullChunks && !this.mayOverlap(this.chunkSphere, at + 4 * c, b, batch.poses, t, batch.margin[t]!)) continue;
        const o = ((chunkCount + kept) * CHUNK.size) / 4;
        this.chunkData[o + CHUNK.offsets.task / 4] = t;
        this.chunkData[o + CHUNK.offsets.firstSample / 4] = c * WORKGROUP_SIZE;
        bound += Math.min(WORKGROUP_SIZE, items - c * WORKGROUP_SIZE);
        kept++;
      }
      chunkCount += kept;
    }
    taskChunk[tasks] = chunkCount;
    // A record's key is its chunk index times WORKGROUP_SIZE plus its lane, in a u32.
    if (chunkCount > 2 ** 32 / WORKGROUP_SIZE) throw new RangeError(`${chunkCount} chunks in one query: at most ${2 ** 32 / WORKGROUP_SIZE}`);

    this.lastGpuMs = null;
    this.lastDispatches = 0;
    const cn = this.counters;
    cn.calls++;
    for (let t = 0; t < tasks; t++) {
      const ref = batch.shapeA[t]!;
      cn.samplesSent += ref & SAMPLE_SET ? this.setCount[(ref & ~SAMPLE_SET) >>> 0]! : this.items[ref]!;
    }
    cn.samplesEvaluated += bound;
    if (chunkCount === 0) {
      overlap?.();
      return this.collect(null, tasks, 0);
    }

    const device = this.device;
    return checkErrors(device, 'penetration query', async () => {
      const { pipeline, bindGroupLayout } = await queryPipeline(device);
      this.syncSamples();
      const taskBytes = tasks * TASK.size;
      const chunkBytes = chunkCount * CHUNK.size;
      this.taskBuf = this.grow(this.taskBuf, taskBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST, 'penetration tasks');
      this.chunkBuf = this.grow(this.chunkBuf, chunkBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST, 'penetration chunks');
      device.queue.writeBuffer(this.taskBuf, 0, this.taskData, 0, taskBytes);
      device.queue.writeBuffer(this.chunkBuf, 0, this.chunkData.buffer, 0, chunkBytes);
      cn.bytesWritten += taskBytes + chunkBytes;

      const maxX = device.limits.maxComputeWorkgroupsPerDimension;
      const groupsX = Math.min(chunkCount, maxX);
      const groupsY = Math.ceil(chunkCount / groupsX);
      if (groupsY > maxX) throw new RangeError(`${chunkCount} chunks exceed a 2D dispatch on this device`);

      // (The yield's headroom never asks for more than a storage binding holds: past it, only what was found must fit.)
      const room = Math.floor((device.limits.maxStorageBufferBindingSize - QUERY_OUTPUT.size) / RECORD.size);
      let capacity = Math.min(bound, Math.max(this.capacity, Math.min(room, Math.ceil(YIELD_HEADROOM * this.yieldMax * bound))));
      for (let attempt = 0; ; attempt++) {
        this.ensureOutput(capacity);
        const p = this.paramData;
        p[QUERY_PARAMS.offsets.chunkCount / 4] = chunkCount;
        p[QUERY_PARAMS.offsets.capacity / 4] = capacity;
        p[QUERY_PARAMS.offsets.groupsX / 4] = groupsX;
        device.queue.writeBuffer(this.paramBuf, 0, p);
        cn.bytesWritten += p.byteLength;
        if (!this.bindGroup) this.bindGroup = this.makeBindGroup(bindGroupLayout);

        const enc = device.createCommandEncoder({ label: 'penetration query' });
        enc.clearBuffer(this.outBuf!, 0, QUERY_OUTPUT.size);
        const pass = enc.beginComputePass(
          this.querySet
            ? { label: 'penetration', timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }
            : { label: 'penetration' },
        );
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, this.bindGroup);
        pass.dispatchWorkgroups(groupsX, groupsY);
        pass.end();
        // The counter and every record slot come back in one copy: reading the
        // counter first would cost a second round trip.
        const outBytes = QUERY_OUTPUT.size + capacity * RECORD.size;
        enc.copyBufferToBuffer(this.outBuf!, 0, this.stagingBuf!, TIMESTAMP_BYTES, outBytes);
        if (this.querySet && this.resolveBuf) {
          enc.resolveQuerySet(this.querySet, 0, 2, this.resolveBuf, 0);
          enc.copyBufferToBuffer(this.resolveBuf, 0, this.stagingBuf!, 0, TIMESTAMP_BYTES);
        }
        device.queue.submit([enc.finish()]);
        // The host's own work while the GPU runs (only the first attempt's:
        // a retry's wait is the GPU's alone). Until mapAsync is called no
        // promise of Dawn's is pending, so Node's Dawn does not poll the
        // event loop meanwhile either.
        if (attempt === 0) overlap?.();
        this.lastDispatches++;
        cn.submits++;
        cn.readbacks++;
        cn.bytesRead += TIMESTAMP_BYTES + outBytes;

        const staging = this.stagingBuf!;
        try {
          await staging.mapAsync(GPUMapMode.READ, 0, TIMESTAMP_BYTES + outBytes);
        } catch (e) {
          const lost = deviceLostReason(device);
          const detail = e instanceof Error ? e.message || e.name : String(e);
          throw new Error(`penetration query: reading results failed${lost ? ` (${lost})` : ''}: ${detail || 'no details'}`);
        }
        const mapped = staging.getMappedRange(0, TIMESTAMP_BYTES + outBytes);
        const found = new Uint32Array(mapped, TIMESTAMP_BYTES + QUERY_OUTPUT.offsets.count, 1)[0]!;
        if (found / bound > this.yieldMax) this.yieldMax = found / bound;
        if (found > capacity && attempt === 0) {
          staging.unmap();
          // Room for what was found plus a margin, never more than can occur.
          this.capacity = Math.max(this.capacity, Math.min(bound, nextPow2(Math.ceil(found * 1.25))));
          capacity = Math.min(bound, this.capacity);
          continue;
        }
        if (found > capacity) {
          staging.unmap();
          throw new Error(`penetration query: ${found} records after growing the output to ${capacity} (the kernel is not deterministic?)`);
        }
        if (this.querySet) {
          const ts = new BigUint64Array(mapped, 0, 2);
          const dt = Number(ts[1]! - ts[0]!);
          this.lastGpuMs = dt > 0 ? dt / 1e6 : 0;
        }
        try {
          return this.collect(mapped, tasks, found);
        } finally {
          staging.unmap();
        }
      }
    });
  }

  private makeBindGroup(layout: GPUBindGroupLayout): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'penetration',
      layout,
      entries: [
        { binding: 0, resource: { buffer: this.valueBuf! } },
        { binding: 1, resource: { buffer: this.sampleBuf! } },
        { binding: 2, resource: { buffer: this.shapeBuf! } },
        { binding: 3, resource: { buffer: this.taskBuf! } },
        { binding: 4, resource: { buffer: this.chunkBuf! } },
        { binding: 5, resource: { buffer: this.outBuf! } },
        { binding: 6, resource: { buffer: this.paramBuf } },
      ],
    });
  }

  /** A buffer of at least `bytes`, reusing `cur` when it is big enough (growth doubles, so it is rare). */
  private grow(cur: GPUBuffer | null, bytes: number, usage: number, label: string): GPUBuffer {
    if (cur && cur.size >= bytes) return cur;
    const size = Math.max(256, roundUp(Math.max(bytes, cur ? cur.size * 2 : 0), 16));
    cur?.destroy();
    this.bindGroup = null;
    return this.device.createBuffer({ label, size, usage });
  }

  private ensureOutput(capacity: number): void {
    const outBytes = QUERY_OUTPUT.size + capacity * RECORD.size;
    const lim = this.device.limits.maxStorageBufferBindingSize;
    if (outBytes > lim) throw new RangeError(`penetration query: ${capacity} records exceed the ${lim}-byte storage binding limit`);
    this.outBuf = this.grow(this.outBuf, outBytes, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST, 'penetration output');
    // The staging buffer is not bound, so growing it leaves the bind group valid.
    const keep = this.bindGroup;
    this.stagingBuf = this.grow(this.stagingBuf, TIMESTAMP_BYTES + outBytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'penetration readback');
    this.bindGroup = keep;
  }

  private ensureTaskData(tasks: number): void {
    const bytes = tasks * TASK.size;
    if (this.taskData.byteLength < bytes) this.taskData = new ArrayBuffer(Math.max(bytes, this.taskData.byteLength * 2));
  }

  private ensureChunkData(chunks: number): void {
    const words = (chunks * CHUNK.size) / 4;
    this.chunkData = grown(this.chunkData, words);
  }

  /** Fills the result with the n records of the mapped readback (null: none), sorted by (task, sample). */
  private collect(mapped: ArrayBuffer | null, tasks: number, n: number): QueryResult {
    const res = this.result;
    if (this.taskStartStore.length < tasks + 1) this.taskStartStore = new Uint32Array(nextPow2(tasks + 1));
    if (res.taskStart.length !== tasks + 1) res.taskStart = this.taskStartStore.subarray(0, tasks + 1);
    if (n === 0 || !mapped) {
      res.taskStart.fill(0);
      res.count = 0;
      return res;
    }
    if (res.sample.length < n) {
      const cap = nextPow2(n);
      res.sample = new Uint32Array(cap);
      res.phi = new Float32Array(cap);
      res.normal = new Float32Array(cap * 3);
    }
    const chunks = this.taskChunk[tasks]!;
    if (this.chunkFill.length < chunks + 1) this.chunkFill = new Uint32Array(nextPow2(chunks + 1));
    orderRecords(mapped, TIMESTAMP_BYTES + QUERY_OUTPUT.offsets.records, n, tasks, this.taskChunk, this.chunkData, this.chunkFill, res);
    return res;
  }

  private assertUsable(what: string): void {
    if (this.destroyed) throw new Error(`GpuPenetrationBackend.${what} after destroy()`);
    const lost = deviceLostReason(this.device);
    if (lost) throw new Error(`GpuPenetrationBackend.${what}: ${lost}`);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    for (const b of [this.valueBuf, this.sampleBuf, this.shapeBuf, this.taskBuf, this.chunkBuf, this.outBuf, this.stagingBuf, this.paramBuf, this.resolveBuf]) {
      b?.destroy();
    }
    this.querySet?.destroy();
    this.bindGroup = null;
  }
}

/**
 * Orders the kernel's n records (RECORD layout, from byte `at` of `mapped`)
 * by (task, sample) into `res` (its arrays at least n long; taskStart tasks +
 * 1 long). The tasks' chunks (`taskChunk`: per task its first, entry `tasks`
 * the chunk count; `chunkData`: the CHUNK table) run by task, then sample, so
 * records counted per chunk and scattered into the chunks' buckets come out
 * sorted but for their order inside a bucket, at most WORKGROUP_SIZE records
 * (in lane order on SwiftShader; a GPU's atomics may interleave them): an
 * insertion sort by sample finishes.
 * `fill`: scratch, at least chunk count + 1 long.
 */
export function orderRecords(
  mapped: ArrayBuffer, at: number, n: number, tasks: number,
  taskChunk: Uint32Array, chunkData: Uint32Array, fill: Uint32Array, res: QueryResult,
): void {
  const chunks = taskChunk[tasks]!;
  fill.fill(0, 0, chunks + 1);
  const stride = RECORD.size / 4;
  const u = new Uint32Array(mapped, at, n * stride);
  const f = new Float32Array(mapped, at, n * stride);
  const R = RECORD.offsets;
  const oK = R.key / 4, oP = R.phi / 4, oX = R.nx / 4, oY = R.ny / 4, oZ = R.nz / 4;
  const shift = Math.log2(WORKGROUP_SIZE), laneMask = WORKGROUP_SIZE - 1;
  const end = n * stride;
  // Records per chunk, then each chunk's first slot (an exclusive prefix sum).
  for (let o = oK; o < end; o += stride) {
    const c = u[o]! >>> shift;
    if (c >= chunks) throw new Error(`penetration query: a record names chunk ${c} of ${chunks}`);
    fill[c + 1]!++;
  }
  for (let c = 0; c < chunks; c++) fill[c + 1]! += fill[c]!;
  const start = res.taskStart;
  for (let t = 0; t <= tasks; t++) start[t] = fill[taskChunk[t]!]!;
  res.count = n;
  const sample = res.sample, phi = res.phi, normal = res.normal;
  const cw = CHUNK.size / 4, cf = CHUNK.offsets.firstSample / 4;
  for (let o = 0; o < end; o += stride) {
    const key = u[o + oK]!;
    const c = key >>> shift;
    const i = fill[c]!++;
    sample[i] = chunkData[c * cw + cf]! + (key & laneMask);
    phi[i] = f[o + oP]!;
    normal[3 * i] = f[o + oX]!;
    normal[3 * i + 1] = f[o + oY]!;
    normal[3 * i + 2] = f[o + oZ]!;
  }
  // fill[c] now ends chunk c's bucket, which starts where chunk c - 1's ended.
  for (let c = 0, s = 0; c < chunks; c++) {
    const e = fill[c]!;
    for (let i = s + 1; i < e; i++) {
      const si = sample[i]!;
      if (sample[i - 1]! < si) continue;
      const pi = phi[i]!, x = normal[3 * i]!, y = normal[3 * i + 1]!, z = normal[3 * i + 2]!;
      let j = i;
      for (; j > s && sample[j - 1]! > si; j--) {
        sample[j] = sample[j - 1]!;
        phi[j] = phi[j - 1]!;
        normal[3 * j] = normal[3 * j - 3]!;
        normal[3 * j + 1] = normal[3 * j - 2]!;
        normal[3 * j + 2] = normal[3 * j - 1]!;
      }
      sample[j] = si;
      phi[j] = pi;
      normal[3 * j] = x;
      normal[3 * j + 1] = y;
      normal[3 * j + 2] = z;
    }
    s = e;
  }
}

/** Squared distance from v to the interval [lo, hi]. */
function gap2(v: number, lo: number, hi: number): number {
  const d = v < lo ? lo - v : v > hi ? v - hi : 0;
  return d * d;
}

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

function roundUp(n: number, m: number): number {
  return Math.ceil(n / m) * m;
}
