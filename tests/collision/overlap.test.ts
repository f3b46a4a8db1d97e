/**
 * The query's overlap (query.ts, PenetrationBackend.query): the host work the
 * narrow phase hands a backend to run while the batch is computed. Every
 * backend runs it exactly once per call, before the call resolves; and since
 * it is work the narrow phase would do right after the call anyway, a
 * backend that ignores it (a wrapper) steps the same world to the same bits.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createBackend } from '../../src/backends.ts';
import type { BackendKind, PenetrationBackend, QueryBatch, QueryResult, QueryShape } from '../../src/collision/query.ts';
import type { World } from '../../src/dynamics/world.ts';
import { createWorld } from '../../src/scene/build.ts';
import { builtinScene } from '../../src/scene/builtins.ts';
import { validateScene } from '../../src/scene/validate.ts';

/** Passes calls on to `inner`, with the overlap (counting how often it ran, and when) or without it. */
class Watch implements PenetrationBackend {
  calls = 0;
  /** Calls whose overlap ran exactly once before the call resolved. */
  once = 0;
  /** Overlaps run after their call resolved (none may be). */
  late = 0;
  constructor(private readonly inner: PenetrationBackend, private readonly pass: boolean) {}
  get kind(): BackendKind {
    return this.inner.kind;
  }
  get counters() {
    return this.inner.counters;
  }
  setShapes(shapes: readonly QueryShape[]): void {
    this.inner.setShapes(shapes);
  }
  setSampleSet(set: number, points: Float32Array, count: number): void {
    this.inner.setSampleSet(set, points, count);
  }
  async query(batch: QueryBatch, overlap?: () => void): Promise<QueryResult> {
    this.calls++;
    if (!this.pass) return this.inner.query(batch);
    let runs = 0, resolved = false;
    const res = await this.inner.query(batch, () => {
      runs++;
      if (resolved) this.late++;
      overlap?.();
    });
    resolved = true;
    if (runs === 1) this.once++;
    return res;
  }
  destroy(): void {
    this.inner.destroy();
  }
}

/** Ten rings dropped onto one peg: pairs that keep their caches across query calls from the first landing on. */
async function ringWorld(kind: BackendKind, threads: number, pass: boolean): Promise<{ world: World; watch: Watch; pooled: () => number; destroy: () => void }> {
  const backend = await createBackend(kind, { threads });
  await backend.ready();
  const watch = new Watch(backend.query, pass);
  const scene = validateScene(builtinScene('rings', { rings: 10, pegs: 1 }), '<rings>');
  const world = await createWorld(scene, watch, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake });
  const pooled = () => (backend.query as { pooledCalls?: number }).pooledCalls ?? 0;
  return { world, watch, pooled, destroy: () => backend.destroy() };
}

function state(w: World): number[] {
  const B = w.bodies;
  return [...B.pos.subarray(0, 3 * B.count), ...B.quat.subarray(0, 4 * B.count), ...B.vel.subarray(0, 3 * B.count), ...B.angVel.subarray(0, 3 * B.count)];
}

describe('the query overlap', () => {
  for (const [kind, threads] of [['cpu', 1], ['cpu', 2], ['gpu', 1]] as const) {
    it(`${kind} on ${threads} thread${threads > 1 ? 's' : ''}: runs once in every call, before it resolves; the world steps to the same bits without it`, async () => {
      const a = await ringWorld(kind, threads, true);
      const b = await ringWorld(kind, threads, false);
      try {
        let evaluated = 0;
        for (let s = 0; s < 150; s++) {
          await a.world.step();
          await b.world.step();
          evaluated += a.world.profile.cacheEvaluations;
          const sa = state(a.world), sb = state(b.world);
          expect(sa.every((x, i) => Object.is(x, sb[i]))).toBe(true);
        }
        expect(a.watch.calls).toBeGreaterThan(20);
        expect(a.watch.once).toBe(a.watch.calls);
        expect(a.watch.late).toBe(0);
        expect(b.watch.calls).toBe(a.watch.calls);
        // On two threads the landing's batches went through the pool (the others run on one).
        if (threads > 1) expect(a.pooled()).toBeGreaterThan(0);
        // The rings landed: there were cached pairs to evaluate.
        expect(evaluated).toBeGreaterThan(0);
      } finally {
        a.destroy();
        b.destroy();
      }
    }, 240_000);
  }
});
