/**
 * The GPU bake (shaders/sdf_bake.wgsl) against the CPU bake (src/sdf/bake.ts)
 * at every node: same grid, distance equal to within f32 rounding, same sign.
 * Shapes cover flat faces and sharp edges (box), a smooth saddle surface
 * (torus) and concave features (cup, L-block), plus a long box whose grid is
 * far from cubic, and the bunny, whose 58 tiles the kernel culls (a skipped
 * triangle must never have been the closest). A bake with a progress
 * callback hears its fraction as its chunks finish, from a few submissions
 * instead of one, the grid unchanged. The table the kernel reads
 * (tiledTriangleTable) holds every triangle once, in tiles whose spheres
 * hold them.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TriMesh } from '../../src/geometry/mesh.ts';
import { boxMesh, cupProfile, extrudeMesh, lBlockPolygon, revolveMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { BAKE_TILE, bakeSdfGpu, bakeSdfsGpu, TILE_BOUND_VEC4S, tiledTriangleTable } from '../../src/gpu/sdfBakePass.ts';
import { parseObj } from '../../src/geometry/obj.ts';
import { TRIANGLE_VEC4S } from '../../src/gpu/layout.ts';
import { shaderSource } from '../../src/gpu/shaders.ts';
import { packTriangleTable } from '../../src/sdf/pseudonormals.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';
import type { SdfGrid } from '../../src/sdf/grid.ts';

/** Largest |gpu - cpu| over the nodes, in cells, and how many nodes differ in sign (beyond rounding at 0). */
function compare(gpu: SdfGrid, cpu: SdfGrid): { maxDiffCells: number; signFlips: number; worst: number } {
  expect(gpu.dims).toEqual(cpu.dims);
  expect(gpu.origin).toEqual(cpu.origin);
  expect(gpu.cellSize).toBe(cpu.cellSize);
  expect(gpu.values.length).toBe(cpu.values.length);
  let maxDiff = 0;
  let worst = -1;
  let signFlips = 0;
  const tol = 1e-4 * cpu.cellSize;
  for (let i = 0; i < cpu.values.length; i++) {
    const g = gpu.values[i]!;
    const c = cpu.values[i]!;
    const d = Math.abs(g - c);
    if (!(d <= maxDiff)) {
      maxDiff = d;
      worst = i;
    }
    if (Math.sign(g) !== Math.sign(c) && Math.abs(c) > tol) signFlips++;
  }
  return { maxDiffCells: maxDiff / cpu.cellSize, signFlips, worst };
}

const bunny = (): TriMesh => parseObj(readFileSync(new URL('../../examples/meshes/bunny.obj', import.meta.url), 'utf8'), 'bunny.obj');

const SHAPES: [string, () => TriMesh, number[]][] = [
  ['box', () => boxMesh([1, 0.6, 0.8]), [12, 32]],
  ['torus', () => torusMesh(1, 0.35, 20, 8), [10, 24]],
  ['cup (nonconvex revolve)', () => revolveMesh(cupProfile(0.5, 0.8, 0.1), 16), [10, 24]],
  ['L-block (nonconvex extrude)', () => extrudeMesh(lBlockPolygon(1, 0.8, 0.3), 0.4), [10, 24]],
  ['long box (non-cubic grid)', () => boxMesh([4, 0.5, 0.3]), [16, 48]],
  ['bunny (3 674 triangles in 58 tiles)', bunny, [20]],
];

