/**
 * The worker pool (src/collision/parallelQuery.ts) against the single-thread
 * CPU twin: the same records, bit for bit (sample indices, phi and normal
 * floats, task ranges, evaluated-sample counts), on 2 and 3 threads, with
 * the main thread claiming chunks or only waiting (then every chunk runs on
 * a worker), for large batches, small ones, one huge task cut into pieces,
 * and tasks without records; after a second setShapes (a scene switch); and
 * a world stepped on the pool against one stepped on one thread; sample sets
 * (points replaced every call, far from their frame's origin) that grow past
 * the shared buffers and outlive setShapes, and a soft-body world stepped on
 * both. destroy() must stop every worker thread.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, parseThreads } from '../../src/backends.ts';
import { CpuPenetrationBackend } from '../../src/collision/cpuQuery.ts';
import { ParallelPenetrationBackend, type PoolOptions } from '../../src/collision/parallelQuery.ts';
import { QueryBatchBuilder, sampleSetRef, type QueryResult, type QueryShape } from '../../src/collision/query.ts';
import { boxMesh, sphereMesh } from '../../src/geometry/shapes.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { createWorld } from '../../src/scene/build.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { InputError } from '../../src/errors.ts';
import { BOX, queryShape, randomBatch as fixtureBatch, randomQuat, rng, testShapes, TORUS } from './queryFixtures.ts';

/** A copy of a result (the backends reuse their arrays), compared bit for bit. */
interface Snapshot {
  taskStart: Uint32Array;
  sample: Uint32Array;
  phi: Uint32Array;
  normal: Uint32Array;
  evaluated: number;
}

function snapshot(res: QueryResult, tasks: number, evaluated: number): Snapshot {
  const n = res.count;
  return {
    taskStart: res.taskStart.slice(0, tasks + 1),
    sample: res.sample.slice(0, n),
    // The float bits, so -0 and 0 (or two NaNs) would differ.
    phi: new Uint32Array(res.phi.slice(0, n).buffer),
    normal: new Uint32Array(res.normal.slice(0, 3 * n).buffer),
    evaluated,
  };
}

function firstDifference(a: Snapshot, b: Snapshot): string | null {
  for (const key of ['taskStart', 'sample', 'phi', 'normal'] as const) {
    const x = a[key], y = b[key];
    if (x.length !== y.length) return `${key}: ${x.length} entries against ${y.length}`;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `${key}[${i}]: ${x[i]} against ${y[i]}`;
  }
  if (a.evaluated !== b.evaluated) return `evaluated: ${a.evaluated} against ${b.evaluated}`;
  return null;
}

function expectIdentical(pool: Snapshot, single: Snapshot, what: string): void {
  const d = firstDifference(pool, single);
  if (d) expect.fail(`${what}: pool and single thread differ at ${d}`);
}

