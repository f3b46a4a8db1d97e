/**
 * Sample sets (src/collision/query.ts, SAMPLE_SET): point sets replaced every
 * step, queried against shapes' fields like any shape's samples. The GPU twin
 * must return what the CPU twin returns (the contract of docs/DESIGN.md 3),
 * with sets that grow, shrink, outlive setShapes and sit far from the origin.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CpuPenetrationBackend } from '../../src/collision/cpuQuery.ts';
import { QueryBatchBuilder, sampleSetRef, type PenetrationBackend, type QueryResult, type QueryShape } from '../../src/collision/query.ts';
import { buildSamples } from '../../src/geometry/samples.ts';
import { boxMesh, torusMesh } from '../../src/geometry/shapes.ts';
import { requireGpuFromEnv, type GpuContext } from '../../src/gpu/device.ts';
import { GpuPenetrationBackend } from '../../src/gpu/penetrationPass.ts';
import { bakeSdfCpu } from '../../src/sdf/bake.ts';
import { sampleSdf } from '../../src/sdf/grid.ts';
import { lcg } from '../../src/scene/sceneKit.ts';

/** count points in a cube of half size `half` around `centre`, vec4-packed. */
function cloud(r: () => number, count: number, centre: number[], half: number): Float32Array {
  const p = new Float32Array(4 * count);
  for (let i = 0; i < count; i++) for (let k = 0; k < 3; k++) p[4 * i + k] = centre[k]! + (2 * r() - 1) * half;
  return p;
}

function records(res: QueryResult, tasks: number): { sample: number; phi: number; n: number[] }[][] {
  const out = [];
  for (let t = 0; t < tasks; t++) {
    const rec = [];
    for (let i = res.taskStart[t]!; i < res.taskStart[t + 1]!; i++) {
      rec.push({ sample: res.sample[i]!, phi: res.phi[i]!, n: [res.normal[3 * i]!, res.normal[3 * i + 1]!, res.normal[3 * i + 2]!] });
    }
    out.push(rec);
  }
  return out;
}

