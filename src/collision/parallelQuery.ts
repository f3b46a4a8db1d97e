/**
 * The CPU query on several threads: a PenetrationBackend that runs the CPU
 * kernel (cpuKernel.ts) on the main thread and a pool of workers
 * (queryWorker.ts: worker_threads in Node, Web Workers in the browser) over
 * shared memory. Its results are those of CpuPenetrationBackend bit for bit:
 * every sample goes through the same function with the same Float32 inputs,
 * and the records are packed back in (task, sample) order.
 *
 * - setShapes copies every shape's samples and field values once into two
 *   SharedArrayBuffers that all threads read; each worker derives the cull
 *   data from them (the same function the single thread uses).
 * - query plans the batch on the main thread: the tasks whose bounding
 *   sphere reaches B's grid box (the kernel's first cull), cut into pieces
 *   (a large task into ranges of whole clusters, so one huge task still
 *   spreads over the pool) and grouped into chunks of about equal sample
 *   count, several per thread. It writes the batch and the plan into shared
 *   buffers, wakes the workers (Atomics.notify), and claims chunks itself
 *   like any worker; each chunk writes its records into its own slot of the
 *   shared output. When every chunk is done the main thread packs the slots,
 *   in chunk order, into one QueryResult whose arrays are views of that
 *   output (valid until the next call, as the contract says).
 * - Small batches (below `minSamples` samples that can reach a grid) run on
 *   the main thread alone: waking a worker costs more than they do.
 * - Sample sets (query.ts, SAMPLE_SET) are kept by the single-thread backend
 *   (setSampleSet, with their cull data); a pooled call copies the sets its
 *   reaching tasks sample into the shared set buffers (poolProtocol.ts), so
 *   the workers run set tasks like any other, through the same kernel on the
 *   same Float32 points and Float64 cull data: bit-identical records still.
 *   The copy costs O(points) per call, as the set's own cull data does.
 *
 * The protocol (control words, claiming, config generations) is in
 * poolProtocol.ts. Rejected designs: a static split (one share per
 * thread) serialises on a late worker, which on a loaded machine is the
 * common case; per-worker output regions sized for the worst case cost
 * threads x batch memory, the per-chunk slots cost the batch once; a
 * message per call (postMessage and onmessage) costs tens of microseconds
 * each way where a futex wake costs a few.
 */
import { CpuPenetrationBackend, badShapeMessage } from './cpuQuery.ts';
import { GROUP_SAMPLES, sortRecords, taskReaches, type KernelSamples, type KernelShape } from './cpuKernel.ts';
import {
  allocBatchBuffers,
  batchViews,
  C,
  CallSets,
  controlWords,
  drainChunks,
  kernelShapesOf,
  shareCullData,
  writeCallSet,
  type BatchBuffers,
  type BatchCaps,
  type BatchViews,
  type PoolConfig,
  type SharedShapeMeta,
} from './poolProtocol.ts';
import { POSE_STRIDE, SAMPLE_SET, type PenetrationBackend, type QueryBatch, type QueryResult, type QueryShape } from './query.ts';
import { sampleCount } from '../geometry/samples.ts';
import { grown } from '../util/growable.ts';
import { WorkerError } from '../errors.ts';

export interface PoolOptions {
  /** Threads that run queries, the main thread included (workers = threads - 1); at least 2. */
  threads: number;
  /**
   * Batches with fewer samples that can reach a grid run on the main thread
   * alone (the break-even, measured in docs/DESIGN.md section 3).
   */
  minSamples?: number;
  /** Chunks planned per thread (more: better balance, more claims). */
  chunksPerThread?: number;
  /** Smallest chunk, in samples. */
  minChunkSamples?: number;
  /**
   * Whether the main thread claims chunks too (default). Off, it only
   * waits, so every chunk runs on a worker: tests use it to be sure the
   * workers' path is the one checked.
   */
  mainClaims?: boolean;
}

/** Defaults of PoolOptions, measured on a 2-core VM (docs/DESIGN.md section 3). */
export const POOL_DEFAULTS = { minSamples: 4096, chunksPerThread: 4, minChunkSamples: 512, mainClaims: true } as const;
/** The most threads the default picks (the design allows more; see docs/DESIGN.md). */
export const MAX_DEFAULT_THREADS = 8;

/** How long the main thread waits without any chunk completing before it gives up. */
const STALL_MS = 30_000;

/** A task's fixed cost against its samples', in samples, when chunks are balanced. */
const TASK_COST = 32;

