/**
 * The worker pool (src/collision/parallelQuery.ts) against the single-thread
 * CPU twin: the same records, bit for bit (sample indices, phi and normal
 * floats, task ranges, evaluated-sample counts), on 2 and 3 threads, with
 * the main thread claiming chunks or only waiting (then every chunk runs on
 * a worker), for large batches, small ones, one huge task cut into pieces,
 * and tasks without records; after a second setShapes (a scene switch); and
 * a world stepped on the pool against one stepped on one thread. destroy()
 * must stop every worker thread.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackend, parseThreads } from '../../src/collision/backends.ts';
import { CpuPenetrationBackend } from '../../src/collision/cpuQuery.ts';
import { ParallelPenetrationBackend, type PoolOptions } from '../../src/collision/parallelQuery.ts';
import { QueryBatchBuilder, type QueryResult, type QueryShape } from '../../src/collision/query.ts';
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
