/**
 * createWorld bakes every shape's field in one batch (SceneIo.bakeAll: one
 * queue submission on the GPU, tests/gpu/sdfBake.test.ts), after every shape
 * was loaded and checked, and each field is the one the shape gets built alone.
 */
import { describe, expect, test } from 'vitest';
import { CpuPenetrationBackend } from '../../src/collision/cpuQuery.ts';
import { InputError } from '../../src/errors.ts';
import { bakeSdfCpu, type BakeJob } from '../../src/sdf/bake.ts';
import type { SdfGrid } from '../../src/sdf/grid.ts';
import { createWorld } from '../../src/scene/build.ts';
import { buildShape } from '../../src/scene/shapeBuild.ts';
import { validateScene } from '../../src/scene/validate.ts';

function scene(boxShape: object = { type: 'box', size: [1, 0.5, 0.8], sdf: { cells: 12 } }) {
  return validateScene(
    {
      format: 'stackfield-scene/1',
      shapes: {
        floor: { type: 'plane', normal: [0, 1, 0] },
        box: boxShape,
        ring: { type: 'torus', majorRadius: 0.5, minorRadius: 0.15, segments: [16, 8], sdf: { cells: 16 } },
        ball: { type: 'sphere', radius: 0.3, sdf: { cells: 10 } },
        spare: { type: 'cylinder', radius: 0.2, height: 0.5 },
      },
      bodies: [
        { shape: 'floor', static: true },
        { shape: 'ring', position: [0, 1, 0] },
        { shape: 'box', position: [0, 3, 0] },
        { shape: 'ring', position: [0, 5, 0] },
        { shape: 'ball', position: [0, 7, 0] },
      ],
    },
    '<batch>',
  );
}

describe('the shapes of a scene are baked in one batch', () => {
  test('one bakeAll call for the two mesh shapes bodies use (not the plane, not the unused shape, not the sphere, whose field is its solid\'s), each grid as built alone', async () => {
    const calls: number[][] = [];
    const bakeAll = async (jobs: readonly BakeJob[]): Promise<SdfGrid[]> => {
      calls.push(jobs.map((j) => j.mesh.indices.length / 3));
      return jobs.map(({ mesh, ...o }) => bakeSdfCpu(mesh, o));
    };
    const s = scene();
    const fractions = new Map<string, number[]>();
    const progress = (p: { shape: string; fraction: number }) => fractions.set(p.shape, [...(fractions.get(p.shape) ?? []), p.fraction]);
    const world = await createWorld(s, new CpuPenetrationBackend(), { readText: async () => '', bakeAll, progress });
    // The ring (16 x 8 segments, 256 triangles) and the box (12).
    expect(calls).toEqual([[256, 12]]);
    // Every shape's progress still runs from 0 to 1 (the sphere's with nothing baked).
    for (const name of ['ring', 'box', 'ball']) {
      const f = fractions.get(name)!;
      expect([f[0], f.at(-1)], name).toEqual([0, 1]);
      expect(f.every((x, i) => i === 0 || x >= f[i - 1]!), name).toBe(true);
    }
    expect(fractions.get('ball')).toEqual([0, 1]);
    // The sphere's field: the distance to the solid at every node, to f32 rounding.
    const ball = world.shapes.find((x) => x.name === 'ball')!;
    const g = ball.sdf!;
    const [nx, ny] = g.dims;
    let worst = 0;
    for (let i = 0; i < g.values.length; i++) {
      const x = g.origin[0] + (i % nx) * g.cellSize, y = g.origin[1] + (Math.floor(i / nx) % ny) * g.cellSize, z = g.origin[2] + Math.floor(i / (nx * ny)) * g.cellSize;
      worst = Math.max(worst, Math.abs(g.values[i]! - (Math.sqrt(x * x + y * y + z * z) - 0.3)));
    }
    expect(worst).toBeLessThan(1e-7);
    expect(world.shapes.map((x) => x.name)).toEqual(['floor', 'ring', 'box', 'ball']);
    for (const shape of world.shapes.slice(1)) {
      const alone = await buildShape(shape.name, s.shapes[shape.name]!, s, { readText: async () => '' });
      expect(shape.sdf!.dims).toEqual(alone.sdf!.dims);
      expect(Array.from(shape.sdf!.values)).toEqual(Array.from(alone.sdf!.values));
      expect(shape.comOffset).toEqual(alone.comOffset);
      expect(shape.samples.points.length).toBe(alone.samples.points.length);
    }
  });

  test('a shape that fails its checks fails the build before anything is baked', async () => {
    let baked = 0;
    const bakeAll = async (jobs: readonly BakeJob[]): Promise<SdfGrid[]> => {
      baked += jobs.length;
      return jobs.map(({ mesh, ...o }) => bakeSdfCpu(mesh, o));
    };
    // The second shape's mesh file cannot be read: the ring before it must not have been baked.
    const io = { readText: async (p: string): Promise<string> => { throw new Error(`no such file: ${p}`); }, bakeAll };
    const err = await createWorld(scene({ type: 'mesh', path: 'missing.obj' }), new CpuPenetrationBackend(), io).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toMatch(/shapes\.box\.path.*missing\.obj.*no such file/);
    expect(baked).toBe(0);
  });
});