const isNode = typeof process !== 'undefined' && typeof process.versions?.node === 'string';

const NOT_ISOLATED =
  'the page is not cross-origin isolated (it needs the headers Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)';

/**
 * Why the pool cannot run here, or null when it can: it needs
 * SharedArrayBuffer and Atomics (in a browser only on a cross-origin
 * isolated page) and workers.
 */
export function poolUnavailable(): string | null {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') {
    return isNode ? 'SharedArrayBuffer is unavailable' : NOT_ISOLATED;
  }
  if (isNode) return null;
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated !== true) return NOT_ISOLATED;
  if (typeof Worker === 'undefined') return 'Web Workers are unavailable';
  return null;
}

/** Cores this runtime reports (Node: availableParallelism; browser: hardwareConcurrency). */
export async function availableCores(): Promise<number> {
  if (isNode) {
    const os = await import(/* @vite-ignore */ 'node:os');
    return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  }
  return Math.max(1, (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 1);
}

/** The default thread count: every core, at most MAX_DEFAULT_THREADS. */
export async function defaultThreads(): Promise<number> {
  return Math.max(1, Math.min(await availableCores(), MAX_DEFAULT_THREADS));
}

/** A worker as the pool sees it, whichever runtime made it. */
interface PoolWorker {
  post(config: PoolConfig): void;
  /** Stops the thread (even inside Atomics.wait); resolves when it is gone. */
  terminate(): Promise<void>;
}

async function spawnWorker(onError: (e: unknown) => void): Promise<PoolWorker> {
  if (isNode) {
    const { Worker } = await import(/* @vite-ignore */ 'node:worker_threads');
    // A computed name keeps Vite from treating the Node entry as a browser asset.
    const entry = 'queryWorker.node.mjs';
    const w = new Worker(new URL(entry, import.meta.url));
    // An idle pool must not keep a finished process alive.
    w.unref();
    w.on('error', onError);
    return { post: (m) => w.postMessage(m), terminate: () => w.terminate().then(() => undefined) };
  }
  const w = new Worker(new URL('./queryWorker.ts', import.meta.url), { type: 'module' });
  w.onerror = (e) => onError(e);
  return {
    post: (m) => w.postMessage(m),
    terminate: () => {
      w.terminate();
      return Promise.resolve();
    },
  };
}

/**
 * Writes the pieces and chunks of a call into the shared plan. A chunk's
 * output slot starts where the previous chunk's samples end, so the slots
 * of a call add up to its samples.
 */
class ChunkPlan {
  pieces = 0;
  chunks = 0;
  /** Estimated cost of the open chunk (samples, plus TASK_COST per piece). */
  cost = 0;
  private slot = 0;
  private chunkSlot = 0;
  private v: BatchViews | null = null;

  begin(v: BatchViews): void {
    this.v = v;
    this.pieces = this.chunks = this.cost = this.slot = this.chunkSlot = 0;
    v.chunkPiece[0] = 0;
  }

  add(task: number, first: number, end: number): void {
    const v = this.v!, p = this.pieces++;
    v.pieceTask[p] = task;
    v.pieceFirst[p] = first;
    v.pieceEnd[p] = end;
    this.slot += end - first;
    this.cost += end - first + TASK_COST;
  }

  /** Ends the open chunk (if it has pieces). */
  close(): void {
    const v = this.v!;
    if (this.pieces === v.chunkPiece[this.chunks]) return;
    v.chunkBase[this.chunks] = this.chunkSlot;
    this.chunkSlot = this.slot;
    v.chunkPiece[++this.chunks] = this.pieces;
    this.cost = 0;
  }
}

const share = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(Math.max(4, bytes));

export class ParallelPenetrationBackend implements PenetrationBackend {
  readonly kind = 'cpu' as const;
  readonly threads: number;
  /** The main thread's share and the small batches (over the shared shapes). */
  private readonly single = new CpuPenetrationBackend();
  /** Samples whose SDF value the last query computed (after the culls), as CpuPenetrationBackend. */
  evaluated = 0;
  /** Every thread's kernel counts the samples it evaluates after its culls (the chunks' sums). */
  readonly countsEvaluated = true;
  /** Calls of the last run that went to the pool (not the main thread alone); for tests and the bench. */
  pooledCalls = 0;
  /** Chunks of the last pooled call, and how many of them the main thread ran itself. */
  lastChunks = 0;
  lastMainChunks = 0;
  private readonly opts: Required<PoolOptions>;
  private readonly ctrl: Int32Array;
  private workers: (PoolWorker | null)[] = [];
  /** Every worker as it was started (null: it failed to start). */
  private readonly spawned: Promise<PoolWorker | null>[] = [];
  private exited: Promise<void> | null = null;
  private failures: string[] = [];
  private destroyed = false;
  /** A call is waiting for its chunks (browser: across an await): the buffers must not change. */
  private inFlight = false;
  private gen = 0;
  private shapesVersion = 0;
  private points: SharedArrayBuffer = share(0);
  private values: SharedArrayBuffer = share(0);
  private orders: ArrayBufferLike = share(0);
  private spheres: ArrayBufferLike = share(0);
  private meta: SharedShapeMeta[] = [];
  private shapes: KernelShape[] = [];
  private caps: BatchCaps = { tasks: 64, pieces: 64, chunks: 64, records: 4096, sets: 4, setPoints: 1024, setClusters: 256 };
  private buffers: BatchBuffers;
  private views: BatchViews;
  /** The main thread's views of the call's sample sets (new with every config, as the workers'). */
  private callSets: CallSets;
  /** Per call: the slot of each sample set (its SAMPLE_SET reference) the reaching tasks sample. */
  private readonly setSlot = new Map<number, number>();
  private reach = new Uint8Array(64);
  private readonly nrm = new Float64Array(3);
  private readonly plan = new ChunkPlan();
  private readonly result: QueryResult;

  constructor(opts: PoolOptions) {
    if (!(opts.threads >= 2)) throw new RangeError(`a query pool needs at least 2 threads, got ${opts.threads}`);
    const why = poolUnavailable();
    if (why) throw new Error(`cannot run queries on several threads: ${why}`);
    this.threads = Math.floor(opts.threads);
    this.opts = { ...POOL_DEFAULTS, ...opts };
    this.ctrl = new Int32Array(share(4 * controlWords(this.threads - 1)));
    // No worker has taken a config yet: READY must not read as generation
    // 0, or ready() would resolve before any worker has started.
    for (let w = 0; w < this.threads - 1; w++) this.ctrl[C.READY + 16 * w] = -1;
    this.buffers = allocBatchBuffers(this.caps, share);
    this.views = batchViews(this.buffers, this.caps);
    this.callSets = new CallSets(this.views);
    this.result = { count: 0, taskStart: new Uint32Array(64), sample: this.views.out.sample, phi: this.views.out.phi, normal: this.views.out.normal };
    for (let w = 0; w < this.threads - 1; w++) {
      this.workers.push(null);
      // Workers start in the background (a Node worker loads its sources
      // first); until one has taken the current config, the main thread
      // runs its share.
      this.spawned.push(
        spawnWorker((e) => this.fail(w, e)).then(
          (pw) => {
            if (!this.destroyed) {
              this.workers[w] = pw;
              pw.post(this.config(w));
            }
            return pw;
          },
          (e) => {
            this.fail(w, e);
            return null;
          },
        ),
      );
    }
  }

  /** Cumulative work counters, the same as the single-thread backend keeps. */
  get counters() {
    return this.single.counters;
  }

  /** Workers that have taken the current config (they can claim chunks). */
  get readyWorkers(): number {
    let n = 0;
    for (let w = 0; w < this.threads - 1; w++) if (Atomics.load(this.ctrl, C.READY + 16 * w) === this.gen) n++;
    return n;
  }

  /**
   * Resolves once every worker has taken the current config (the CLI,
   * benchmarks and tests wait for a warm pool). Throws WorkerError when a
   * worker failed to start or did not start in time: the pool would run on
   * fewer threads than asked for.
   */
  async ready(timeoutMs = 30_000): Promise<void> {
    const t0 = Date.now();
    const workers = this.threads - 1;
    while (this.readyWorkers < workers) {
      if (this.failures.length) {
        throw new WorkerError(`${this.failures.length} of ${workers} query worker threads failed to start: ${this.failures[0]}`);
      }
      if (Date.now() - t0 > timeoutMs) throw new WorkerError(`query worker threads not started after ${timeoutMs / 1000} s (${this.readyWorkers} of ${workers})`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  setShapes(shapes: readonly QueryShape[]): void {
    this.alive();
    if (this.inFlight) throw new Error('setShapes called while a query is running');
    let floats = 0, nodes = 0;
    const meta: SharedShapeMeta[] = shapes.map((s) => {
      const count = sampleCount(s.samples);
      const g = s.sdf;
      const m: SharedShapeMeta = {
        pointOffset: floats,
        count,
        valueOffset: nodes,
        origin: [g.origin[0], g.origin[1], g.origin[2]],
        cellSize: g.cellSize,
        dims: [g.dims[0], g.dims[1], g.dims[2]],
        orderOffset: 0,
        sphereOffset: 0,
        radius: 0,
      };
      floats += 4 * count;
      nodes += g.dims[0] * g.dims[1] * g.dims[2];
      return m;
    });
    const points = share(4 * floats), values = share(4 * nodes);
    const pv = new Float32Array(points), vv = new Float32Array(values);
    shapes.forEach((s, i) => {
      const m = meta[i]!;
      pv.set(s.samples.points.subarray(0, 4 * m.count), m.pointOffset);
      vv.set(s.sdf.values.subarray(0, m.dims[0] * m.dims[1] * m.dims[2]), m.valueOffset);
    });
    const { orders, spheres } = shareCullData(points, values, meta, share);
    this.points = points;
    this.values = values;
    this.orders = orders;
    this.spheres = spheres;
    this.meta = meta;
    this.shapesVersion++;
    this.shapes = kernelShapesOf(points, values, orders, spheres, meta);
    this.single.setKernelShapes(this.shapes);
    this.reconfigure(this.caps);
  }

  setSampleSet(set: number, points: Float32Array, count: number): void {
    this.alive();
    if (this.inFlight) throw new Error('setSampleSet called while a query is running');
    this.single.setSampleSet(set, points, count);
  }

  async query(batch: QueryBatch, overlap?: () => void): Promise<QueryResult> {
    this.alive();
    const n = batch.count;
    const shapes = this.shapes;
    const single = this.single;
    const bad = badShapeMessage(batch, shapes.length, (set) => single.sideA((SAMPLE_SET | set) >>> 0) !== undefined);
    if (bad) throw new RangeError(bad);
    // Plan, 1: which tasks can have records (the kernel's own first cull), and their samples;
    // the sample sets those tasks sample, and the room they take.
    if (this.reach.length < n) this.reach = new Uint8Array(Math.max(n, 2 * this.reach.length));
    const reach = this.reach;
    const setSlot = this.setSlot;
    setSlot.clear();
    let total = 0, reaching = 0, sent = 0, setPoints = 0, setClusters = 0;
    for (let t = 0; t < n; t++) {
      const a = batch.shapeA[t]!;
      const A = single.sideA(a)!;
      sent += A.count;
      const r = taskReaches(A, shapes[batch.shapeB[t]!]!, batch.poses, t * POSE_STRIDE, batch.margin[t]!);
      reach[t] = r ? 1 : 0;
      if (r) {
        total += A.count;
        reaching++;
        if (a & SAMPLE_SET && !setSlot.has(a)) {
          setSlot.set(a, setSlot.size);
          setPoints += 4 * A.count;
          setClusters += A.clusters.length;
        }
      }
    }
    const ready = this.readyWorkers;
    if (total === 0 || total < this.opts.minSamples || ready === 0) {
      overlap?.();
      const res = single.querySync(batch);
      this.evaluated = single.evaluated;
      return res;
    }
    // Plan, 2: pieces and chunks.
    const o = this.opts;
    const target = Math.max(o.minChunkSamples, Math.ceil(total / (this.threads * o.chunksPerThread)));
    const pieceSize = Math.ceil(target / GROUP_SAMPLES) * GROUP_SAMPLES;
    const maxPieces = reaching + Math.ceil(total / pieceSize) + 1;
    const c = this.caps;
    const end0 = Atomics.load(this.ctrl, C.END);
    const sets = setSlot.size;
    if (
      c.tasks < n || c.pieces < maxPieces || c.chunks < maxPieces || c.records < total ||
      c.sets < sets || c.setPoints < setPoints || c.setClusters < setClusters || end0 > 1 << 30
    ) {
      const grow = (have: number, need: number) => (have >= need ? have : Math.max(need, 2 * have));
      this.reconfigure({
        tasks: grow(c.tasks, n),
        pieces: grow(c.pieces, maxPieces),
        chunks: grow(c.chunks, maxPieces),
        records: grow(c.records, total),
        sets: grow(c.sets, sets),
        setPoints: grow(c.setPoints, setPoints),
        setClusters: grow(c.setClusters, setClusters),
      });
    }
    const v = this.views;
    for (let t = 0; t < n; t++) {
      const a = batch.shapeA[t]!;
      // A reaching task on a sample set names the set's slot in this call's set buffers.
      v.shapeA[t] = a & SAMPLE_SET && reach[t] ? (SAMPLE_SET | setSlot.get(a)!) >>> 0 : a;
      v.shapeB[t] = batch.shapeB[t]!;
      v.margin[t] = batch.margin[t]!;
    }
    if (sets > 0) this.writeSets();
    for (let i = 0, m = n * POSE_STRIDE; i < m; i++) v.poses[i] = batch.poses[i]!;
    const plan = this.plan;
    plan.begin(v);
    for (let t = 0; t < n; t++) {
      if (!reach[t]) continue;
      const count = single.sideA(batch.shapeA[t]!)!.count;
      if (count > target) {
        // A large task: pieces of whole clusters, a chunk each.
        plan.close();
        for (let f = 0; f < count; f += pieceSize) {
          plan.add(t, f, Math.min(count, f + pieceSize));
          plan.close();
        }
      } else {
        plan.add(t, 0, count);
        if (plan.cost >= target) plan.close();
      }
    }
    plan.close();
    const { pieces, chunks } = plan;
    // Publish: the plan is written; BASE, then END, make it claimable; SEQ wakes the workers.
    const ctrl = this.ctrl;
    const base = Atomics.load(ctrl, C.END);
    Atomics.store(ctrl, C.ERROR, 0);
    Atomics.store(ctrl, C.BASE, base);
    Atomics.store(ctrl, C.END, base + chunks);
    Atomics.add(ctrl, C.SEQ, 1);
    Atomics.notify(ctrl, C.SEQ, this.opts.mainClaims ? Math.min(ready, chunks - 1) : ready);
    this.lastChunks = chunks;
    // The main thread's own work first, while the workers start on the
    // chunks; then it claims what they have not. (If that work throws, the
    // chunks are still finished before the error goes on.)
    let overlapFailed = false, overlapError: unknown;
    try {
      overlap?.();
    } catch (e) {
      overlapFailed = true;
      overlapError = e;
    }
    this.lastMainChunks = this.opts.mainClaims ? drainChunks(ctrl, v, shapes, this.callSets, this.nrm) : 0;
    // Wait for the chunks other threads claimed. A worker that dies inside
    // a chunk (it cannot throw: drainChunks catches) would leave it undone
    // for ever, so a long stall is an error, not a hang.
    const end = base + chunks;
    let last = -1, since = 0;
    this.inFlight = true;
    try {
      for (let d = Atomics.load(ctrl, C.DONE); d !== end; d = Atomics.load(ctrl, C.DONE)) {
        if (d !== last) {
          last = d;
          since = performance.now();
        } else if (performance.now() - since > STALL_MS) {
          throw new Error(`query workers made no progress for ${STALL_MS / 1000} s (${end - d} of ${chunks} chunks undone)`);
        }
        if (isNode) Atomics.wait(ctrl, C.DONE, d, 1000);
        else await waitAsync(ctrl, C.DONE, d);
        this.alive();
      }
    } finally {
      this.inFlight = false;
    }
    if (overlapFailed) throw overlapError;
    if (Atomics.load(ctrl, C.ERROR) !== 0) throw new Error('a query worker failed while running its chunk');
    this.pooledCalls++;
    return this.pack(batch, pieces, chunks, sent);
  }

  /** Copies the call's sample sets (setSlot) into the shared set buffers, each into its slot. */
  private writeSets(): void {
    let points = 0, clusters = 0;
    for (const [ref, slot] of this.setSlot) {
      const A: KernelSamples = this.single.sideA(ref)!;
      writeCallSet(this.views, slot, A, points, clusters);
      points += 4 * A.count;
      clusters += A.clusters.length;
    }
  }

  /** Packs the chunks' slots in chunk order and fills taskStart; books the counters. */
  private pack(batch: QueryBatch, pieces: number, chunks: number, sent: number): QueryResult {
    const v = this.views, out = v.out, res = this.result;
    let dst = 0, evaluated = 0;
    for (let k = 0; k < chunks; k++) {
      const src = v.chunkBase[k]!, cnt = v.chunkCount[k]!;
      if (cnt > 0 && src !== dst) {
        out.sample.copyWithin(dst, src, src + cnt);
        out.phi.copyWithin(dst, src, src + cnt);
        out.normal.copyWithin(3 * dst, 3 * src, 3 * (src + cnt));
      }
      dst += cnt;
      evaluated += v.chunkEval[k]!;
    }
    const n = batch.count;
    if (res.taskStart.length < n + 1) res.taskStart = grown(res.taskStart, n + 1);
    let run = 0;
    for (let t = 0, p = 0; t < n; t++) {
      res.taskStart[t] = run;
      const p0 = p;
      for (; p < pieces && v.pieceTask[p] === t; p++) run += v.pieceCount[p]!;
      // Each piece came out sorted; a task cut into pieces of spatial
      // clusters is sorted again as a whole (query.ts: by sample index).
      if (p - p0 > 1) sortRecords(out, res.taskStart[t]!, run);
    }
    res.taskStart[n] = run;
    res.count = run;
    res.sample = out.sample;
    res.phi = out.phi;
    res.normal = out.normal;
    this.evaluated = evaluated;
    const cn = this.single.counters;
    cn.calls++;
    cn.samplesEvaluated += evaluated;
    cn.samplesSent += sent;
    return res;
  }

  /**
   * New buffers (or new shapes) for every thread: post the config, raise
   * GEN, wait until no worker is inside the claim section with the old
   * buffers, then reset the chunk counters.
   */
  private reconfigure(caps: BatchCaps): void {
    if (caps !== this.caps) {
      this.caps = caps;
      this.buffers = allocBatchBuffers(caps, share);
      this.views = batchViews(this.buffers, caps);
    }
    // BASE starts again at 0: views of an earlier call's sets must not be taken for this config's.
    this.callSets = new CallSets(this.views);
    const ctrl = this.ctrl;
    this.gen++;
    this.workers.forEach((w, i) => w?.post(this.config(i)));
    Atomics.store(ctrl, C.GEN, this.gen);
    Atomics.add(ctrl, C.SEQ, 1);
    Atomics.notify(ctrl, C.SEQ);
    while (Atomics.load(ctrl, C.BUSY) !== 0) {
      // A worker is between its GEN check and the end of its claim loop;
      // the previous call is complete, so it only finds nothing to claim.
    }
    // END first: with END at 0 nothing can be claimed while NEXT is reset.
    Atomics.store(ctrl, C.END, 0);
    Atomics.store(ctrl, C.NEXT, 0);
    Atomics.store(ctrl, C.BASE, 0);
    Atomics.store(ctrl, C.DONE, 0);
  }

  private config(worker: number): PoolConfig {
    return {
      type: 'config',
      worker,
      gen: this.gen,
      control: this.ctrl.buffer as SharedArrayBuffer,
      shapesVersion: this.shapesVersion,
      points: this.points,
      values: this.values,
      orders: this.orders,
      spheres: this.spheres,
      shapes: this.meta,
      caps: this.caps,
      batch: this.buffers,
    };
  }

  /**
   * A worker that failed (to start, or later) is dropped: the others and
   * the main thread run its share, so the results stay complete.
   */
  private fail(w: number, e: unknown): void {
    this.failures.push(e instanceof Error ? e.message : String((e as { message?: unknown })?.message ?? e));
    void this.workers[w]?.terminate();
    this.workers[w] = null;
  }

  private alive(): void {
    if (this.destroyed) throw new Error('the query pool was destroyed');
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    Atomics.store(this.ctrl, C.EXIT, 1);
    Atomics.add(this.ctrl, C.SEQ, 1);
    Atomics.notify(this.ctrl, C.SEQ);
    this.workers = [];
    this.exited = Promise.all(this.spawned.map((p) => p.then((w) => w?.terminate()))).then(() => undefined);
    this.single.destroy();
  }

  /** Resolves when every worker thread has stopped (after destroy()). */
  whenTerminated(): Promise<void> {
    if (!this.exited) throw new Error('whenTerminated() before destroy()');
    return this.exited;
  }
}

/** Atomics.waitAsync where the runtime has it (a browser's main thread cannot block), else a short sleep. */
function waitAsync(ctrl: Int32Array, index: number, value: number): Promise<unknown> {
  const wa = (Atomics as unknown as { waitAsync?: (a: Int32Array, i: number, v: number, t?: number) => { async: boolean; value: unknown } }).waitAsync;
  if (wa) {
    const r = wa(ctrl, index, value, 1000);
    return r.async ? (r.value as Promise<unknown>) : Promise.resolve(r.value);
  }
  return new Promise((r) => setTimeout(r, 0));
}
