/**
 * Throughput of the soft-body solver alone: one soft body of about the asked
 * number of particles resting on a plane, stepped after a warm-up, timed per
 * step. Phase 2 puts this beside the rigid stages in `stackfield bench`; until
 * then docs/soft-bodies.md reports its numbers.
 *
 * "Particles per second through the solver" is particles x substeps / time:
 * how many particle updates (each with its share of the springs, dampers,
 * volume pressure and plane tests) the solver does per second. The real-time
 * rate (particles x steps / time) follows from it and the substep count.
 */
import type { SoftIntegratorName } from '../scene/types.ts';
import { parseSceneText } from '../scene/load.ts';
import { buildSoftSystem } from './build.ts';

export interface SoftBenchOptions {
  /** Lattice cells along each side of the cube (particles = (cells + 1)^3). */
  cells: number;
  integrator: SoftIntegratorName;
  /** Substeps per step (a minimum for semiImplicit). */
  substeps: number;
  preserveVolume: boolean;
  warmup: number;
  steps: number;
  dt: number;
}

export interface SoftBenchResult {
  options: SoftBenchOptions;
  particles: number;
  springs: number;
  substeps: number;
  /** Milliseconds per step. */
  median: number;
  p95: number;
  /** particles x substeps per second (median step). */
  particleUpdatesPerSecond: number;
  /** particles x steps per second (median step): the simulated particles a second of wall time advances by dt. */
  particleStepsPerSecond: number;
}

export const DEFAULT_SOFT_BENCH: Readonly<SoftBenchOptions> = {
  cells: 7, // 8^3 = 512 particles
  integrator: 'semiImplicit',
  substeps: 1,
  preserveVolume: true,
  warmup: 20,
  steps: 100,
  dt: 0.01,
};

function quantile(sorted: number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

export async function benchSoftSolver(options: Partial<SoftBenchOptions> = {}): Promise<SoftBenchResult> {
  const o = { ...DEFAULT_SOFT_BENCH, ...options };
  const scene = parseSceneText(
    JSON.stringify({
      format: 'stackfield-scene/1',
      dt: o.dt,
      shapes: { floor: { type: 'plane' }, cube: { type: 'box', size: [0.5, 0.5, 0.5] } },
      bodies: [{ name: 'ground', shape: 'floor', static: true }],
      softBodies: [{ name: 'bench', shape: 'cube', position: [0, 0.25, 0], construction: { resolution: o.cells }, preserveVolume: o.preserveVolume, damping: 0.3 }],
      softSolver: { integrator: o.integrator, substeps: o.substeps, maxSubsteps: Math.max(512, o.substeps) },
    }),
    '<soft bench>',
  );
  const { system } = await buildSoftSystem(scene, { readText: async () => '' });
  for (let s = 0; s < o.warmup; s++) system.step(o.dt);
  const times: number[] = [];
  let substeps = 0;
  for (let s = 0; s < o.steps; s++) {
    const t0 = performance.now();
    system.step(o.dt);
    times.push(performance.now() - t0);
    substeps = system.profile.substeps;
  }
  times.sort((a, b) => a - b);
  const median = quantile(times, 0.5);
  return {
    options: o,
    particles: system.particleCount,
    springs: system.springCount,
    substeps,
    median,
    p95: quantile(times, 0.95),
    particleUpdatesPerSecond: (system.particleCount * substeps) / (median / 1000),
    particleStepsPerSecond: system.particleCount / (median / 1000),
  };
}
