/**
 * The one switch between the CPU and GPU twins (docs/STYLE.md point 4): tests, the
 * CLI, the bench and the app all get their query backend and SDF baker here,
 * and the CPU queries their thread count (`threads`: 1 is the single-thread
 * twin, more a worker pool over shared memory, parallelQuery.ts, with
 * bit-identical results). It sits above src/collision and src/gpu, which it chooses between.
 */
import type { TriMesh } from './geometry/mesh.ts';
import type { SdfGrid } from './sdf/grid.ts';
import { bakeSdfCpu, type BakeJob } from './sdf/bake.ts';
import { quote } from './util/echo.ts';
import { InputError } from './errors.ts';
import { CpuPenetrationBackend } from './collision/cpuQuery.ts';
import type { PoolOptions } from './collision/parallelQuery.ts';
import type { BackendKind, PenetrationBackend } from './collision/query.ts';

export interface Backend {
  kind: BackendKind;
  query: PenetrationBackend;
  /** Bakes a mesh's SDF, reporting its progress through `onProgress` (the GPU bake as its dispatch chunks finish). */
  bake(mesh: TriMesh, opts: { cells: number; padding: number; onProgress?: (fraction: number) => void }): Promise<SdfGrid>;
  /**
   * Bakes a batch of meshes' SDFs (a scene's shapes), each as `bake` would:
   * the CPU bakes them in turn, the GPU records them all into one queue
   * submission with one wait for the readbacks.
   */
  bakeAll(jobs: readonly BakeJob[]): Promise<SdfGrid[]>;
  /** Human-readable description ("cpu", "cpu, 4 threads", or the GPU adapter). */
  description: string;
  /** A GPU backend on a software adapter (SwiftShader, llvmpipe, WARP: WebGPU emulated on the CPU); false on the CPU. */
  software: boolean;
  /** Threads the queries run on (1 for the GPU backend, whose host side is one thread). */
  threads: number;
  /** Why fewer threads than asked for are used (no SharedArrayBuffer, no workers), or null. */
  threadNote: string | null;
  /** Resolves once every query worker has started (at once without a pool); benchmarks wait for it. */
  ready(): Promise<void>;
  destroy(): void;
}

export interface BackendOptions {
  /** Threads for the CPU queries, the main thread included (default 1). */
  threads?: number;
  /** Tuning of the worker pool (tests force it onto small batches). */
  pool?: Omit<PoolOptions, 'threads'>;
}

export function parseBackendKind(s: string | undefined, where = '--backend'): BackendKind {
  if (s === undefined || s === 'cpu') return 'cpu';
  if (s === 'gpu') return 'gpu';
  throw new InputError(`${where}: expected "cpu" or "gpu", got ${quote(s)}`, undefined, 'command line');
}

/** `--threads N`: an integer in [1, 256]. */
export function parseThreads(s: string, where = '--threads'): number {
  const n = Number(s);
  if (!/^\s*\d+\s*$/.test(s) || !Number.isInteger(n) || n < 1 || n > 256) {
    throw new InputError(`${where}: expected a thread count in [1, 256], got ${quote(s)}`, undefined, 'command line');
  }
  return n;
}

const cpuBake = async (m: TriMesh, o: { cells: number; padding: number }) => bakeSdfCpu(m, o);
const cpuBakeAll = async (jobs: readonly BakeJob[]): Promise<SdfGrid[]> => jobs.map(({ mesh, ...o }) => bakeSdfCpu(mesh, o));

function singleThread(threadNote: string | null): Backend {
  const query = new CpuPenetrationBackend();
  return { kind: 'cpu', query, bake: cpuBake, bakeAll: cpuBakeAll, description: 'cpu', software: false, threads: 1, threadNote, ready: async () => {}, destroy: () => query.destroy() };
}

export async function createBackend(kind: BackendKind, opts: BackendOptions = {}): Promise<Backend> {
  if (kind === 'cpu') {
    const asked = Math.max(1, Math.floor(opts.threads ?? 1));
    if (asked > 1) {
      const { ParallelPenetrationBackend, poolUnavailable } = await import('./collision/parallelQuery.ts');
      const why = poolUnavailable();
      if (!why) {
        const query = new ParallelPenetrationBackend({ ...opts.pool, threads: asked });
        return {
          kind,
          query,
          bake: cpuBake,
          bakeAll: cpuBakeAll,
          description: `cpu, ${asked} threads`,
          software: false,
          threads: asked,
          threadNote: null,
          ready: () => query.ready(),
          destroy: () => query.destroy(),
        };
      }
      return singleThread(`CPU queries run on one thread: ${why}`);
    }
    return singleThread(null);
  }
  const { sharedGpu } = await import('./gpu/device.ts');
  const { GpuPenetrationBackend } = await import('./gpu/penetrationPass.ts');
  const { bakeSdfGpu, bakeSdfsGpu } = await import('./gpu/sdfBakePass.ts');
  const gpu = await sharedGpu();
  const query = new GpuPenetrationBackend(gpu.device);
  return {
    kind,
    query,
    bake: (m, o) => bakeSdfGpu(gpu.device, m, o.onProgress ? { cells: o.cells, padding: o.padding, onProgress: o.onProgress } : { cells: o.cells, padding: o.padding }),
    // Each job's onProgress hears its grid's fraction as its chunks finish (sdfBakePass.ts).
    bakeAll: (jobs) => bakeSdfsGpu(gpu.device, jobs),
    description: `gpu (${gpu.adapterInfo})`,
    software: gpu.software,
    threads: 1,
    threadNote: null,
    ready: async () => {},
    destroy: () => query.destroy(),
  };
}
