/**
 * What `bench` counts about the queries, checked against a count kept
 * outside the backends: a wrapper sees every call and every task, and adds up
 * the samples each task sends (all of shape A's, before any cull). On the GPU
 * the steady state must cost at most one submission and one readback per
 * phase (two per step), with everything else resident.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { formatTable, measuredSpan, runBenchmark } from '../../src/bench/harness.ts';
import { createBackend } from '../../src/backends.ts';
import { SAMPLE_SET, type BackendKind, type PenetrationBackend, type QueryBatch, type QueryResult, type QueryShape } from '../../src/collision/query.ts';
import type { World } from '../../src/dynamics/world.ts';
import { sampleCount } from '../../src/geometry/samples.ts';
import { createWorld } from '../../src/scene/build.ts';
import { validateScene } from '../../src/scene/validate.ts';

/** Passes everything to `inner`, counting calls and the samples of each task's side A. */
class Tally implements PenetrationBackend {
  calls = 0;
  sent = 0;
  private shapeSamples: number[] = [];
  private setSamples: number[] = [];
  constructor(private readonly inner: PenetrationBackend) {}
  get kind(): BackendKind {
    return this.inner.kind;
  }
  get counters() {
    return this.inner.counters;
  }
  setShapes(shapes: readonly QueryShape[]): void {
    this.shapeSamples = shapes.map((s) => sampleCount(s.samples));
    this.inner.setShapes(shapes);
  }
  setSampleSet(set: number, points: Float32Array, count: number): void {
    this.setSamples[set] = count;
    this.inner.setSampleSet(set, points, count);
  }
  query(batch: QueryBatch, overlap?: () => void): Promise<QueryResult> {
    this.calls++;
    for (let t = 0; t < batch.count; t++) {
      const a = batch.shapeA[t]!;
      this.sent += a & SAMPLE_SET ? this.setSamples[(a & ~SAMPLE_SET) >>> 0]! : this.shapeSamples[a]!;
    }
    return this.inner.query(batch, overlap);
  }
  destroy(): void {
    this.inner.destroy();
  }
}

/**
 * The steady state of a scene that keeps querying: a ball rolling across a
 * mesh slab (a box drawn as an extruded rectangle, so the pair goes through
 * the queries, not the analytic plane or a sphere's exact point on a box),
 * and a resting box on it, kept awake.
 */
const rollingJson = () => ({
  format: 'stackfield-scene/1',
  dt: 0.01,
  sleep: false,
  shapes: {
    slab: { type: 'extrude', polygon: [[-10, -0.2], [10, -0.2], [10, 0.2], [-10, 0.2]], depth: 4, sdf: { cells: 96 } },
    ball: { type: 'sphere', radius: 0.25, segments: [24, 16], sdf: { cells: 24 } },
    crate: { type: 'box', size: [0.5, 0.5, 0.5], sdf: { cells: 16 } },
  },
  bodies: [
    { name: 'slab', shape: 'slab', static: true, position: [0, -0.2, 0] },
    { name: 'ball', shape: 'ball', position: [-8, 0.25, 0], velocity: [2, 0, 0], angularVelocity: [0, 0, -8], friction: 0.5 },
    { name: 'crate', shape: 'crate', position: [0, 0.25, 1.5], friction: 0.5 },
  ],
});

async function tallyWorld(kind: BackendKind): Promise<{ world: World; tally: Tally }> {
  const backend = await createBackend(kind);
  const tally = new Tally(backend.query);
  const world = await createWorld(validateScene(rollingJson(), '<test>'), tally, { readText: (p) => readFile(p, 'utf8'), bake: backend.bake });
  return { world, tally };
}