describe('sample sets', () => {
  let shapes: QueryShape[];
  beforeAll(() => {
    shapes = [
      { samples: buildSamples(boxMesh([1, 0.4, 0.8]), 2), sdf: bakeSdfCpu(boxMesh([1, 0.4, 0.8]), { cells: 20 }) },
      { samples: buildSamples(torusMesh(0.6, 0.2, 16, 8), 2), sdf: bakeSdfCpu(torusMesh(0.6, 0.2, 16, 8), { cells: 24 }) },
    ];
  });

  /**
   * Points of world-frame sets posed into each shape's frame (the task pose is
   * the inverse of the shape's world pose): the box at (10, 0, 0) turned about
   * z, the torus at (10, 1, 0).
   */
  function batch(sets: number[], margin: number): QueryBatchBuilder {
    const b = new QueryBatchBuilder();
    const c = Math.cos(0.15), s = Math.sin(0.15);
    // Box pose: rotation 0.3 rad about z at (10, 0, 0); inverse: q* and -R^T t.
    const tx = -(c * c - s * s) * 10, ty = 2 * s * c * 10;
    for (const set of sets) {
      b.push(sampleSetRef(set), 0, 0, 0, -s, c, tx, ty, 0, margin);
      b.push(sampleSetRef(set), 1, 0, 0, 0, 1, -10, -1, 0, margin);
    }
    return b;
  }

  it('report exactly the points below the margin, with the field the shape has there (CPU)', async () => {
    const cpu = new CpuPenetrationBackend();
    cpu.setShapes(shapes);
    const r = lcg(3);
    const pts = cloud(r, 3000, [10, 0.5, 0], 1);
    cpu.setSampleSet(0, pts, 3000);
    const margin = 0.05;
    const b = batch([0], margin);
    const got = records(await cpu.query(b), b.count);
    // Brute force: every point, posed, against the box's field.
    const c = Math.cos(0.15), s = Math.sin(0.15);
    const expected: number[] = [];
    const n = new Float64Array(3);
    for (let i = 0; i < 3000; i++) {
      const x = Math.fround(pts[4 * i]!) - 10, y = Math.fround(pts[4 * i + 1]!), z = Math.fround(pts[4 * i + 2]!);
      // R^T (p - t) for a rotation by 0.3 rad about z.
      const cc = c * c - s * s, ss = 2 * s * c;
      const px = cc * x + ss * y, py = -ss * x + cc * y;
      const g = shapes[0]!.sdf;
      const inBox = [px, py, z].every((v, k) => v >= g.origin[k]! && v <= g.origin[k]! + g.cellSize * (g.dims[k]! - 1));
      if (inBox && sampleSdf(g, px, py, z, n) < margin) expected.push(i);
    }
    const found = got[0]!.map((rec) => rec.sample);
    // Only points within rounding of the margin may differ (f32 poses).
    const diff = [...expected.filter((i) => !found.includes(i)), ...found.filter((i) => !expected.includes(i))];
    for (const i of diff) {
      const rec = got[0]!.find((x) => x.sample === i);
      expect(rec === undefined || Math.abs(rec.phi - margin) < 1e-4).toBe(true);
    }
    expect(diff.length).toBeLessThan(3);
    expect(found.length).toBeGreaterThan(150);
  });

  it('a task naming a set that was never set, or a set as B, is an error naming it', async () => {
    const cpu = new CpuPenetrationBackend();
    cpu.setShapes(shapes);
    const b = new QueryBatchBuilder();
    b.push(sampleSetRef(4), 0, 0, 0, 0, 1, 0, 0, 0);
    await expect(cpu.query(b)).rejects.toThrow(/sample set 4, which was never set/);
    cpu.setSampleSet(0, new Float32Array(4), 1);
    const c = new QueryBatchBuilder();
    c.push(0, sampleSetRef(0), 0, 0, 0, 1, 0, 0, 0);
    await expect(cpu.query(c)).rejects.toThrow(/a sample set cannot be B/);
    expect(() => cpu.setSampleSet(1, new Float32Array(4), 2)).toThrow(/2 points need 8 floats/);
  });

  describe('GPU twin', () => {
    let gpu: GpuContext;
    beforeAll(async () => {
      gpu = await requireGpuFromEnv();
    });

    async function parity(backends: [PenetrationBackend, PenetrationBackend], sets: number[], margin: number): Promise<number> {
      const b = batch(sets, margin);
      const g = records(await backends[0].query(b), b.count);
      const c = records(await backends[1].query(b), b.count);
      let compared = 0;
      for (let t = 0; t < b.count; t++) {
        const cm = new Map(c[t]!.map((x) => [x.sample, x]));
        const gm = new Map(g[t]!.map((x) => [x.sample, x]));
        for (const [k, x] of gm) {
          const y = cm.get(k);
          if (!y) {
            expect(Math.abs(x.phi - margin), `task ${t} sample ${k}: GPU only`).toBeLessThan(1e-4);
            continue;
          }
          expect(Math.abs(x.phi - y.phi)).toBeLessThan(1e-5);
          for (let i = 0; i < 3; i++) expect(Math.abs(x.n[i]! - y.n[i]!)).toBeLessThan(1e-3);
          compared++;
        }
        for (const [k, y] of cm) if (!gm.has(k)) expect(Math.abs(y.phi - margin), `task ${t} sample ${k}: CPU only`).toBeLessThan(1e-4);
      }
      return compared;
    }

    it('gives the CPU twin\'s records for sets that change size every call and survive setShapes', async () => {
      const g = new GpuPenetrationBackend(gpu.device, { initialCapacity: 64 });
      const c = new CpuPenetrationBackend();
      const both: [PenetrationBackend, PenetrationBackend] = [g, c];
      try {
        const r = lcg(9);
        for (const be of both) be.setShapes(shapes);
        let compared = 0;
        // Three calls: sets grow (the sample buffer is recreated), then one shrinks to nothing.
        for (const [n0, n1] of [[500, 200], [4000, 2500], [0, 3000]] as const) {
          const p0 = cloud(r, n0, [10, 0.3, 0], 1.1), p1 = cloud(r, n1, [10, 1, 0], 0.9);
          for (const be of both) {
            be.setSampleSet(0, p0, n0);
            be.setSampleSet(1, p1, n1);
          }
          compared += await parity(both, [0, 1], 0.04);
        }
        // New shapes: the sets are kept (reversed shape order; the tasks follow).
        for (const be of both) be.setShapes([shapes[1]!, shapes[0]!]);
        compared += await parity(both, [1], 0);
        expect(compared).toBeGreaterThan(1000);
      } finally {
        g.destroy();
      }
    });
  });
});