describe('CPU queries on a worker pool', () => {
  /** A fine sphere, added to the fixture's shapes: thousands of samples in one task. */
  const BALL = 5;
  let shapes: QueryShape[];
  const single = new CpuPenetrationBackend();
  const pools: ParallelPenetrationBackend[] = [];

  async function pool(opts: PoolOptions): Promise<ParallelPenetrationBackend> {
    const p = new ParallelPenetrationBackend(opts);
    pools.push(p);
    p.setShapes(shapes);
    await p.ready();
    return p;
  }

  const randomBatch = (seed: number, perPair: number, marginCells?: number) => fixtureBatch(shapes, seed, perPair, marginCells);

  async function compare(p: ParallelPenetrationBackend, batch: QueryBatchBuilder, what: string): Promise<Snapshot> {
    const one = snapshot(single.querySync(batch), batch.count, single.evaluated);
    const many = snapshot(await p.query(batch), batch.count, p.evaluated);
    expectIdentical(many, one, what);
    return one;
  }

  beforeAll(() => {
    shapes = [...testShapes(), queryShape(sphereMesh(0.5, 48, 24), 24)];
    single.setShapes(shapes);
  });

  afterAll(async () => {
    for (const p of pools) p.destroy();
    await Promise.all(pools.map((p) => p.whenTerminated()));
  });

  it('large batches: the same records bit for bit on 2 and 3 threads, with and without the main thread', async () => {
    const batch = randomBatch(7, 40);
    for (const threads of [2, 3]) {
      for (const mainClaims of [true, false]) {
        const p = await pool({ threads, mainClaims, minSamples: 0 });
        const before = p.pooledCalls;
        const ref = await compare(p, batch, `${threads} threads, main claims ${mainClaims}`);
        expect(p.pooledCalls).toBe(before + 1);
        expect(p.lastChunks).toBeGreaterThan(threads);
        if (!mainClaims) expect(p.lastMainChunks).toBe(0);
        // The batch is a real test: thousands of records, and tasks without any.
        expect(ref.sample.length).toBeGreaterThan(2000);
        let empty = 0, full = 0;
        for (let t = 0; t < batch.count; t++) (ref.taskStart[t + 1] === ref.taskStart[t] ? empty++ : full++);
        expect(empty).toBeGreaterThan(batch.count / 8);
        expect(full).toBeGreaterThan(batch.count / 4);
      }
    }
  });

  it('margins past the grid padding (samples beyond the grid box, through the extended field) alike', async () => {
    const p = await pool({ threads: 3, mainClaims: false, minSamples: 0 });
    const batch = randomBatch(17, 24, 2.5);
    const ref = await compare(p, batch, 'margins of up to 5 cells');
    expect(ref.sample.length).toBeGreaterThan(2000);
  });

  it('small batches, one task, one huge task cut into pieces, and a batch without records', async () => {
    const p = await pool({ threads: 3, mainClaims: false, minSamples: 0, minChunkSamples: 64 });
    const big = randomBatch(11, 20);
    for (const count of [1, 2, 5, 17]) {
      const b = new QueryBatchBuilder();
      for (let t = 0; t < count; t++) {
        const o = t * 8;
        b.push(big.shapeA[t]!, big.shapeB[t]!, big.poses[o]!, big.poses[o + 1]!, big.poses[o + 2]!, big.poses[o + 3]!, big.poses[o + 4]!, big.poses[o + 5]!, big.poses[o + 6]!, big.margin[t]!);
      }
      await compare(p, b, `${count} tasks`);
    }
    // The ball (thousands of samples) inside the torus' field: one task, many pieces.
    const huge = new QueryBatchBuilder();
    huge.push(BALL, TORUS, 0, 0, 0, 1, 0.8, 0, 0, 0.05);
    const ref = await compare(p, huge, 'one huge task');
    expect(p.lastChunks).toBeGreaterThan(8);
    expect(ref.sample.length).toBeGreaterThan(100);
    // Every task misses: no records at all.
    const none = new QueryBatchBuilder();
    for (let t = 0; t < 6; t++) none.push(TORUS, BOX, 0, 0, 0, 1, 10 + t, 0, 0, 0.01);
    const empty = await compare(p, none, 'no records');
    expect(empty.sample.length).toBe(0);
    expect(Array.from(empty.taskStart)).toEqual([0, 0, 0, 0, 0, 0, 0]);
    const zero = new QueryBatchBuilder();
    const res = await p.query(zero);
    expect(res.count).toBe(0);
    expect(res.taskStart[0]).toBe(0);
  });

  it('below the break-even a batch runs on the main thread alone, with the same records', async () => {
    const p = await pool({ threads: 2 });
    const b = new QueryBatchBuilder();
    b.push(TORUS, BOX, 0, 0, 0, 1, 0.5, 0, 0, 0.02);
    const before = p.pooledCalls;
    await compare(p, b, 'small batch');
    expect(p.pooledCalls).toBe(before);
    await compare(p, randomBatch(3, 40), 'large batch');
    expect(p.pooledCalls).toBe(before + 1);
  });

  it('survives a second setShapes (a scene switch) and a batch larger than its buffers', async () => {
    const p = await pool({ threads: 3, mainClaims: false, minSamples: 0 });
    await compare(p, randomBatch(5, 4), 'before the switch');
    // Other shapes, in another order: the workers must drop the old ones.
    const other = [shapes[TORUS]!, shapes[BALL]!, queryShape(boxMesh([0.7, 0.7, 0.3]), 16)];
    const oneOther = new CpuPenetrationBackend();
    oneOther.setShapes(other);
    p.setShapes(other);
    await p.ready();
    const r = rng(99);
    const b = new QueryBatchBuilder();
    for (let t = 0; t < 300; t++) {
      const q = randomQuat(r);
      b.push(t % 3, (t + 1) % 3, q[0], q[1], q[2], q[3], r() - 0.5, r() - 0.5, r() - 0.5, 0.02);
    }
    const one = snapshot(oneOther.querySync(b), b.count, oneOther.evaluated);
    const many = snapshot(await p.query(b), b.count, p.evaluated);
    expectIdentical(many, one, 'after the switch');
    expect(one.sample.length).toBeGreaterThan(1000);
    expect(p.lastMainChunks).toBe(0);
    // A shape index past the new set is an error, as on one thread.
    const bad = new QueryBatchBuilder();
    bad.push(0, 5, 0, 0, 0, 1, 0, 0, 0);
    await expect(p.query(bad)).rejects.toThrow('query task 0 names shape 5, but only 3 shapes are loaded');
  });

  /**
   * `count` points in a cube of half size 0.9 about `centre` (the set's frame),
   * vec4-packed: the set is far from its frame's origin, as a soft body's
   * particles are in world coordinates.
   */
  function cloud(r: () => number, count: number, centre: readonly number[]): Float32Array {
    const p = new Float32Array(4 * count);
    for (let i = 0; i < count; i++) for (let k = 0; k < 3; k++) p[4 * i + k] = centre[k]! + 1.8 * (r() - 0.5);
    return p;
  }

  /** Tasks of sets `sets` (each about `centres[set]`) against every shape, posed so the cloud lands on the shape, mixed with shape tasks. */
  function setBatch(r: () => number, sets: number[], centres: number[][], shapeCount: number): QueryBatchBuilder {
    const b = new QueryBatchBuilder();
    for (const set of sets) {
      for (let sb = 0; sb < shapeCount; sb++) {
        for (let i = 0; i < 3; i++) {
          const [qx, qy, qz, qw] = randomQuat(r);
          // t = -R c + jitter: the set's centre lands within half a metre of B's origin (or far away, 1 in 3).
          const c = centres[set]!;
          const rx = (1 - 2 * (qy * qy + qz * qz)) * c[0]! + 2 * (qx * qy - qz * qw) * c[1]! + 2 * (qx * qz + qy * qw) * c[2]!;
          const ry = 2 * (qx * qy + qz * qw) * c[0]! + (1 - 2 * (qx * qx + qz * qz)) * c[1]! + 2 * (qy * qz - qx * qw) * c[2]!;
          const rz = 2 * (qx * qz - qy * qw) * c[0]! + 2 * (qy * qz + qx * qw) * c[1]! + (1 - 2 * (qx * qx + qy * qy)) * c[2]!;
          const off = i === 2 ? 20 : 0.5 * (r() - 0.5);
          b.push(sampleSetRef(set), sb, qx, qy, qz, qw, off - rx, 0.5 * (r() - 0.5) - ry, 0.5 * (r() - 0.5) - rz, (i % 2) * 0.05);
        }
      }
      // A shape task between the set tasks: both kinds in one call.
      b.push(TORUS, BOX, 0, 0, 0, 1, 0.5, 0, 0, 0.02);
    }
    return b;
  }

  it('sample sets: the same records bit for bit, with sets that change every call, grow past the buffers and outlive setShapes', async () => {
    const p = await pool({ threads: 3, mainClaims: false, minSamples: 0, minChunkSamples: 64 });
    const one = new CpuPenetrationBackend();
    one.setShapes(shapes);
    const r = rng(21);
    const centres = [[5, -3, 2], [-40, 10, 0.5], [0.2, 0, 0]];
    let records = 0;
    // Sets grow (past the pool's initial set buffers), shrink to nothing, and a third appears.
    for (const [n0, n1, n2] of [[300, 40, 0], [6000, 2500, 0], [0, 9000, 700]] as const) {
      const sets = [0, 1];
      for (const [set, n] of [[0, n0], [1, n1], [2, n2]] as const) {
        if (n === 0 && set === 2) continue;
        const pts = cloud(r, n, centres[set]!);
        one.setSampleSet(set, pts, n);
        p.setSampleSet(set, pts, n);
        if (set === 2) sets.push(2);
      }
      const b = setBatch(r, sets, centres, shapes.length);
      const before = p.pooledCalls;
      const ref = snapshot(one.querySync(b), b.count, one.evaluated);
      expectIdentical(snapshot(await p.query(b), b.count, p.evaluated), ref, `sets of ${n0}, ${n1}, ${n2} points`);
      expect(p.pooledCalls).toBe(before + 1);
      expect(p.lastMainChunks).toBe(0);
      records += ref.sample.length;
    }
    expect(records).toBeGreaterThan(3000);
    // New shapes (another order): the sets are kept, as on one thread.
    const other = [shapes[TORUS]!, shapes[BALL]!, shapes[BOX]!];
    one.setShapes(other);
    p.setShapes(other);
    await p.ready();
    const b = setBatch(r, [1, 2], centres, other.length);
    const ref = snapshot(one.querySync(b), b.count, one.evaluated);
    expectIdentical(snapshot(await p.query(b), b.count, p.evaluated), ref, 'after setShapes');
    expect(ref.sample.length).toBeGreaterThan(500);
    // A set never set is an error naming it, as on one thread.
    const bad = new QueryBatchBuilder();
    bad.push(sampleSetRef(7), 0, 0, 0, 0, 1, 0, 0, 0);
    await expect(p.query(bad)).rejects.toThrow('query task 0 names sample set 7, which was never set');
    expect(() => one.querySync(bad)).toThrow('query task 0 names sample set 7, which was never set');
  });

  it('destroy() stops every worker thread', async () => {
    const p = new ParallelPenetrationBackend({ threads: 3 });
    p.setShapes(shapes);
    await p.ready();
    p.destroy();
    await p.whenTerminated();
    expect(p.readyWorkers).toBe(2); // they took the config, then stopped
    await expect(p.query(randomBatch(1, 1))).rejects.toThrow('destroyed');
  });

  it('createBackend picks the pool from --threads; bad thread counts are input errors', async () => {
    const b = await createBackend('cpu', { threads: 2 });
    try {
      expect(b.threads).toBe(2);
      expect(b.threadNote).toBeNull();
      expect(b.query).toBeInstanceOf(ParallelPenetrationBackend);
      await b.ready();
    } finally {
      b.destroy();
      await (b.query as ParallelPenetrationBackend).whenTerminated();
    }
    const one = await createBackend('cpu', { threads: 1 });
    expect(one.query).toBeInstanceOf(CpuPenetrationBackend);
    expect(one.threads).toBe(1);
    expect(parseThreads('4')).toBe(4);
    for (const bad of ['0', '-1', '1.5', 'two', '', '300']) expect(() => parseThreads(bad)).toThrow(InputError);
    expect(() => parseThreads('x')).toThrow('expected a thread count in [1, 256], got "x"');
  });
});

