/**
 * Throughput of the soft-body solver alone: one soft body of about the asked
 * number of particles resting on a plane, stepped after a warm-up, timed per
 * step; and (SoftBenchCounter) the soft stage's throughput in the whole-world
 * benchmark of `stackfield bench` and bench.html.
 *
 * "Particles per second through the solver" is particles x substeps / time:
 * how many particle updates (each with its share of the springs, dampers,
 * volume pressure and plane tests) the solver does per second. The real-time
 * rate (particles x steps / time) follows from it and the substep count.
 */
import type { SoftIntegratorName } from '../scene/types.ts';
import { parseSceneText } from '../scene/load.ts';
import { buildSoftSystem } from './build.ts';
import type { World } from '../dynamics/world.ts';
import { SoftCoupling } from './coupling.ts';

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

/**
 * The soft stage's throughput in a whole-world benchmark (src/bench/harness.ts):
 * per measured step, the samples the stage sends to the penetration query
 * (path samples and located points) against the time of its query call, and
 * the particle updates of its solver (particles x substeps) against the time
 * of the soft system's step.
 */
export interface SoftStageBench {
  particles: number;
  springs: number;
  substeps: number;
  /** Samples sent per step and per second of query time. */
  samplesPerStep: number;
  samplesPerSecond: number;
  /** Particle updates (particles x substeps) per second of solver time, and particle-steps per second of the whole stage. */
  particleUpdatesPerSecond: number;
  particleStepsPerSecond: number;
  /** Mean ms per step: query call, solver, the whole stage. */
  queryMs: number;
  solveMs: number;
  stageMs: number;
}

/**
 * The soft bodies' kinetic energy after the last step of `world` (0 without
 * soft bodies): the benchmark's phases (bench/harness.ts, classifyPhases)
 * read it beside the rigid bodies', so that blobs dropped onto pegs land and
 * settle there instead of counting as falling for the whole run.
 */
export function softKineticEnergy(world: World): number {
  const soft = world.soft;
  return soft instanceof SoftCoupling ? soft.kineticEnergy() : 0;
}

/** The soft contacts (against rigid bodies or between soft bodies) that acted in the last step of `world` (0 without soft bodies). */
export function softContacts(world: World): number {
  const soft = world.soft;
  return soft instanceof SoftCoupling ? soft.stats.active : 0;
}

export class SoftBenchCounter {
  private steps = 0;
  private samples = 0;
  private queryMs = 0;
  private solveMs = 0;
  private stageMs = 0;
  private updates = 0;
  private particles = 0;
  private springs = 0;
  private substeps = 0;

  /** Counts the last step of `world` (nothing when it has no soft bodies). */
  add(world: World): void {
    const soft = world.soft;
    if (!(soft instanceof SoftCoupling)) return;
    const st = soft.stats;
    this.steps++;
    this.samples += st.samples + st.probes;
    this.queryMs += st.queryMs;
    this.solveMs += st.solveMs;
    this.stageMs += world.profile.ms.soft;
    this.updates += soft.system.particleCount * st.substeps;
    this.particles = soft.system.particleCount;
    this.springs = soft.system.springCount;
    this.substeps = st.substeps;
  }

  result(): SoftStageBench | null {
    if (this.steps === 0) return null;
    const n = this.steps;
    return {
      particles: this.particles,
      springs: this.springs,
      substeps: this.substeps,
      samplesPerStep: this.samples / n,
      samplesPerSecond: this.queryMs > 0 ? this.samples / (this.queryMs / 1000) : 0,
      particleUpdatesPerSecond: this.solveMs > 0 ? this.updates / (this.solveMs / 1000) : 0,
      particleStepsPerSecond: this.stageMs > 0 ? (this.particles * n) / (this.stageMs / 1000) : 0,
      queryMs: this.queryMs / n,
      solveMs: this.solveMs / n,
      stageMs: this.stageMs / n,
    };
  }
}

/** One line for the benchmark table. */
export function formatSoftBench(s: SoftStageBench): string {
  const m = (x: number) => `${(x / 1e6).toFixed(2)} M`;
  return (
    `  soft: ${s.particles} particles, ${s.springs} springs, ${s.substeps} substeps; stage ${s.stageMs.toFixed(2)} ms/step ` +
    `(query ${s.queryMs.toFixed(2)}, solver ${s.solveMs.toFixed(2)}); query ${m(s.samplesPerSecond)} samples/s (${s.samplesPerStep.toFixed(0)}/step); ` +
    `solver ${m(s.particleUpdatesPerSecond)} particle updates/s; ${m(s.particleStepsPerSecond)} particle steps/s`
  );
}