describe('bench counters', () => {
  for (const kind of ['cpu', 'gpu'] as const) {
    it(`${kind}: a step's query calls and samples sent are what the backend was asked; samples evaluated are at most those sent`, async () => {
      const { world, tally } = await tallyWorld(kind);
      for (let s = 0; s < 60; s++) {
        const calls = tally.calls, sent = tally.sent;
        await world.step();
        const p = world.profile;
        expect(p.queryCalls).toBe(tally.calls - calls);
        expect(p.queries).toBe(tally.sent - sent);
        expect(p.samplesEvaluated).toBeLessThanOrEqual(p.queries);
        // Steady rolling: a phase re-queries the ball's pair once it has
        // rolled past its margin, and the cached points serve the rest.
        expect(p.queryCalls).toBeLessThanOrEqual(2);
        if (p.queryCalls > 0) expect(p.samplesEvaluated).toBeGreaterThan(0);
        if (kind === 'cpu') {
          expect(p.submits + p.readbacks + p.bytesRead + p.bytesWritten).toBe(0);
        } else {
          // One submission and one readback per query call, nothing else (the
          // very first call may grow its result buffers to fit and run again).
          if (s === 0) {
            expect(p.submits).toBeGreaterThanOrEqual(p.queryCalls);
            expect(p.submits).toBeLessThanOrEqual(2 * p.queryCalls);
          } else {
            expect(p.submits).toBe(p.queryCalls);
          }
          expect(p.readbacks).toBe(p.submits);
          if (p.queryCalls > 0) expect(p.bytesRead).toBeGreaterThan(0);
        }
      }
      // It did query while rolling: the ball moves 2 cm a step, its margin is a cell or two.
      expect(tally.calls).toBeGreaterThan(10);
    }, 120_000);
  }

  it('bench reports the same per-step means the steps counted, and at most 2 GPU round trips per step', async () => {
    const scene = validateScene(rollingJson(), '<test>');
    const r = await runBenchmark({ scene, steps: 30, warmup: 10, backends: ['cpu', 'gpu'], bakeRepeats: 1 }, { readText: (p) => readFile(p, 'utf8'), platform: 'test' });
    const [cpu, gpu] = r.results;
    expect(cpu!.backend).toBe('cpu');
    expect(gpu!.backend).toBe('gpu');
    for (const x of [cpu!, gpu!]) {
      expect(x.queryCallsPerStep).toBeGreaterThan(0.2);
      expect(x.queryCallsPerStep).toBeLessThanOrEqual(2);
    }
    // Samples evaluated after the culls: counted on the CPU alone (tests/bench/samplesCounted.test.ts).
    expect(cpu!.samplesEvaluatedPerStep).toBeGreaterThan(0);
    expect(cpu!.samplesEvaluatedPerStep).toBeLessThanOrEqual(cpu!.queriesPerStep);
    // Its samples per second counts evaluated samples only.
    expect(cpu!.queriesPerSecond! * (cpu!.queryMs.mean / 1000)).toBeCloseTo(cpu!.samplesEvaluatedPerStep!, -1);
    expect(cpu!.submitsPerStep).toBe(0);
    expect(cpu!.maxReadbacks).toBe(0);
    expect(gpu!.submitsPerStep).toBeLessThanOrEqual(2);
    expect(gpu!.readbacksPerStep).toBeLessThanOrEqual(2);
    // Every step, not only on average (the most the profile counted in one).
    expect(gpu!.maxReadbacks).toBeLessThanOrEqual(2);
    expect(Math.max(cpu!.maxQueryCalls, gpu!.maxQueryCalls)).toBeLessThanOrEqual(2);
    expect(gpu!.maxQueryCalls).toBeGreaterThanOrEqual(Math.ceil(gpu!.queryCallsPerStep));
    expect(gpu!.bytesReadBackPerStep).toBeGreaterThan(0);
    // The same physics on both: the same samples sent (the query results agree to float rounding).
    expect(gpu!.queriesPerStep).toBe(cpu!.queriesPerStep);
  }, 180_000);

  it("gives each phase's measured span apart from the warm-up", async () => {
    const scene = validateScene(rollingJson(), '<test>');
    const env = { readText: (p: string) => readFile(p, 'utf8'), platform: 'test' };
    const r = await runBenchmark({ scene, steps: 20, warmup: 6, backends: ['cpu'], bakeRepeats: 1 }, env);
    const x = r.results[0]!;
    let steps = 0;
    for (const ph of ['falling', 'landing', 'settled'] as const) {
      const w = x.windows[ph];
      steps += w.steps;
      if (w.steps === 0) continue;
      // The span holds exactly the window's measured steps, none of the warm-up's.
      expect(w.measuredFromS!).toBeGreaterThanOrEqual(6 * x.dt - 1e-12);
      expect((w.measuredToS! - w.measuredFromS!) / x.dt).toBeCloseTo(w.steps, 9);
      expect(formatTable(r)).toContain(`${ph} (${measuredSpan(w)}, ${w.steps} step${w.steps === 1 ? '' : 's'})`);
    }
    expect(steps).toBe(20);
  }, 120_000);

  it('warming the code on a copy measures the same run from its first step', async () => {
    const scene = validateScene(rollingJson(), '<test>');
    const env = { readText: (p: string) => readFile(p, 'utf8'), platform: 'test' };
    const cold = await runBenchmark({ scene, steps: 25, warmup: 0, backends: ['cpu'], bakeRepeats: 1 }, env);
    const warm = await runBenchmark({ scene, steps: 25, warmup: 0, warmCode: 40, backends: ['cpu'], bakeRepeats: 1 }, env);
    expect(cold.warmCodeSteps).toBe(0);
    expect(warm.warmCodeSteps).toBe(40);
    const [c, w] = [cold.results[0]!, warm.results[0]!];
    // The copy is discarded: the measured world starts where the cold one does and does the same work.
    for (const k of ['queriesPerStep', 'samplesEvaluatedPerStep', 'contactsPerStep', 'pairsPerStep', 'awakePerStep'] as const) expect(w[k]).toBe(c[k]);
    for (const ph of ['falling', 'landing', 'settled'] as const) {
      expect(w.windows[ph].fromStep).toBe(c.windows[ph].fromStep);
      expect(w.windows[ph].toStep).toBe(c.windows[ph].toStep);
    }
  }, 120_000);
});
