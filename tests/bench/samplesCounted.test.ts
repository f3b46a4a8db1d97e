/**
 * The benchmark's sample counts mean the same on every backend that gives
 * one. Guards the regression where bench.html and `stackfield bench` set the
 * CPU's samples evaluated after its culls (about 9 a step on ten falling
 * rings) beside the GPU's count of samples dispatched, before its shader's
 * culls (about 1200 on the same steps), both labelled "evaluated after the
 * culls": a reader took the GPU to do 130 times the work. Samples *sent*
 * (every sample of each task, before any cull) are counted alike on both
 * and agree on the same run; samples *evaluated* are counted by the CPU
 * alone, and the GPU's figure is null, "n/a" in the table.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { formatTable, runBenchmark } from '../../src/bench/harness.ts';
import { createBackend } from '../../src/backends.ts';
import { validateScene } from '../../src/scene/validate.ts';

/** A ball rolling across a mesh slab (an extruded rectangle: queried, not the analytic plane or a box's exact point), kept awake: it queries every few steps. */
const rolling = () =>
  validateScene(
    {
      format: 'stackfield-scene/1',
      dt: 0.01,
      sleep: false,
      shapes: {
        slab: { type: 'extrude', polygon: [[-10, -0.2], [10, -0.2], [10, 0.2], [-10, 0.2]], depth: 4, sdf: { cells: 64 } },
        ball: { type: 'sphere', radius: 0.25, segments: [16, 12], sdf: { cells: 16 } },
      },
      bodies: [
        { name: 'slab', shape: 'slab', static: true, position: [0, -0.2, 0] },
        { name: 'ball', shape: 'ball', position: [-8, 0.25, 0], velocity: [2, 0, 0], angularVelocity: [0, 0, -8], friction: 0.5 },
      ],
    },
    '<test>',
  );

describe('samples counted by the benchmark', () => {
  it('each backend says whether it counts the samples evaluated after the culls: the CPU twins do, the GPU does not', async () => {
    for (const [kind, threads] of [['cpu', 1], ['cpu', 2], ['gpu', 1]] as const) {
      const b = await createBackend(kind, { threads });
      try {
        expect(b.query.countsEvaluated === true, `${kind} on ${threads} thread(s)`).toBe(kind === 'cpu');
      } finally {
        b.destroy();
      }
    }
  }, 60_000);

  it('samples sent agree between the CPU and the GPU; samples evaluated are the CPU\'s alone, n/a on the GPU', async () => {
    const r = await runBenchmark(
      { scene: rolling(), steps: 20, warmup: 5, backends: ['cpu', 'gpu'], bakeRepeats: 1 },
      { readText: (p) => readFile(p, 'utf8'), platform: 'test' },
    );
    const [cpu, gpu] = r.results;
    expect([cpu!.backend, gpu!.backend]).toEqual(['cpu', 'gpu']);
    // It did query: the figures compare work done, not zeros.
    expect(cpu!.queriesPerStep).toBeGreaterThan(0);
    // Sent: the same samples asked of both (the same steps, the same pairs).
    expect(gpu!.queriesPerStep).toBe(cpu!.queriesPerStep);
    // Evaluated: the CPU's after its culls, at most what it was sent ...
    expect(cpu!.samplesEvaluatedPerStep).toBeGreaterThan(0);
    expect(cpu!.samplesEvaluatedPerStep!).toBeLessThanOrEqual(cpu!.queriesPerStep);
    expect(cpu!.queriesPerSecond).toBeGreaterThan(0);
    // ... and none for the GPU, in the whole run and in each phase of it.
    expect(gpu!.samplesEvaluatedPerStep).toBeNull();
    expect(gpu!.queriesPerSecond).toBeNull();
    for (const w of Object.values(gpu!.windows)) expect(w.samplesEvaluatedPerStep).toBeNull();
    for (const w of Object.values(cpu!.windows)) if (w.steps > 0) expect(w.samplesEvaluatedPerStep).not.toBeNull();

    // The CLI's table says the same: a number for the CPU, "n/a" and why for the GPU.
    const lines = formatTable(r).split('\n');
    const cpuLine = lines.find((l) => l.startsWith('cpu ('))!;
    const gpuLine = lines.find((l) => l.startsWith('gpu ('))!;
    expect(cpuLine).toMatch(/[\d.]+ samples sent per step .*; [\d.]+ evaluated after the culls \([\d.]+ M\/s\)/);
    expect(gpuLine).toMatch(/[\d.]+ samples sent per step .*; samples evaluated after the culls n\/a \(the GPU shader culls samples without counting them\)/);
    expect(gpuLine).not.toMatch(/[\d.]+ evaluated after the culls/);
  }, 180_000);
});