describe('GPU SDF bake', () => {
  let gpu: GpuContext;
  beforeAll(async () => {
    gpu = await requireGpuFromEnv();
  });

  for (const [name, make, resolutions] of SHAPES) {
    it(`${name}: GPU and CPU bakes agree within 1e-4 cell at every node, at ${resolutions.join(' and ')} cells`, async () => {
      const mesh = make();
      for (const cells of resolutions) {
        const cpu = bakeSdfCpu(mesh, { cells, padding: 2 });
        const g = await bakeSdfGpu(gpu.device, mesh, { cells, padding: 2 });
        const r = compare(g, cpu);
        console.log(`bake parity ${name} @${cells} (${cpu.dims.join('x')}): max |gpu - cpu| = ${r.maxDiffCells.toExponential(2)} cells, sign flips ${r.signFlips}`);
        expect(r.signFlips).toBe(0);
        expect(r.maxDiffCells, `worst node ${r.worst}: gpu ${g.values[r.worst]} cpu ${cpu.values[r.worst]}`).toBeLessThanOrEqual(1e-4);
      }
    });
  }

  it('a bake split into many dispatches equals the bake in one', async () => {
    const mesh = torusMesh(1, 0.35, 12, 6);
    const one = await bakeSdfGpu(gpu.device, mesh, { cells: 16 });
    // 144 triangles and a budget of 144 * 64 * 5 node-triangle tests: 320 nodes per dispatch.
    const split = await bakeSdfGpu(gpu.device, mesh, { cells: 16, maxPairsPerDispatch: 144 * 64 * 5 });
    expect(one.values.length).toBeGreaterThan(320 * 10);
    expect(Array.from(split.values)).toEqual(Array.from(one.values));
  });

  it('a batch of shapes is baked in one submission, each grid equal to its own bake bit for bit', async () => {
    const jobs = [
      { mesh: torusMesh(1, 0.35, 12, 6), cells: 16 },
      { mesh: boxMesh([4, 0.5, 0.3]), cells: 20, padding: 3 },
      { mesh: extrudeMesh(lBlockPolygon(1, 0.8, 0.3), 0.4), cells: 12 },
    ];
    const alone: SdfGrid[] = [];
    for (const j of jobs) alone.push(await bakeSdfGpu(gpu.device, j.mesh, j));
    const queue = gpu.device.queue;
    const submit = queue.submit.bind(queue);
    let submits = 0;
    queue.submit = (buffers) => {
      submits++;
      submit(buffers);
    };
    let batch;
    try {
      batch = await bakeSdfsGpu(gpu.device, jobs);
    } finally {
      queue.submit = submit;
    }
    expect(submits).toBe(1);
    expect(batch).toHaveLength(3);
    batch.forEach((g, i) => {
      expect(g.dims).toEqual(alone[i]!.dims);
      expect(g.origin).toEqual(alone[i]!.origin);
      expect(g.cellSize).toBe(alone[i]!.cellSize);
      expect(Array.from(g.values)).toEqual(Array.from(alone[i]!.values));
    });
  });

  /** Counts queue submissions while `run` runs. */
  async function countingSubmits<T>(run: () => Promise<T>): Promise<{ result: T; submits: number }> {
    const queue = gpu.device.queue;
    const submit = queue.submit.bind(queue);
    let submits = 0;
    queue.submit = (buffers) => {
      submits++;
      submit(buffers);
    };
    try {
      return { result: await run(), submits };
    } finally {
      queue.submit = submit;
    }
  }

  /** Fractions that rise strictly, each in (0, 1], the last 1. */
  function expectRising(fractions: number[]): void {
    expect(fractions.at(-1)).toBe(1);
    fractions.forEach((f, i) => {
      expect(f).toBeGreaterThan(i === 0 ? 0 : fractions[i - 1]!);
      expect(f).toBeLessThanOrEqual(1);
    });
  }

  it('a bake with a progress callback hears its fraction rise as its chunks finish, in at most 50 submissions, its grid the same bit for bit', async () => {
    const mesh = torusMesh(1, 0.35, 12, 6);
    // 144 triangles and a budget of 144 * 64 node-triangle tests: 64 nodes per dispatch, some 60 dispatches.
    const opts = { cells: 16, maxPairsPerDispatch: 144 * 64 };
    const { result: plain, submits: plainSubmits } = await countingSubmits(() => bakeSdfGpu(gpu.device, mesh, opts));
    expect(plainSubmits).toBe(1);
    const fractions: number[] = [];
    const { result: tracked, submits } = await countingSubmits(() => bakeSdfGpu(gpu.device, mesh, { ...opts, onProgress: (f) => fractions.push(f) }));
    expect(plain.values.length).toBeGreaterThan(64 * 50);
    // Not one report at the end: one per submission, each when the queue has run it.
    expect(fractions.length).toBeGreaterThan(10);
    expect(fractions.length).toBe(submits);
    expect(submits).toBeLessThanOrEqual(50);
    expectRising(fractions);
    expect(Array.from(tracked.values)).toEqual(Array.from(plain.values));
  });

  it('a batch with progress callbacks tells each shape its own fraction; the grids are those of the batch without them', async () => {
    const jobs = [
      { mesh: torusMesh(1, 0.35, 12, 6), cells: 16 },
      { mesh: boxMesh([4, 0.5, 0.3]), cells: 20, padding: 3 },
      { mesh: extrudeMesh(lBlockPolygon(1, 0.8, 0.3), 0.4), cells: 12 },
    ];
    const budget = 144 * 64 * 5;
    const plain = await bakeSdfsGpu(gpu.device, jobs, budget);
    const heard: number[][] = jobs.map(() => []);
    // The last job has no callback: it is baked all the same.
    const tracked = await bakeSdfsGpu(
      gpu.device,
      jobs.map((j, i) => (i < 2 ? { ...j, onProgress: (f: number) => heard[i]!.push(f) } : j)),
      budget,
    );
    // The torus spans many submissions (its fraction rises through them), the long box at least one.
    expect(heard[0]!.length).toBeGreaterThan(3);
    expect(heard[1]!.length).toBeGreaterThan(0);
    expect(heard[2]).toEqual([]);
    for (const h of heard.slice(0, 2)) expectRising(h);
    tracked.forEach((g, i) => expect(Array.from(g.values)).toEqual(Array.from(plain[i]!.values)));
  });

  it('a cube whose nodes fall exactly on its faces, edges, diagonals and centre planes matches the analytic SDF', async () => {
    // Cells of 0.1 on a unit cube: nodes land on the faces, on the face
    // diagonals that split each face into two triangles, on edges and corners,
    // and on the interior planes where several faces are equally near: every
    // kind of tie between triangles occurs, and each must be signed right.
    const mesh = boxMesh([1, 1, 1]);
    const g = await bakeSdfGpu(gpu.device, mesh, { cells: 10, padding: 2 });
    expect(g.dims).toEqual([15, 15, 15]);
    let worst = 0;
    for (let k = 0; k < 15; k++) {
      for (let j = 0; j < 15; j++) {
        for (let i = 0; i < 15; i++) {
          const q = [i, j, k].map((n) => Math.abs(-0.7 + 0.1 * n) - 0.5) as [number, number, number];
          const outside = Math.hypot(Math.max(q[0], 0), Math.max(q[1], 0), Math.max(q[2], 0));
          const exact = outside + Math.min(Math.max(q[0], q[1], q[2]), 0);
          worst = Math.max(worst, Math.abs(g.values[i + 15 * (j + 15 * k)]! - exact));
        }
      }
    }
    expect(worst).toBeLessThan(1e-6);
  });
});

