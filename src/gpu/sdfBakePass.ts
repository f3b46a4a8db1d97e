/**
 * GPU signed distance field bake: the twin of bakeSdfCpu (src/sdf/bake.ts),
 * same grid (gridLayout), same triangle table (packTriangleTable), values equal
 * to within f32 rounding. Kernel and the reasoning behind it: shaders/sdf_bake.wgsl.
 *
 * Large grids go in chunks of nodes, one dispatch per chunk, all recorded in
 * one command buffer and read back with one copy per grid; a scene's shapes
 * go together (bakeSdfsGpu: one submission and one wait for all of them). A
 * chunk stays under the per-dimension workgroup limit, under the storage binding size, and under a
 * work budget (nodes x triangles) so no single dispatch runs long enough to
 * trip an OS GPU watchdog on a real GPU.
 *
 * Progress: a bake whose jobs take a progress callback records the same
 * chunks into a few command buffers instead of one (PROGRESS_SUBMITS at
 * most, cut at chunk boundaries by work), submits them all at once and
 * reports each shape's fraction as the queue finishes each one
 * (onSubmittedWorkDone: one promise per submission, no readback). Without a
 * callback it stays one submission.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { meshBounds } from '../geometry/mesh.ts';
import { gridLayout, type SdfGrid } from '../sdf/grid.ts';
import { packTriangleTable } from '../sdf/pseudonormals.ts';
import { sortIndicesByKey } from '../util/sort.ts';
import { checkErrors, createComputePipelineChecked, passSource } from './device.ts';
import { BAKE_PARAMS, SDF_INFO, TRIANGLE_VEC4S, WORKGROUP_SIZE } from './layout.ts';

export interface GpuBakeOptions {
  /** Cells along the longest axis of the mesh bounds (gridLayout's default when omitted). */
  cells?: number;
  /** Extra cells on every side (gridLayout's default when omitted). */
  padding?: number;
  /** Upper bound on node-triangle tests per dispatch (default 2^27); tests use it to force chunking. */
  maxPairsPerDispatch?: number;
  /** Told the fraction of the grid baked (0 to 1) as its chunks finish on the GPU; the last call says 1. */
  onProgress?: (fraction: number) => void;
}

const DEFAULT_MAX_PAIRS = 1 << 27;

interface BakePipeline {
  pipeline: GPUComputePipeline;
  bindGroupLayout: GPUBindGroupLayout;
}

const pipelines = new WeakMap<GPUDevice, Promise<BakePipeline>>();

/**
 * The pipeline, built once per device. Built asynchronously so a shader that
 * fails to compile rejects with the compiler's message (and is not cached).
 */
function bakePipeline(device: GPUDevice): Promise<BakePipeline> {
  let p = pipelines.get(device);
  if (!p) {
    p = createBakePipeline(device);
    pipelines.set(device, p);
    p.catch(() => pipelines.delete(device));
  }
  return p;
}

