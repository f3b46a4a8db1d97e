/**
 * The one switch between the CPU and GPU twins (docs/STYLE.md point 4): tests, the
 * CLI, the bench and the app all get their query backend and SDF baker here.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import type { SdfGrid } from '../sdf/grid.ts';
import { bakeSdfCpu } from '../sdf/bake.ts';
import { InputError } from '../errors.ts';
import { CpuPenetrationBackend } from './cpuQuery.ts';
import type { BackendKind, PenetrationBackend } from './query.ts';

export interface Backend {
  kind: BackendKind;
  query: PenetrationBackend;
  /** Bakes a mesh's SDF; the CPU bake reports its progress through `onProgress` (the GPU bake does not). */
  bake(mesh: TriMesh, opts: { cells: number; padding: number; onProgress?: (fraction: number) => void }): Promise<SdfGrid>;
  /** Human-readable description ("cpu", or the GPU adapter). */
  description: string;
  destroy(): void;
}

export function parseBackendKind(s: string | undefined, where = '--backend'): BackendKind {
  if (s === undefined || s === 'cpu') return 'cpu';
  if (s === 'gpu') return 'gpu';
  throw new InputError(`expected "cpu" or "gpu", got "${s}"`, undefined, where);
}

export async function createBackend(kind: BackendKind): Promise<Backend> {
  if (kind === 'cpu') {
    const query = new CpuPenetrationBackend();
    return {
      kind,
      query,
      bake: async (m, o) => bakeSdfCpu(m, o),
      description: 'cpu',
      destroy: () => query.destroy(),
    };
  }
  const { sharedGpu } = await import('../gpu/device.ts');
  const { GpuPenetrationBackend } = await import('../gpu/penetrationPass.ts');
  const { bakeSdfGpu } = await import('../gpu/sdfBakePass.ts');
  const gpu = await sharedGpu();
  const query = new GpuPenetrationBackend(gpu.device);
  return {
    kind,
    query,
    bake: (m, o) => bakeSdfGpu(gpu.device, m, { cells: o.cells, padding: o.padding }),
    description: `gpu (${gpu.adapterInfo})`,
    destroy: () => query.destroy(),
  };
}