describe('a world stepped on the pool', () => {
  it('with soft bodies (sample sets every step) equals the one-thread world bit for bit', async () => {
    const scene = validateScene(builtinScene('soft-seesaw', {}), '<builtin:soft-seesaw>');
    const io = { readText: (p: string) => readFile(p, 'utf8') };
    const one = await createBackend('cpu');
    const many = await createBackend('cpu', { threads: 3, pool: { minSamples: 0, mainClaims: false } });
    try {
      await many.ready();
      const w1 = await createWorld(scene, one.query, io);
      const w2 = await createWorld(scene, many.query, io);
      expect(w1.soft).not.toBeNull();
      for (let s = 0; s < 40; s++) {
        await w1.step();
        await w2.step();
        expect(w2.profile.samplesEvaluated).toBe(w1.profile.samplesEvaluated);
      }
      const a = w1.saveState(), b = w2.saveState();
      for (const key of ['pos', 'quat', 'vel', 'angVel'] as const) {
        const x = new Uint32Array(a[key].buffer), y = new Uint32Array(b[key].buffer);
        const at = x.findIndex((v, i) => v !== y[i]);
        expect(at, `${key} differs at ${at}`).toBe(-1);
      }
      // The soft bodies' own state, bit for bit too.
      const bits = (state: unknown) => JSON.stringify(state, (_k, v) => (ArrayBuffer.isView(v) ? Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)) : v));
      expect(b.soft).toBeDefined();
      expect(bits(b.soft)).toBe(bits(a.soft));
      expect((many.query as ParallelPenetrationBackend).pooledCalls).toBeGreaterThan(10);
    } finally {
      one.destroy();
      many.destroy();
      await (many.query as ParallelPenetrationBackend).whenTerminated();
    }
  });

  it('equals the one-thread world bit for bit over 100 steps of a built-in pile', async () => {
    const scene = validateScene(builtinScene('pile', { count: 12 }), '<builtin:pile>');
    const io = { readText: (p: string) => readFile(p, 'utf8') };
    const one = await createBackend('cpu');
    const many = await createBackend('cpu', { threads: 3, pool: { minSamples: 0, mainClaims: false } });
    try {
      await many.ready();
      const w1 = await createWorld(scene, one.query, io);
      const w2 = await createWorld(scene, many.query, io);
      let evaluated = 0;
      for (let s = 0; s < 100; s++) {
        await w1.step();
        await w2.step();
        expect(w2.profile.samplesEvaluated).toBe(w1.profile.samplesEvaluated);
        expect(w2.profile.queryCalls).toBe(w1.profile.queryCalls);
        evaluated += w1.profile.samplesEvaluated;
      }
      const a = w1.saveState(), b = w2.saveState();
      for (const key of ['pos', 'quat', 'vel', 'angVel'] as const) {
        const x = new Uint32Array(a[key].buffer), y = new Uint32Array(b[key].buffer);
        expect(y.length).toBe(x.length);
        const at = x.findIndex((v, i) => v !== y[i]);
        expect(at, `${key} differs at ${at}`).toBe(-1);
      }
      // The pile lands within 100 steps, so the pool did real work.
      expect(evaluated).toBeGreaterThan(10_000);
      expect((many.query as ParallelPenetrationBackend).pooledCalls).toBeGreaterThan(10);
    } finally {
      one.destroy();
      many.destroy();
      await (many.query as ParallelPenetrationBackend).whenTerminated();
    }
  });
});
