import { describe, expect, it } from 'vitest';
import { benchSoftSolver } from '../../src/soft/bench.ts';

describe('the soft solver benchmark', () => {
  it('times a (cells + 1)^3-particle cube and derives particle rates from the median step', async () => {
    const r = await benchSoftSolver({ cells: 2, warmup: 1, steps: 5, integrator: 'rk4', substeps: 3 });
    expect(r.particles).toBe(27);
    expect(r.substeps).toBe(3);
    expect(r.median).toBeGreaterThan(0);
    expect(r.p95).toBeGreaterThanOrEqual(r.median);
    expect(r.particleUpdatesPerSecond).toBeCloseTo((27 * 3) / (r.median / 1000), 6);
    expect(r.particleStepsPerSecond).toBeCloseTo(27 / (r.median / 1000), 6);
  });
});
