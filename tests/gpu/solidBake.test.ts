/**
 * The SDF of a self-intersecting mesh (src/sdf/solid.ts) through the GPU twin
 * of the bake: distances to the boundary soup from the GPU, signs from the
 * winding number, equal to the all-CPU field at every node.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { translatedMesh, type TriMesh } from '../../src/geometry/mesh.ts';
import { boxMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { bakeSdfGpu } from '../../src/gpu/sdfBakePass.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';
import { analyseSolid, bakeSolid } from '../../src/sdf/solid.ts';

function join(a: TriMesh, b: TriMesh): TriMesh {
  const n = a.positions.length / 3;
  return {
    positions: Float64Array.from([...a.positions, ...b.positions]),
    indices: Uint32Array.from([...a.indices, ...Array.from(b.indices, (v) => v + n)]),
  };
}

describe('GPU bake of a self-intersecting mesh', () => {
  let gpu: GpuContext;
  beforeAll(async () => {
    gpu = await requireGpuFromEnv();
  });

  it('two crossing tori: GPU distances with winding signs equal the CPU field within 1e-4 cell, same sign everywhere', async () => {
    const a = torusMesh(1, 0.3, 16, 8);
    const m = join(a, translatedMesh(a, [0.8, 0.1, 0.2]));
    const s = analyseSolid(m);
    expect(s.simple).toBe(false);
    const opts = { cells: 16, padding: 2 };
    const cpu = await bakeSolid(m, s.boundary, async (x) => bakeSdfCpu(x, opts));
    const g = await bakeSolid(m, s.boundary, (x) => bakeSdfGpu(gpu.device, x, opts));
    expect(g.dims).toEqual(cpu.dims);
    let flips = 0, worst = 0, inside = 0;
    for (let i = 0; i < cpu.values.length; i++) {
      const c = cpu.values[i]!, v = g.values[i]!;
      worst = Math.max(worst, Math.abs(c - v));
      if (Math.sign(c) !== Math.sign(v) && Math.abs(c) > 1e-4 * cpu.cellSize) flips++;
      if (c < 0) inside++;
    }
    expect(flips).toBe(0);
    expect(worst / cpu.cellSize).toBeLessThan(1e-4);
    expect(inside).toBeGreaterThan(100);
  });

  it('leaves the field of an ordinary mesh to the bake alone (boundary null)', async () => {
    const box = boxMesh([1, 0.5, 0.7]);
    const g = await bakeSolid(box, null, (x) => bakeSdfGpu(gpu.device, x, { cells: 16 }));
    const direct = await bakeSdfGpu(gpu.device, box, { cells: 16 });
    expect(Array.from(g.values)).toEqual(Array.from(direct.values));
  });
});