async function createBakePipeline(device: GPUDevice): Promise<BakePipeline> {
  const bindGroupLayout = device.createBindGroupLayout({
    label: 'sdf bake',
    entries: [
      { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
      { binding: 2, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
      { binding: 3, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
    ],
  });
  const pipeline = await createComputePipelineChecked(device, {
    label: 'sdf_bake.wgsl',
    ...passSource('sdf_bake.wgsl'),
    layout: device.createPipelineLayout({ label: 'sdf bake', bindGroupLayouts: [bindGroupLayout] }),
    constants: { WORKGROUP_SIZE },
  });
  return { pipeline, bindGroupLayout };
}

/** One mesh of a batch bake (bakeSdfsGpu): its grid is gridLayout(meshBounds(mesh), cells, padding). */
export interface GpuBakeJob {
  mesh: TriMesh;
  cells?: number;
  padding?: number;
  /** As GpuBakeOptions.onProgress, for this job's grid (a BakeJob's own callback passes straight through). */
  onProgress?: (fraction: number) => void;
}

/** Bakes the SDF of a closed mesh on the GPU, on the grid gridLayout(meshBounds(mesh), cells, padding). */
export async function bakeSdfGpu(device: GPUDevice, mesh: TriMesh, opts: GpuBakeOptions = {}): Promise<SdfGrid> {
  const job: GpuBakeJob = { mesh };
  if (opts.cells !== undefined) job.cells = opts.cells;
  if (opts.padding !== undefined) job.padding = opts.padding;
  if (opts.onProgress !== undefined) job.onProgress = opts.onProgress;
  return (await bakeSdfsGpu(device, [job], opts.maxPairsPerDispatch))[0]!;
}

/**
 * Bakes several meshes' SDFs in one queue submission and one wait for the
 * readbacks (a scene's shapes: createWorld on the GPU backend). Each grid is
 * the one bakeSdfGpu would give for its mesh alone, bit for bit: the same
 * chunks run with the same inputs, only recorded into one command buffer.
 * A batch whose value buffers together pass BATCH_BYTES is cut into
 * submissions of about that size, so the device never holds every grid of a
 * large scene twice over (values and readback) at once. A job's onProgress
 * hears its grid's fraction as its chunks finish (the file comment).
 */
export async function bakeSdfsGpu(device: GPUDevice, jobs: readonly GpuBakeJob[], maxPairsPerDispatch = DEFAULT_MAX_PAIRS): Promise<SdfGrid[]> {
  const items = jobs.map((j) => {
    const layout = gridLayout(meshBounds(j.mesh), j.cells, j.padding);
    return { table: packTriangleTable(j.mesh), grid: layout, onProgress: j.onProgress };
  });
  const values = await bakeTriangleTablesGpu(device, items, maxPairsPerDispatch);
  return items.map(({ grid }, i) => ({ origin: grid.origin, cellSize: grid.cellSize, dims: grid.dims, values: values[i]! }));
}

/** The kernel run on an already packed triangle table; returns one value per node (x fastest). */
export async function bakeTriangleTableGpu(
  device: GPUDevice,
  table: Float32Array,
  grid: BakeGrid,
  maxPairsPerDispatch = DEFAULT_MAX_PAIRS,
): Promise<Float32Array> {
  return (await bakeTriangleTablesGpu(device, [{ table, grid }], maxPairsPerDispatch))[0]!;
}

interface BakeGrid {
  origin: readonly number[];
  cellSize: number;
  dims: readonly number[];
}

/** A batch's value bytes past which it is cut into several submissions (bakeSdfsGpu). */
const BATCH_BYTES = 256 * 1024 * 1024;

/** The kernel on several packed triangle tables, in as few submissions as BATCH_BYTES allows (one for a scene of ordinary shapes). */
async function bakeTriangleTablesGpu(
  device: GPUDevice,
  items: readonly { table: Float32Array; grid: BakeGrid; onProgress?: ((fraction: number) => void) | undefined }[],
  maxPairsPerDispatch: number,
): Promise<Float32Array[]> {
  const plans = items.map(({ table, grid, onProgress }) => planBake(device, table, grid, maxPairsPerDispatch, onProgress));
  const out: Float32Array[] = [];
  for (let i = 0; i < plans.length; ) {
    let j = i + 1, bytes = plans[i]!.nodeCount * 4;
    while (j < plans.length && bytes + plans[j]!.nodeCount * 4 <= BATCH_BYTES) bytes += plans[j++]!.nodeCount * 4;
    out.push(...(await submitBakes(device, plans.slice(i, j), maxPairsPerDispatch)));
    i = j;
  }
  return out;
}

/** One table's bake, checked against the device's limits and cut into chunks. */
interface BakePlan {
  table: Float32Array;
  grid: BakeGrid;
  triCount: number;
  nodeCount: number;
  chunkNodes: number;
  chunks: number;
  onProgress: ((fraction: number) => void) | undefined;
}

function planBake(
  device: GPUDevice,
  table: Float32Array,
  grid: BakeGrid,
  maxPairsPerDispatch: number,
  onProgress: ((fraction: number) => void) | undefined,
): BakePlan {
  const triCount = table.length / (TRIANGLE_VEC4S * 4);
  if (!Number.isInteger(triCount) || triCount < 1) {
    throw new RangeError(`the triangle table must hold a positive whole number of ${TRIANGLE_VEC4S}-vec4f triangles, got ${table.length} floats`);
  }
  const tiled = tiledTriangleTable(table, BAKE_TILE);
  const [nx, ny, nz] = grid.dims as [number, number, number];
  const nodeCount = nx * ny * nz;
  const lim = device.limits;
  if (nodeCount * 4 > lim.maxBufferSize || nodeCount >= 2 ** 32) {
    throw new RangeError(`an SDF grid of ${nx}x${ny}x${nz} nodes exceeds this device's buffer size (${lim.maxBufferSize} bytes)`);
  }
  if (tiled.byteLength > lim.maxStorageBufferBindingSize) {
    throw new RangeError(`${triCount} triangles exceed this device's storage binding size (${lim.maxStorageBufferBindingSize} bytes)`);
  }
  // Nodes per dispatch: a multiple of the workgroup size, so every chunk's
  // slice of the output starts on a 256-byte binding boundary (64 nodes * 4 B).
  const align = Math.max(WORKGROUP_SIZE, lim.minStorageBufferOffsetAlignment / 4);
  const byLimit = Math.min(lim.maxComputeWorkgroupsPerDimension * WORKGROUP_SIZE, lim.maxStorageBufferBindingSize / 4);
  const byWork = Math.floor(maxPairsPerDispatch / triCount);
  const chunkNodes = Math.max(align, Math.floor(Math.min(byLimit, byWork, nodeCount + align - 1) / align) * align);
  return { table: tiled, grid, triCount, nodeCount, chunkNodes, chunks: Math.ceil(nodeCount / chunkNodes), onProgress };
}

/** Triangles per tile of tiledTriangleTable (sdf_bake.wgsl's BAKE_TILE). */
export const BAKE_TILE = 64;
/** Vec4s per tile after the triangles in tiledTriangleTable: (centre, radius), (a point of the surface, 0). */
export const TILE_BOUND_VEC4S = 2;

/**
 * The triangle table as the kernel reads it: the same rows in an order
 * along a Morton curve through their centroids, so that each tile of
 * `tileSize` consecutive triangles covers one compact piece of the surface;
 * then, per tile, a sphere holding its triangles and one of their corners
 * (TILE_BOUND_VEC4S vec4s); then, per triangle, a sphere holding it. The
 * kernel skips a tile, or a triangle, whose sphere lies farther from a node
 * than that node's closest triangle so far, or than the nearest of the
 * tiles' corners (an upper bound of its distance before any triangle is
 * tested): a node then tests the few triangles near it instead of every
 * one (shaders/sdf_bake.wgsl). Spheres are grown past the f32 rounding of
 * their centres.
 */
export function tiledTriangleTable(table: Float32Array, tileSize: number): Float32Array {
  const rowFloats = TRIANGLE_VEC4S * 4;
  const n = table.length / rowFloats;
  const tiles = Math.ceil(n / tileSize);
  // Morton codes (10 bits an axis) of the centroids in the table's bounds.
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const cen = new Float64Array(3 * n);
  for (let t = 0; t < n; t++) {
    for (let k = 0; k < 3; k++) {
      const c = (table[t * rowFloats + k]! + table[t * rowFloats + 4 + k]! + table[t * rowFloats + 8 + k]!) / 3;
      cen[3 * t + k] = c;
      if (c < lo[k]!) lo[k] = c;
      if (c > hi[k]!) hi[k] = c;
    }
  }
  const code = new Float64Array(n);
  const order = new Int32Array(n);
  for (let t = 0; t < n; t++) {
    let m = 0;
    const q = [0, 1, 2].map((k) => {
      const span = hi[k]! - lo[k]!;
      return span > 0 && Number.isFinite(span) ? Math.min(1023, Math.floor((1024 * (cen[3 * t + k]! - lo[k]!)) / span)) : 0;
    });
    for (let bit = 9; bit >= 0; bit--) for (let k = 0; k < 3; k++) m = m * 2 + ((q[k]! >> bit) & 1);
    code[t] = m;
    order[t] = t;
  }
  sortIndicesByKey(order, n, code, new Int32Array(n));
  const out = new Float32Array(n * rowFloats + tiles * TILE_BOUND_VEC4S * 4 + 4 * n);
  for (let i = 0; i < n; i++) out.set(table.subarray(order[i]! * rowFloats, (order[i]! + 1) * rowFloats), i * rowFloats);
  /** At `o`: the sphere about the box of the corners of triangles [t0, t1), grown past the f32 rounding of its centre. */
  const sphere = (o: number, t0: number, t1: number): void => {
    const bl = [Infinity, Infinity, Infinity], bh = [-Infinity, -Infinity, -Infinity];
    for (let t = t0; t < t1; t++) {
      for (let v = 0; v < 12; v += 4) {
        for (let a = 0; a < 3; a++) {
          const x = out[t * rowFloats + v + a]!;
          if (x < bl[a]!) bl[a] = x;
          if (x > bh[a]!) bh[a] = x;
        }
      }
    }
    const c = [0.5 * (bl[0]! + bh[0]!), 0.5 * (bl[1]! + bh[1]!), 0.5 * (bl[2]! + bh[2]!)];
    let r = 0;
    for (let t = t0; t < t1; t++) {
      for (let v = 0; v < 12; v += 4) {
        const i = t * rowFloats + v;
        r = Math.max(r, Math.hypot(out[i]! - c[0]!, out[i + 1]! - c[1]!, out[i + 2]! - c[2]!));
      }
    }
    out[o] = c[0]!;
    out[o + 1] = c[1]!;
    out[o + 2] = c[2]!;
    out[o + 3] = r * (1 + 1e-4) + 1e-6 * Math.max(Math.abs(c[0]!), Math.abs(c[1]!), Math.abs(c[2]!), r);
  };
  const triangleSpheres = n * rowFloats + tiles * TILE_BOUND_VEC4S * 4;
  for (let t = 0; t < n; t++) sphere(triangleSpheres + 4 * t, t, t + 1);
  for (let k = 0; k < tiles; k++) {
    const t0 = k * tileSize, o = n * rowFloats + k * TILE_BOUND_VEC4S * 4;
    sphere(o, t0, Math.min(n, t0 + tileSize));
    // A corner of the tile's first triangle: a point of the surface.
    out[o + 4] = out[t0 * rowFloats]!;
    out[o + 5] = out[t0 * rowFloats + 1]!;
    out[o + 6] = out[t0 * rowFloats + 2]!;
  }
  return out;
}

/**
 * Most submissions a bake with progress callbacks is cut into: a step of
 * about 2% of its work, so the line moves while the queue never waits on the
 * host (every submission is made before the first one finishes).
 */
const PROGRESS_SUBMITS = 50;

/** A command buffer of a bake and, per plan whose chunks it holds, that plan's nodes baked once it has run. */
interface BakeSegment {
  commands: GPUCommandBuffer;
  reached: { plan: number; nodes: number }[];
}

/**
 * Records every chunk of every plan, submits them, and reads every grid back.
 * Without a progress callback the chunks go in one command buffer and one
 * submission. With one, they are cut at chunk boundaries into command
 * buffers of at least 1/PROGRESS_SUBMITS of the work (and a quarter of a
 * dispatch's budget, so a small bake stays whole), all submitted at once;
 * each submission's onSubmittedWorkDone tells the plans it finished how far
 * they have got. Same dispatches with the same inputs: the grids are the
 * same bit for bit either way.
 */
async function submitBakes(device: GPUDevice, plans: readonly BakePlan[], maxPairsPerDispatch: number): Promise<Float32Array[]> {
  const lim = device.limits;
  const paramStride = Math.max(BAKE_PARAMS.size, lim.minUniformBufferOffsetAlignment);
  const totalChunks = plans.reduce((s, p) => s + p.chunks, 0);
  const tracked = plans.some((p) => p.onProgress !== undefined);
  const totalWork = plans.reduce((s, p) => s + p.nodeCount * p.triCount, 0);
  const segmentWork = tracked ? Math.max(totalWork / PROGRESS_SUBMITS, maxPairsPerDispatch / 4) : Infinity;
  const buffers: GPUBuffer[] = [];
  const make = (d: GPUBufferDescriptor): GPUBuffer => {
    const b = device.createBuffer(d);
    buffers.push(b);
    return b;
  };
  try {
    return await checkErrors(device, 'SDF bake', async () => {
      const { pipeline, bindGroupLayout } = await bakePipeline(device);
      const paramBuf = make({ label: 'bake params', size: paramStride * totalChunks, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      const params = new ArrayBuffer(paramStride * totalChunks);
      const f = new Float32Array(params);
      const u = new Uint32Array(params);
      const segments: BakeSegment[] = [];
      let enc = device.createCommandEncoder({ label: 'sdf bake' });
      let work = 0;
      let reached = new Map<number, number>();
      /** Ends the command buffer being recorded and, unless it is the last, starts the next. */
      const closeSegment = (more: boolean): void => {
        segments.push({ commands: enc.finish(), reached: [...reached].map(([plan, nodes]) => ({ plan, nodes })) });
        if (!more) return;
        enc = device.createCommandEncoder({ label: `sdf bake ${segments.length}` });
        work = 0;
        reached = new Map();
      };
      const staging: GPUBuffer[] = [];
      let c = 0;
      plans.forEach((p, s) => {
        const { table, grid, triCount, nodeCount, chunkNodes, chunks } = p;
        const triBuf = make({ label: `bake triangles ${s}`, size: table.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
        device.queue.writeBuffer(triBuf, 0, table.buffer, table.byteOffset, table.byteLength);
        const valueBytes = nodeCount * 4;
        const valBuf = make({ label: `bake values ${s}`, size: valueBytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
        const back = make({ label: `bake readback ${s}`, size: valueBytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        staging.push(back);
        for (let k = 0; k < chunks; k++, c++) {
          const first = k * chunkNodes;
          const count = Math.min(chunkNodes, nodeCount - first);
          const w = (c * paramStride) / 4;
          const g = w + BAKE_PARAMS.offsets.grid / 4;
          f[g + SDF_INFO.offsets.origin / 4] = grid.origin[0]!;
          f[g + SDF_INFO.offsets.origin / 4 + 1] = grid.origin[1]!;
          f[g + SDF_INFO.offsets.origin / 4 + 2] = grid.origin[2]!;
          f[g + SDF_INFO.offsets.cellSize / 4] = grid.cellSize;
          u[g + SDF_INFO.offsets.dims / 4] = grid.dims[0]!;
          u[g + SDF_INFO.offsets.dims / 4 + 1] = grid.dims[1]!;
          u[g + SDF_INFO.offsets.dims / 4 + 2] = grid.dims[2]!;
          u[g + SDF_INFO.offsets.valueOffset / 4] = 0;
          u[w + BAKE_PARAMS.offsets.triangleCount / 4] = triCount;
          u[w + BAKE_PARAMS.offsets.firstNode / 4] = first;
          u[w + BAKE_PARAMS.offsets.nodeCount / 4] = count;
          const bindGroup = device.createBindGroup({
            label: `sdf bake ${s} chunk ${k}`,
            layout: bindGroupLayout,
            entries: [
              { binding: 1, resource: { buffer: triBuf } },
              { binding: 2, resource: { buffer: valBuf, offset: first * 4, size: count * 4 } },
              { binding: 3, resource: { buffer: paramBuf, offset: c * paramStride, size: BAKE_PARAMS.size } },
            ],
          });
          // One pass per chunk: a pass boundary lets the driver schedule (and
          // preempt) chunks separately.
          const pass = enc.beginComputePass({ label: `sdf bake ${s} chunk ${k}` });
          pass.setPipeline(pipeline);
          pass.setBindGroup(0, bindGroup);
          pass.dispatchWorkgroups(Math.ceil(count / WORKGROUP_SIZE));
          pass.end();
          // The grid's copy goes with its last chunk, in the same command buffer.
          if (k === chunks - 1) enc.copyBufferToBuffer(valBuf, 0, back, 0, valueBytes);
          work += count * triCount;
          reached.set(s, first + count);
          if (work >= segmentWork && c < totalChunks - 1) closeSegment(true);
        }
      });
      closeSegment(false);
      // Queue writes land before any submission that follows them (the triangles above, the parameters here).
      device.queue.writeBuffer(paramBuf, 0, params);
      const finished: Promise<unknown>[] = [];
      // Set once the bake has failed (a readback refused, the device lost): a
      // submission finishing after that says nothing, so no progress line is
      // drawn after the error message.
      let over = false;
      for (const seg of segments) {
        device.queue.submit([seg.commands]);
        if (!tracked) continue;
        finished.push(
          device.queue.onSubmittedWorkDone().then(() => {
            if (over) return;
            for (const { plan, nodes } of seg.reached) plans[plan]!.onProgress?.(nodes / plans[plan]!.nodeCount);
          }),
        );
      }
      try {
        await Promise.all([...finished, ...staging.map((b) => b.mapAsync(GPUMapMode.READ))]);
      } catch (e) {
        over = true;
        throw e;
      }
      return plans.map((p, s) => {
        const out = new Float32Array(p.nodeCount);
        out.set(new Float32Array(staging[s]!.getMappedRange(), 0, p.nodeCount));
        staging[s]!.unmap();
        return out;
      });
    });
  } finally {
    for (const b of buffers) b.destroy();
  }
}
