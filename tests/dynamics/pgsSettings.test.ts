import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runBenchmark } from '../../src/bench/harness.ts';
import { validateScene } from '../../src/scene/validate.ts';
import { FORMAT, pos, run, worldFrom } from './helpers.ts';

/** A tower of n 1 x 0.5 x 1 m slabs on a plane, PGS with `solver` on top, at 100 Hz. */
function tower(n: number, solver: Record<string, unknown>) {
  const bodies: Record<string, unknown>[] = [{ name: 'ground', shape: 'floor', static: true, friction: 0.6, restitution: 0 }];
  for (let i = 0; i < n; i++) bodies.push({ name: `box${i}`, shape: 'box', position: [0, 0.25 + i * 0.502 + 0.001, 0], restitution: 0, friction: 0.6, density: 500 });
  return {
    format: FORMAT, dt: 0.01, sleep: false, solver: { contactSolver: 'pgs', ...solver },
    shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [1, 0.5, 1], sdf: { cells: 24 } } },
    bodies,
  };
}

/**
 * Velocity sweeps per step of the PGS solve over `steps` steps, and the top
 * box's height. Every tower settles alike first (50 steps with the cap's
 * sweeps and no tolerance); then `solver` applies: each tolerance starts from
 * the same state.
 */
async function sweeps(solver: Record<string, unknown>, steps = 50): Promise<{ mean: number; min: number; max: number; top: number }> {
  const w = await worldFrom(tower(5, { contactIterations: solver['contactIterations'] }));
  await run(w, 50);
  w.solver = { ...w.solver, ...solver };
  const s: number[] = [];
  await run(w, steps, (ww) => s.push(ww.pgs.sweeps));
  return { mean: s.reduce((a, b) => a + b, 0) / s.length, min: Math.min(...s), max: Math.max(...s), top: pos(w, 'box4')[1] };
}

describe('PGS convergence tolerance (solver.pgsErrMax)', () => {
  it('0 (the default) always runs contactIterations sweeps; a tiny tolerance runs to the cap; a larger one stops earlier', async () => {
    const cap = 40;
    const none = await sweeps({ contactIterations: cap });
    expect([none.min, none.max]).toEqual([cap, cap]);
    const tiny = await sweeps({ contactIterations: cap, pgsErrMax: 1e-12 });
    expect(tiny.min).toBe(cap);
    const mid = await sweeps({ contactIterations: cap, pgsErrMax: 1e-4 });
    const loose = await sweeps({ contactIterations: cap, pgsErrMax: 1e-2 });
    expect(mid.mean).toBeLessThan(cap);
    expect(loose.mean).toBeLessThan(mid.mean);
    expect(loose.min).toBeGreaterThanOrEqual(1);
    // Stopping early still holds the tower (resting contacts, warm started).
    expect(Math.abs(loose.top - none.top)).toBeLessThan(0.01);
  }, 60_000);

  it('stops after the first sweep that changes no row velocity by more than errMax', async () => {
    // A box at rest on the floor, warm started: the first sweep changes
    // almost nothing, so a tolerance of 1 mm/s stops right after it.
    const w = await worldFrom({
      format: FORMAT, dt: 0.01, sleep: false, solver: { contactSolver: 'pgs', contactIterations: 30, pgsErrMax: 1e-3 },
      shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } } },
      bodies: [{ name: 'floor', shape: 'floor', static: true, restitution: 0 }, { name: 'box', shape: 'box', position: [0, 0.2, 0], restitution: 0 }],
    });
    await run(w, 100);
    expect(w.pgs.rows).toBeGreaterThan(0);
    expect(w.pgs.sweeps).toBe(1);
  });
});

describe('PGS position correction constants (solver.pgsBeta, solver.pgsSlop)', () => {
  /** A 0.4 m box started `depth` m into the floor, without gravity: its height after each of `steps` steps, and its SDF cell. */
  async function heights(depth: number, solver: Record<string, unknown>, steps: number): Promise<{ y: number[]; cell: number }> {
    const w = await worldFrom({
      format: FORMAT, dt: 0.01, sleep: false, gravity: [0, 0, 0], solver: { contactSolver: 'pgs', contactIterations: 30, ...solver },
      shapes: { floor: { type: 'plane', normal: [0, 1, 0] }, box: { type: 'box', size: [0.4, 0.4, 0.4], sdf: { cells: 16 } } },
      bodies: [{ name: 'floor', shape: 'floor', static: true, restitution: 0 }, { name: 'box', shape: 'box', position: [0, 0.2 - depth, 0], restitution: 0 }],
    });
    const y: number[] = [];
    await run(w, steps, (ww) => y.push(pos(ww, 'box')[1]));
    return { y, cell: w.shapes[w.bodies.shape[1]!]!.sdf!.cellSize };
  }

  it('each step removes the fraction beta of the depth beyond the slop (slop in SDF cells), and no more', async () => {
    // Cell 0.025 m: slops of 2.5 mm and 12.5 mm.
    const depth = 0.02;
    for (const [beta, slop] of [[0.2, 0.1], [0.5, 0.1], [0.2, 0.5]] as const) {
      const { y, cell } = await heights(depth, { pgsBeta: beta, pgsSlop: slop }, 12);
      const s = slop * cell;
      // Depth beyond the slop after k steps: (1 - beta)^k of the first.
      for (const k of [1, 3, 12]) {
        const expected = (depth - s) * (1 - beta) ** k;
        const left = 0.2 - y[k - 1]! - s;
        expect(Math.abs(left - expected)).toBeLessThan(0.02 * (depth - s));
      }
    }
  });

  it('beta 0 leaves the depth alone', async () => {
    const { y } = await heights(0.01, { pgsBeta: 0 }, 10);
    expect(Math.abs(y[9]! - 0.19)).toBeLessThan(1e-9);
  });
});

describe('PGS solver keys in scene files', () => {
  const bad = (solver: Record<string, unknown>) => () => validateScene({ format: FORMAT, solver, shapes: {}, bodies: [] }, 's.json');
  it('are validated with the JSON path and the range expected', () => {
    expect(bad({ pgsErrMax: -1 })).toThrow(/s\.json: solver\.pgsErrMax: expected .*>= 0.*got -1/);
    expect(bad({ pgsBeta: 1.5 })).toThrow(/s\.json: solver\.pgsBeta: expected a number from 0 to 1, got 1\.5/);
    expect(bad({ pgsSlop: -0.1 })).toThrow(/s\.json: solver\.pgsSlop: expected .*got -0\.1/);
    expect(bad({ pgsBeat: 0.3 })).toThrow(/pgsBeta/);
  });
});

describe('stackfield bench reports the PGS iterations', () => {
  it('mean sweeps per step under PGS, none under the sequential solver', async () => {
    const env = { readText: (p: string) => readFile(p, 'utf8'), platform: 'test' };
    const scene = (solver: Record<string, unknown>) => validateScene(tower(3, solver), '<test>');
    const pgs = await runBenchmark({ scene: scene({ contactIterations: 20, pgsErrMax: 1e-3 }), steps: 20, warmup: 5, backends: ['cpu'], bakeRepeats: 1 }, env);
    const x = pgs.results[0]!;
    expect(x.pgsIterationsPerStep).toBeGreaterThan(0);
    expect(x.pgsIterationsPerStep).toBeLessThanOrEqual(20);
    const seq = await runBenchmark({ scene: scene({ contactSolver: 'sequential' }), steps: 20, warmup: 5, backends: ['cpu'], bakeRepeats: 1 }, env);
    expect(seq.results[0]!.pgsIterationsPerStep).toBe(0);
  }, 60_000);
});