describe('the triangle table the bake kernel reads', () => {
  it('holds every triangle once, Morton-ordered into tiles whose spheres hold their triangles and a corner of the tile', () => {
    const mesh = bunny();
    const table = packTriangleTable(mesh);
    const row = TRIANGLE_VEC4S * 4;
    const n = table.length / row;
    const tiled = tiledTriangleTable(table, BAKE_TILE);
    const tiles = Math.ceil(n / BAKE_TILE);
    // The kernel's constants are the host's.
    const src = shaderSource('sdf_bake.wgsl', false);
    expect(/const\s+BAKE_TILE\s*:\s*u32\s*=\s*(\d+)u;/.exec(src)?.[1]).toBe(String(BAKE_TILE));
    expect(/const\s+TILE_BOUND_VEC4S\s*:\s*u32\s*=\s*(\d+)u;/.exec(src)?.[1]).toBe(String(TILE_BOUND_VEC4S));
    expect(tiled.length).toBe(n * row + tiles * TILE_BOUND_VEC4S * 4 + 4 * n);
    // The same rows, each once.
    const key = (a: Float32Array, t: number) => Array.from(a.subarray(t * row, (t + 1) * row)).join(',');
    const before = new Map<string, number>();
    for (let t = 0; t < n; t++) before.set(key(table, t), (before.get(key(table, t)) ?? 0) + 1);
    for (let t = 0; t < n; t++) {
      const k = key(tiled, t);
      expect(before.get(k), `row ${t}`).toBeGreaterThan(0);
      before.set(k, before.get(k)! - 1);
    }
    const inside = (o: number, x: number, y: number, z: number) => Math.hypot(x - tiled[o]!, y - tiled[o + 1]!, z - tiled[o + 2]!) <= tiled[o + 3]!;
    const ext = meshExtent(mesh);
    let radii = 0;
    for (let k = 0; k < tiles; k++) {
      const o = n * row + 4 * TILE_BOUND_VEC4S * k;
      radii += tiled[o + 3]!;
      const t0 = k * BAKE_TILE;
      // The tile's surface point is a corner of its first triangle.
      expect([tiled[o + 4], tiled[o + 5], tiled[o + 6]]).toEqual([tiled[t0 * row], tiled[t0 * row + 1], tiled[t0 * row + 2]]);
      for (let t = t0; t < Math.min(n, t0 + BAKE_TILE); t++) {
        const s = n * row + 4 * TILE_BOUND_VEC4S * tiles + 4 * t;
        for (let v = 0; v < 3; v++) {
          const x = tiled[t * row + 4 * v]!, y = tiled[t * row + 4 * v + 1]!, z = tiled[t * row + 4 * v + 2]!;
          expect(inside(o, x, y, z), `tile ${k}, triangle ${t}`).toBe(true);
          expect(inside(s, x, y, z), `triangle ${t}`).toBe(true);
        }
      }
    }
    // Compact tiles (what the culling lives on): on average a third of the mesh's size or less
    // (0.27 for the bunny's 58; in the mesh's own order they span it, about 0.9).
    expect(radii / tiles / ext).toBeLessThan(0.35);
  });
});

/** Half the diagonal of a mesh's bounding box. */
function meshExtent(mesh: TriMesh): number {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < mesh.positions.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3]!, mesh.positions[i]!);
    hi[i % 3] = Math.max(hi[i % 3]!, mesh.positions[i]!);
  }
  return 0.5 * Math.hypot(hi[0]! - lo[0]!, hi[1]! - lo[1]!, hi[2]! - lo[2]!);
}
