/**
 * What `stackfield bench` and bench.html say about a run (benchSummary, and
 * the CLI table that prints it): backends compared by the mean step and the
 * run's total with the medians beside them, the CPU's thread count, a
 * software GPU adapter called one, and a run without contacts or nearly all
 * one phase flagged. The results here are made up to the shape the issue
 * reported: a GPU whose median step beats the CPU's while its mean is 900 times
 * the CPU's, 20 steps without a contact.
 */
import { describe, expect, it } from 'vitest';
import { benchSummary, formatTable, PHASES, type BackendResult, type BenchResults, type Phase, type Stats, type WindowResult } from '../../src/bench/harness.ts';
import { STAGES, type Stage } from '../../src/dynamics/profile.ts';

function st(mean: number, median: number, p95: number, samples = 20): Stats {
  return { mean, median, p95, max: p95, samples };
}

function windows(split: Record<Phase, number>): Record<Phase, WindowResult> {
  let at = 2;
  const out = {} as Record<Phase, WindowResult>;
  for (const ph of PHASES) {
    const n = split[ph];
    out[ph] = {
      fromStep: at, toStep: at + n, fromS: at * 0.01, toS: (at + n) * 0.01, steps: n,
      stepMs: st(1, 1, 1, n), queryMs: st(0.5, 0.5, 0.5, n), queryCallsPerStep: 1, maxQueryCalls: 1, samplesEvaluatedPerStep: 10, awakePerStep: 20,
    };
    at += n;
  }
  return out;
}

function result(backend: 'cpu' | 'gpu', o: Partial<BackendResult>): BackendResult {
  return {
    backend,
    adapter: backend === 'cpu' ? 'cpu' : 'gpu (google / swiftshader / swiftshader-device-subzero- / SwiftShader driver 5.0.0)',
    software: backend === 'gpu',
    threads: 1,
    timing: 'wall',
    gpuQueryMs: null,
    backendMs: st(0.1, 0.1, 0.2),
    sleep: { allAsleepFromS: null, asleepAtEnd: 0, dynamic: 20 },
    sdfBakeMs: st(30, 25, 45, 3),
    bakeNodesPerSecond: 1e6,
    queryMs: st(0.3, 0.1, 1),
    stepMs: st(1, 1, 1),
    stages: Object.fromEntries(STAGES.map((s) => [s, st(0.01, 0.01, 0.01)])) as Record<Stage, Stats>,
    queriesPerSecond: 1e5,
    samplesSentPerSecond: 1e6,
    queriesPerStep: 1375,
    samplesEvaluatedPerStep: 70,
    queryCallsPerStep: 0.45,
    maxQueryCalls: 1,
    shockSweepsPerStep: 1,
    pgsIterationsPerStep: 0,
    submitsPerStep: 0,
    readbacksPerStep: 0,
    maxReadbacks: 0,
    bytesReadBackPerStep: 0,
    bytesWrittenPerStep: 0,
    contactsPerStep: 0,
    stepsWithContacts: 0,
    pairsPerStep: 14,
    awakePerStep: 20,
    asleepPerStep: 0,
    windows: windows({ falling: 20, landing: 0, settled: 0 }),
    dt: 0.01,
    soft: null,
    ...o,
  };
}

function run(results: BackendResult[]): BenchResults {
  return { scene: 'rings', params: { rings: 20 }, bodies: 24, shapes: [], steps: 20, warmup: 2, warmCodeSteps: 0, contactSolver: 'sequential', date: '', platform: 'test', results };
}

describe('the benchmark summary', () => {
  const issue = run([
    result('cpu', { stepMs: st(0.63, 0.41, 1.8), queryMs: st(0.34, 0.13, 1.57) }),
    result('gpu', { stepMs: st(572, 0.26, 1245), queryMs: st(560, 0.2, 1200) }),
  ]);

  it('compares the backends by the mean and the total, with the medians beside them, and says when the median disagrees', () => {
    const lines = benchSummary(issue);
    expect(lines).toContain(
      'Whole step: CPU 907.94x faster by the mean, 0.63 ms (CPU) against 572 ms (GPU) a step, 12.6 against 11440 ms in all; ' +
        "medians 0.41 against 0.26 ms (the median favours the GPU: a few slow steps make most of the GPU's total).",
    );
    expect(lines.some((l) => l.startsWith('Query phase: CPU ') && l.includes('by the mean'))).toBe(true);
  });

  it("names the CPU's threads and a software GPU adapter", () => {
    const lines = benchSummary(issue);
    expect(lines[0]).toBe('CPU: the queries ran on 1 thread (the main thread).');
    expect(lines[1]).toBe(
      'GPU: google / swiftshader / swiftshader-device-subzero- / SwiftShader driver 5.0.0 is a software adapter, WebGPU emulated on the CPU: its times say nothing about GPU hardware.',
    );
    const pool = benchSummary(run([result('cpu', { threads: 4 })]));
    expect(pool[0]).toBe('CPU: the queries ran on 4 threads (the main thread and 3 workers).');
    const hw = benchSummary(run([result('gpu', { adapter: 'gpu (nvidia / ada)', software: false })]));
    expect(hw[0]).toBe('GPU: nvidia / ada.');
  });

  it('says when the measured steps had no contact, or were mostly one phase', () => {
    expect(benchSummary(issue)).toContain(
      'No contact in the 20 measured steps: they time bodies in free flight, not collisions or stacking (measure more steps, or warm up past the fall).',
    );
    const landing = run([result('cpu', { stepsWithContacts: 18, contactsPerStep: 40, windows: windows({ falling: 2, landing: 18, settled: 0 }) })]);
    expect(benchSummary(landing)).toContain(
      '18 of the 20 measured steps were landing (0.04-0.22 s): the whole-step figures are mostly that phase (the phase rows split them).',
    );
    const settled = run([result('cpu', { stepsWithContacts: 20, contactsPerStep: 40, windows: windows({ falling: 0, landing: 0, settled: 20 }) })]);
    expect(benchSummary(settled)).toContain('All 20 measured steps were settled (0.02-0.22 s): the figures describe that phase alone.');
    const mixed = run([result('cpu', { stepsWithContacts: 15, contactsPerStep: 40, windows: windows({ falling: 5, landing: 8, settled: 7 }) })]);
    expect(benchSummary(mixed).filter((l) => /measured steps/.test(l))).toEqual([]);
  });

  it('the CLI table prints the summary, means first, and the samples sent beside those evaluated', () => {
    const text = formatTable(issue);
    for (const l of benchSummary(issue)) expect(text).toContain(l);
    expect(text).toMatch(/^phase \(ms\) +cpu mean +cpu median +cpu p95 +cpu max +gpu mean +gpu median +gpu p95 +gpu max$/m);
    expect(text).toMatch(/^whole step \(all measured steps\) +0\.63 +0\.41 +1\.80 +1\.80 +572 +0\.26 +1245 +1245$/m);
    expect(text).toContain('1375 samples sent per step in 0.45 calls (at most 1 in a step), 1.00 M sent per second of query time; 70.0 evaluated after the culls (0.10 M/s)');
    expect(text).toContain('0.00 contacts/step (0 of 20 steps with any)');
  });
});
