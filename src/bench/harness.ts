/**
 * The benchmark, shared by `stackfield bench` (Node) and bench.html (browser):
 * per backend, SDF bake time of the scene's shapes, then whole steps with the
 * per-stage profile, after a warm-up that is not counted.
 *
 * GPU phases are wall-clock around submit + readback; where the adapter has
 * timestamp queries the dispatches' own GPU time is reported too
 * (gpuQueryMs, timing "timestamp"). On this project's CI the GPU is
 * SwiftShader (a CPU emulation), so its times say nothing about real
 * hardware; CPU times are real.
 *
 * Samples mean the same on every backend that gives a number: *sent* (every
 * sample of each task, before any cull: the work asked of the backend,
 * counted alike on the CPU and the GPU) and *evaluated after the culls*
 * (those whose field value was computed), which only the CPU counts; the
 * GPU's is null ("n/a" in the table and on the page), never its dispatch
 * count set beside the CPU's evaluated samples.
 *
 * What a reader takes away is benchSummary's: backends compared by the mean
 * step (the run's total over its steps), medians beside it; the CPU's thread
 * count; a software GPU adapter named as one; and a warning when the measured
 * steps had no contact or were nearly all one phase of the drop. The CLI
 * table and bench.html print the same lines.
 */
import { validateScene } from '../scene/validate.ts';
import { builtinScene } from '../scene/builtins.ts';
import { createWorld } from '../scene/build.ts';
import { buildStageText, finishShape, startShape, type BuildLimits, type BuildProgress, type BuildStage, type UnbakedShape } from '../scene/shapeBuild.ts';
import { quote } from '../util/echo.ts';
import { createBackend } from '../backends.ts';
import type { BackendKind } from '../collision/query.ts';
import type { SceneDesc } from '../scene/types.ts';
import { STAGES, type Stage } from '../dynamics/profile.ts';
import type { World } from '../dynamics/world.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import { triangleCount } from '../geometry/mesh.ts';
import { nodeCount } from '../sdf/grid.ts';
import { formatSoftBench, SoftBenchCounter, softContacts, softKineticEnergy, type SoftStageBench } from '../soft/bench.ts';

export interface Stats {
  median: number;
  p95: number;
  mean: number;
  max: number;
  samples: number;
}

/** The three phases of a drop, read from the state (classifyPhases). */
export type Phase = 'falling' | 'landing' | 'settled';
export const PHASES: readonly Phase[] = ['falling', 'landing', 'settled'];

/** Steps [from, to) of one phase, with their simulated times. */
export interface PhaseSpan {
  from: number;
  to: number;
}

/**
 * The phases of a run from per-step kinetic energy and contact counts:
 * *falling* until the first step with a contact, *landing* from there until
 * the kinetic energy stays below 1 % of its peak for the rest of the run,
 * *settled* after that (the seed's "when the bodies are stacked"). A run
 * that never touches is all falling; one that never calms down has no
 * settled phase.
 */
export function classifyPhases(energy: readonly number[], contacts: readonly number[]): Record<Phase, PhaseSpan> {
  const n = energy.length;
  let peak = 0;
  for (const e of energy) if (e > peak) peak = e;
  let landed = contacts.findIndex((c) => c > 0);
  if (landed < 0) landed = n;
  let settled = n;
  while (settled > landed && energy[settled - 1]! < 0.01 * peak) settled--;
  return { falling: { from: 0, to: landed }, landing: { from: landed, to: settled }, settled: { from: settled, to: n } };
}

/** One phase of the measured steps: where it lies and what its steps cost. */
export interface WindowResult {
  /** Steps [fromStep, toStep) of the run (warm-up steps included in the count), and the same in simulated seconds. */
  fromStep: number;
  toStep: number;
  fromS: number;
  toS: number;
  /** Measured (not warm-up) steps in the window. */
  steps: number;
  /** Where the measured steps of the window lie, in simulated seconds (the phase less the warm-up; absent in older JSON). */
  measuredFromS?: number;
  measuredToS?: number;
  stepMs: Stats;
  queryMs: Stats;
  /** Mean per step over the window. */
  queryCallsPerStep: number;
  /** The most query calls one step of the window made. */
  maxQueryCalls: number;
  /** Samples evaluated after the culls per step (BackendResult.samplesEvaluatedPerStep; null where not counted). */
  samplesEvaluatedPerStep: number | null;
  awakePerStep: number;
}

export interface BackendResult {
  backend: BackendKind;
  adapter: string;
  /** A GPU backend on a software adapter (SwiftShader, llvmpipe, WARP): WebGPU emulated on the CPU. */
  software: boolean;
  /** Threads the queries ran on (the CPU worker pool, main thread included; 1 on the GPU). */
  threads: number;
  /** 'timestamp' when the GPU query time also comes from timestamp queries (gpuQueryMs). */
  timing: 'wall' | 'timestamp';
  /** GPU execution time of the query dispatches per step that dispatched (timestamp queries), when available. */
  gpuQueryMs: Stats | null;
  /** Wall time of the backend's query calls per step (StepProfile.backendMs): on a GPU, dispatch and round trip; the rest of queryMs is host work. */
  backendMs: Stats;
  sdfBakeMs: Stats;
  /** Grid nodes baked per second (all shapes of the scene). */
  bakeNodesPerSecond: number;
  queryMs: Stats;
  stepMs: Stats;
  stages: Record<Stage, Stats>;
  /**
   * Samples evaluated after the culls (samplesEvaluatedPerStep) per second
   * of query-stage time; null where the backend does not count them.
   */
  queriesPerSecond: number | null;
  /** Samples sent to the backend per second of query-stage time: the same work asked of every backend. */
  samplesSentPerSecond: number;
  /** Samples sent to the backend per step (every sample of each task, before the culls), counted alike on every backend. */
  queriesPerStep: number;
  /**
   * Samples whose field value was computed after every cull, per step;
   * null where the backend does not count them (PenetrationBackend.countsEvaluated:
   * the GPU's shader culls without counting, and what it does count, the
   * samples it dispatches, is another quantity).
   */
  samplesEvaluatedPerStep: number | null;
  queryCallsPerStep: number;
  /** The most query calls one measured step made. */
  maxQueryCalls: number;
  /** Sweeps of shock propagation per step, summed over its levels (StepProfile.shockSweeps). */
  shockSweepsPerStep: number;
  /** PGS velocity sweeps per step (StepProfile.pgsSweeps; 0 under the other contact solvers). */
  pgsIterationsPerStep: number;
  /** GPU submissions, readbacks and bytes read back / written by the queries, per step (0 on the CPU). */
  submitsPerStep: number;
  readbacksPerStep: number;
  /** The most buffer readbacks one measured step made (0 on the CPU). */
  maxReadbacks: number;
  bytesReadBackPerStep: number;
  bytesWrittenPerStep: number;
  /** Penetrating contact points between rigid bodies per step (StepProfile.contacts). */
  contactsPerStep: number;
  /** Measured steps with at least one contact: a rigid contact point, or a soft body's contact that acted. */
  stepsWithContacts: number;
  pairsPerStep: number;
  /** Dynamic bodies awake / asleep per step (means). */
  awakePerStep: number;
  asleepPerStep: number;
  /** When the run's dynamic bodies came to rest (sleepOf; warm-up steps included). */
  sleep: SleepResult;
  /** The measured steps split into the phases of the drop (classifyPhases). */
  windows: Record<Phase, WindowResult>;
  /**
   * Garbage collection over the measured steps, per step: the engine's
   * pauses (ms, and how many), in whatever stage they fell; null where the
   * environment cannot tell (BenchEnv.gc). A backend's own allocations (Node's
   * Dawn polling the event loop while a readback is pending) show here.
   */
  gcPerStep?: { ms: number; pauses: number } | null;
  /** Time step of the scene (s). */
  dt: number;
  /** The soft stage's throughput, when the scene has soft bodies. */
  soft: SoftStageBench | null;
}

/** When a run's dynamic (rigid) bodies came to rest. */
export interface SleepResult {
  /** Scene time (s) at the end of the step from which every dynamic body stayed asleep to the run's end; null when one was awake after the last step. */
  allAsleepFromS: number | null;
  /** Dynamic bodies asleep, and all dynamic bodies, after the last step. */
  asleepAtEnd: number;
  dynamic: number;
}

/**
 * SleepResult from the awake count after every step of a run (warm-up
 * included, the first entry after step 1), the asleep count after the last,
 * and the time step.
 */
export function sleepOf(awakeAfter: readonly number[], asleepAtEnd: number, dt: number): SleepResult {
  const n = awakeAfter.length;
  const dynamic = n > 0 ? awakeAfter[n - 1]! + asleepAtEnd : 0;
  let j = n;
  while (j > 0 && awakeAfter[j - 1] === 0) j--;
  return { allAsleepFromS: dynamic > 0 && j < n ? (j + 1) * dt : null, asleepAtEnd, dynamic };
}

export interface BenchResults {
  scene: string;
  params: Record<string, number>;
  bodies: number;
  shapes: { name: string; triangles: number; nodes: number }[];
  steps: number;
  warmup: number;
  /**
   * Steps of the same scene run on a discarded copy of the world before the
   * measured one is built (BenchOptions.warmCode; 0: the code starts cold).
   */
  warmCodeSteps: number;
  /** The contact solver the scene ran with ("sequential", "pgs" or "accumulated"; absent in older results). */
  contactSolver: string;
  date: string;
  platform: string;
  results: BackendResult[];
}

/**
 * Measured steps when none are asked for (`stackfield bench`, bench.html):
 * 3 s at 100 Hz, so that a scene dropped from a few metres is measured
 * falling, landing and settled, not only in free flight.
 */
export const DEFAULT_BENCH_STEPS = 300;

export interface BenchOptions {
  /** A built-in name, or a validated scene. */
  scene: string | SceneDesc;
  params?: Record<string, number>;
  steps: number;
  warmup?: number;
  /**
   * Steps run on a discarded copy of the scene (same backend) before the
   * measured world is built, so the JavaScript engine has compiled the
   * step's code when measurement starts, while the measured world still
   * starts at step 0 (a warm-up on the measured world itself skips its
   * landing). Default 0: the first measured steps carry the compilation.
   */
  warmCode?: number;
  /** Repeats of the SDF bake. */
  bakeRepeats?: number;
  backends: BackendKind[];
  /** Threads for the CPU queries (createBackend; default 1). */
  threads?: number;
  /** The most a shape may cost, and how a refusal says to raise it (SceneIo.limits; default BUILD_LIMITS). */
  limits?: BuildLimits;
}

export interface BenchEnv {
  readText(path: string): Promise<string>;
  platform: string;
  /**
   * Milliseconds the JavaScript engine has paused for garbage collection so
   * far, and the pauses (the CLI: Node's 'gc' performance entries); absent
   * where the engine does not say (a page).
   */
  gc?: () => { ms: number; pauses: number };
}

/** Median, p95 (nearest rank) and mean; sorts a copy numerically. */
export function stats(xs: readonly number[]): Stats {
  if (xs.length === 0) return { median: NaN, p95: NaN, mean: NaN, max: NaN, samples: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : 0.5 * (s[mid - 1]! + s[mid]!);
  return { median, p95: at(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length, max: s[s.length - 1]!, samples: s.length };
}

const yieldToUi = () => new Promise<void>((r) => setTimeout(r, 0));

export async function runBenchmark(opts: BenchOptions, env: BenchEnv, onProgress?: (fraction: number, message: string) => void): Promise<BenchResults> {
  const params = opts.params ?? {};
  const scene = typeof opts.scene === 'string' ? validateScene(builtinScene(opts.scene, params), `<builtin:${opts.scene}>`) : opts.scene;
  const name = typeof opts.scene === 'string' ? opts.scene : scene.file;
  const warmup = opts.warmup ?? Math.min(20, Math.max(2, Math.floor(opts.steps / 10)));
  const repeats = opts.bakeRepeats ?? 3;
  const warmCode = opts.warmCode ?? 0;
  const limits = opts.limits ? { limits: opts.limits } : {};
  const results: BackendResult[] = [];
  const shapeInfo: BenchResults['shapes'] = [];
  const totalWork = opts.backends.length * (repeats + warmCode + warmup + opts.steps);
  let done = 0;
  const progress = (msg: string) => onProgress?.(Math.min(1, done / totalWork), msg);

  for (const kind of opts.backends) {
    progress(`${kind}: starting`);
    const backend = await createBackend(kind, { threads: opts.threads ?? 1 });
    // A big mesh's parsing, checks and analysis report no progress of their own: name each as it starts.
    const stage = (p: BuildStage) => progress(`${kind}: ${buildStageText(p)}`);
    // The worlds' own bakes (the CPU's report their progress).
    const baking = (p: BuildProgress) => progress(`${kind}: shape ${p.index + 1} of ${p.count} (${quote(p.shape)}), SDF ${Math.round(100 * p.fraction)}%`);
    try {
      // 1. SDF bake of every shape the bodies use, all in one batch (as
      // createWorld bakes them: one submission on the GPU).
      const used = [...new Set(scene.bodies.map((b) => b.shape))];
      const bakeTimes: number[] = [];
      let nodes = 0;
      for (let r = 0; r < repeats; r++) {
        const io = { readText: env.readText, stage, ...limits };
        const started: UnbakedShape[] = [];
        // Planes, and spheres, capsules and cylinders (their solids' exact fields: nothing to bake).
        const finished: RigidShape[] = [];
        for (const [index, sname] of used.entries()) {
          const s = await startShape(sname, scene.shapes[sname]!, scene, io, { index, count: used.length });
          if ('job' in s) started.push(s);
          else finished.push(s);
        }
        progress(`${kind}: SDF bake ${r + 1}/${repeats}, baking`);
        const t0 = performance.now();
        const grids = started.length > 0 ? await backend.bakeAll(started.map((u) => u.job)) : [];
        const ms = performance.now() - t0;
        nodes = 0;
        const baked = started.map((u, i) => finishShape(u, grids[i]!));
        for (const shape of baked) nodes += shape.sdf ? nodeCount(shape.sdf) : 0;
        for (const shape of [...baked, ...finished.filter((s) => s.sdf)]) {
          if (r === 0 && results.length === 0) {
            shapeInfo.push({ name: shape.name, triangles: triangleCount(shape.mesh), nodes: shape.sdf ? nodeCount(shape.sdf) : 0 });
          }
        }
        bakeTimes.push(ms);
        done++;
        progress(`${kind}: SDF bake ${r + 1}/${repeats}`);
        await yieldToUi();
      }
      // 2. Steps, with every query worker started (and the code warmed on a copy if asked).
      await backend.ready();
      if (warmCode > 0) {
        const copy = await createWorld(scene, backend.query, { readText: env.readText, bake: backend.bake, bakeAll: backend.bakeAll, stage, progress: baking, ...limits });
        for (let i = 0; i < warmCode; i++) {
          await copy.step();
          done++;
          if (i % 5 === 0) {
            progress(`${kind}: warming the code on a copy, step ${i + 1}/${warmCode}`);
            await yieldToUi();
          }
        }
      }
      const world = await createWorld(scene, backend.query, { readText: env.readText, bake: backend.bake, bakeAll: backend.bakeAll, stage, progress: baking, ...limits });
      let gcFrom: { ms: number; pauses: number } | null = null;
      const m = await runSteps(world, warmup, opts.steps, () => {
        done++;
      }, () => {
        if (env.gc) gcFrom = env.gc();
      }, async (i) => {
        if (i % 5 === 0) {
          progress(`${kind}: step ${i + 1}/${warmup + opts.steps}${i < warmup ? ' (warm-up)' : ''}`);
          await yieldToUi();
        }
      });
      const bakeStats = stats(bakeTimes);
      const counted = backend.query.countsEvaluated === true;
      results.push({
        backend: kind,
        adapter: backend.description,
        software: backend.software,
        threads: backend.threads,
        timing: m.gpuQueryMs.length > 0 ? 'timestamp' : 'wall',
        gpuQueryMs: m.gpuQueryMs.length > 0 ? stats(m.gpuQueryMs) : null,
        backendMs: stats(m.backendMs),
        sdfBakeMs: bakeStats,
        bakeNodesPerSecond: bakeStats.median > 0 ? nodes / (bakeStats.median / 1000) : 0,
        queryMs: stats(m.queryMs),
        stepMs: stats(m.stepMs),
        stages: Object.fromEntries(STAGES.map((st) => [st, stats(m.stageMs[st])])) as Record<Stage, Stats>,
        queriesPerSecond: !counted ? null : m.queryTotalMs > 0 ? sum(m.evaluated) / (m.queryTotalMs / 1000) : 0,
        samplesSentPerSecond: m.queryTotalMs > 0 ? sum(m.sent) / (m.queryTotalMs / 1000) : 0,
        queriesPerStep: mean(m.sent),
        samplesEvaluatedPerStep: counted ? mean(m.evaluated) : null,
        queryCallsPerStep: mean(m.calls),
        maxQueryCalls: most(m.calls),
        shockSweepsPerStep: mean(m.shockSweeps),
        pgsIterationsPerStep: mean(m.pgsSweeps),
        submitsPerStep: mean(m.submits),
        readbacksPerStep: mean(m.readbacks),
        maxReadbacks: most(m.readbacks),
        bytesReadBackPerStep: mean(m.bytesRead),
        bytesWrittenPerStep: mean(m.bytesWritten),
        contactsPerStep: mean(m.contacts),
        stepsWithContacts: m.contactsAll.slice(warmup).filter((c) => c > 0).length,
        pairsPerStep: mean(m.pairs),
        awakePerStep: mean(m.awake),
        asleepPerStep: mean(m.asleep),
        sleep: sleepOf(m.awakeAll, world.profile.asleep, world.dt),
        windows: windowsOf(m, warmup, world.dt, counted),
        dt: world.dt,
        soft: m.soft.result(),
        gcPerStep: gcOver(gcFrom, env, opts.steps),
      });
    } finally {
      backend.destroy();
    }
  }
  progress('done');
  return {
    scene: name,
    params,
    bodies: scene.bodies.length,
    shapes: shapeInfo,
    steps: opts.steps,
    warmup,
    warmCodeSteps: warmCode,
    contactSolver: scene.solver.contactSolver,
    date: new Date().toISOString(),
    platform: env.platform,
    results,
  };
}

/** The pauses since `from` (taken before the first measured step), per measured step. */
function gcOver(from: { ms: number; pauses: number } | null, env: BenchEnv, steps: number): { ms: number; pauses: number } | null {
  if (!from || !env.gc || steps <= 0) return null;
  const to = env.gc();
  return { ms: (to.ms - from.ms) / steps, pauses: (to.pauses - from.pauses) / steps };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: readonly number[]) => (xs.length ? sum(xs) / xs.length : 0);
/** The largest of counts (0 for none). */
const most = (xs: readonly number[]) => xs.reduce((a, x) => Math.max(a, x), 0);

/** Per measured step: what the profile said, plus the state the phases are read from (all steps). */
interface StepSeries {
  stepMs: number[];
  queryMs: number[];
  gpuQueryMs: number[];
  backendMs: number[];
  stageMs: Record<Stage, number[]>;
  sent: number[];
  evaluated: number[];
  calls: number[];
  shockSweeps: number[];
  pgsSweeps: number[];
  submits: number[];
  readbacks: number[];
  bytesRead: number[];
  bytesWritten: number[];
  contacts: number[];
  pairs: number[];
  awake: number[];
  asleep: number[];
  queryTotalMs: number;
  /**
   * Kinetic energy (rigid and soft bodies), contacts (rigid, and the soft
   * contacts that acted) and awake dynamic bodies after every step, warm-up
   * included: the phases of a drop (classifyPhases).
   */
  energyAll: number[];
  contactsAll: number[];
  awakeAll: number[];
  soft: SoftBenchCounter;
}

/** Runs warm-up + measured steps of `world`, recording the profile of the measured ones. */
async function runSteps(world: World, warmup: number, steps: number, onStep: () => void, onMeasured: () => void,
  onEvery: (i: number) => Promise<void>): Promise<StepSeries> {
  const m: StepSeries = {
    stepMs: [], queryMs: [], gpuQueryMs: [], backendMs: [], stageMs: Object.fromEntries(STAGES.map((st) => [st, [] as number[]])) as Record<Stage, number[]>,
    sent: [], evaluated: [], calls: [], shockSweeps: [], pgsSweeps: [], submits: [], readbacks: [], bytesRead: [], bytesWritten: [], contacts: [], pairs: [], awake: [], asleep: [],
    queryTotalMs: 0, energyAll: [], contactsAll: [], awakeAll: [], soft: new SoftBenchCounter(),
  };
  for (let i = 0; i < warmup + steps; i++) {
    if (i === warmup) onMeasured();
    await world.step();
    onStep();
    const p = world.profile;
    const touching = p.contacts + softContacts(world);
    m.energyAll.push(world.kineticEnergy() + softKineticEnergy(world));
    m.contactsAll.push(touching);
    m.awakeAll.push(p.awake);
    if (i >= warmup) {
      m.stepMs.push(p.totalMs);
      const q = p.ms.collisionQuery + p.ms.contactQuery;
      m.queryMs.push(q);
      m.queryTotalMs += q;
      if (p.gpuQueryMs > 0) m.gpuQueryMs.push(p.gpuQueryMs);
      m.backendMs.push(p.backendMs);
      for (const st of STAGES) m.stageMs[st].push(p.ms[st]);
      m.sent.push(p.queries);
      m.evaluated.push(p.samplesEvaluated);
      m.calls.push(p.queryCalls);
      m.shockSweeps.push(p.shockSweeps);
      m.pgsSweeps.push(p.pgsSweeps);
      m.submits.push(p.submits);
      m.readbacks.push(p.readbacks);
      m.bytesRead.push(p.bytesRead);
      m.bytesWritten.push(p.bytesWritten);
      m.contacts.push(p.contacts);
      m.pairs.push(p.pairs);
      m.awake.push(p.awake);
      m.asleep.push(p.asleep);
      m.soft.add(world);
    }
    await onEvery(i);
  }
  return m;
}

/** The measured steps split by phase (phases read from every step, warm-up included); `counted`: the backend counts evaluated samples. */
function windowsOf(m: StepSeries, warmup: number, dt: number, counted: boolean): Record<Phase, WindowResult> {
  const spans = classifyPhases(m.energyAll, m.contactsAll);
  const out = {} as Record<Phase, WindowResult>;
  for (const ph of PHASES) {
    const { from, to } = spans[ph];
    // Measured steps are warmup.. ; index j of the series is step warmup + j.
    const a = Math.max(0, from - warmup), b = Math.max(0, to - warmup);
    const pick = (xs: number[]) => xs.slice(a, b);
    out[ph] = {
      fromStep: from,
      toStep: to,
      fromS: from * dt,
      toS: to * dt,
      steps: Math.max(0, b - a),
      measuredFromS: (warmup + a) * dt,
      measuredToS: (warmup + b) * dt,
      stepMs: stats(pick(m.stepMs)),
      queryMs: stats(pick(m.queryMs)),
      queryCallsPerStep: mean(pick(m.calls)),
      maxQueryCalls: most(pick(m.calls)),
      samplesEvaluatedPerStep: counted ? mean(pick(m.evaluated)) : null,
      awakePerStep: mean(pick(m.awake)),
    };
  }
  return out;
}

/** A time in ms as the table writes it. */
export function fmtMs(x: number): string {
  return Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '-';
}

/** "1 thread (the main thread)", "4 threads (the main thread and 3 workers)". */
export function threadText(threads: number): string {
  return threads <= 1 ? '1 thread (the main thread)' : `${threads} threads (the main thread and ${threads - 1} worker${threads === 2 ? '' : 's'})`;
}

/** The share of the measured steps in one phase from which the summary says the run was mostly that phase. */
const MOSTLY = 0.8;

/** Which backend is faster, and by how much, from two times (larger / smaller). */
function faster(a: { name: string; ms: number }, b: { name: string; ms: number }): { name: string; ratio: number } | null {
  if (!(a.ms > 0 && b.ms > 0)) return null;
  return a.ms <= b.ms ? { name: a.name, ratio: b.ms / a.ms } : { name: b.name, ratio: a.ms / b.ms };
}

/**
 * What the run says, in sentences the CLI table and bench.html both print:
 * each backend's setup (the CPU's threads; the GPU adapter, named as
 * software when it is), the backends compared by the mean step with the
 * total and the medians beside it, and warnings when the measured steps had
 * no contact or were nearly all one phase of the drop.
 */
export function benchSummary(r: BenchResults): string[] {
  const lines: string[] = [];
  for (const x of r.results) {
    if (x.backend === 'cpu') lines.push(`CPU: the queries ran on ${threadText(x.threads)}.`);
    else {
      const adapter = x.adapter.replace(/^gpu \((.*)\)$/, '$1');
      lines.push(
        x.software
          ? `GPU: ${adapter} is a software adapter, WebGPU emulated on the CPU: its times say nothing about GPU hardware.`
          : `GPU: ${adapter}.`,
      );
    }
  }
  const cpu = r.results.find((x) => x.backend === 'cpu');
  const gpu = r.results.find((x) => x.backend === 'gpu');
  if (cpu && gpu) {
    const compare = (what: string, get: (x: BackendResult) => Stats) => {
      const c = get(cpu), g = get(gpu);
      const byMean = faster({ name: 'CPU', ms: c.mean }, { name: 'GPU', ms: g.mean });
      if (!byMean) return;
      const byMedian = faster({ name: 'CPU', ms: c.median }, { name: 'GPU', ms: g.median });
      const total = (st: Stats) => fmtMs(st.mean * st.samples);
      let line =
        `${what}: ${byMean.name} ${byMean.ratio.toFixed(2)}x faster by the mean, ` +
        `${fmtMs(c.mean)} ms (CPU) against ${fmtMs(g.mean)} ms (GPU) a step, ${total(c)} against ${total(g)} ms in all`;
      if (byMedian) {
        line += `; medians ${fmtMs(c.median)} against ${fmtMs(g.median)} ms`;
        if (byMedian.name !== byMean.name) line += ` (the median favours the ${byMedian.name}: a few slow steps make most of the ${byMean.name === 'CPU' ? 'GPU' : 'CPU'}'s total)`;
      }
      lines.push(`${line}.`);
    };
    compare('Whole step', (x) => x.stepMs);
    compare('Query phase', (x) => x.queryMs);
  }
  const first = r.results[0];
  if (first && r.steps > 0) {
    const n = r.steps;
    if (r.results.every((x) => x.stepsWithContacts === 0)) {
      lines.push(
        `No contact in the ${n} measured steps: they time bodies in free flight, not collisions or stacking ` +
          '(measure more steps, or warm up past the fall).',
      );
    } else {
      for (const ph of PHASES) {
        const w = first.windows[ph];
        if (w.steps === n) lines.push(`All ${n} measured steps were ${ph} (${measuredSpan(w)}): the figures describe that phase alone.`);
        else if (w.steps >= MOSTLY * n) {
          lines.push(`${w.steps} of the ${n} measured steps were ${ph} (${measuredSpan(w)}): the whole-step figures are mostly that phase (the phase rows split them).`);
        }
      }
    }
  }
  return lines;
}

/** The simulated time a phase's measured steps span ("0.20-2.20 s"; warm-up steps are not in it). */
export function measuredSpan(w: WindowResult): string {
  return `${(w.measuredFromS ?? w.fromS).toFixed(2)}-${(w.measuredToS ?? w.toS).toFixed(2)} s`;
}

/** Why a backend's samples evaluated after the culls are "n/a" (samplesEvaluatedPerStep null), in a few words. */
export function notCountedWhy(x: BackendResult): string {
  return x.backend === 'gpu' ? 'the GPU shader culls samples without counting them' : 'the backend does not count them';
}

/** A plain-text table of the results (the CLI prints it; the page shows the same numbers). */
export function formatTable(r: BenchResults): string {
  const f = fmtMs;
  const lines: string[] = [];
  const dt = r.results[0]?.dt;
  lines.push(`scene ${r.scene} ${JSON.stringify(r.params)}: ${r.bodies} bodies, ${r.steps} measured steps after ${r.warmup} warm-up steps (not counted)${r.warmCodeSteps ? `, code warmed on a discarded copy for ${r.warmCodeSteps} steps` : ''}${dt ? `, dt ${+dt.toPrecision(4)} s` : ''}${r.contactSolver ? `, ${r.contactSolver} contact solver` : ''}, ${r.platform}`);
  for (const s of r.shapes) lines.push(`  shape ${s.name}: ${s.triangles} triangles, ${s.nodes} SDF nodes`);
  for (const l of benchSummary(r)) lines.push(l);
  const head = ['phase (ms)', ...r.results.flatMap((x) => [`${x.backend} mean`, `${x.backend} median`, `${x.backend} p95`, `${x.backend} max`])];
  const rows: string[][] = [];
  const row = (label: string, get: (x: BackendResult) => { median: number; p95: number; max?: number; mean?: number }) =>
    rows.push([label, ...r.results.flatMap((x) => [f(get(x).mean ?? NaN), f(get(x).median), f(get(x).p95), f(get(x).max ?? NaN)])]);
  row('SDF bake (all shapes)', (x) => x.sdfBakeMs);
  row('query phase / step', (x) => x.queryMs);
  row('whole step (all measured steps)', (x) => x.stepMs);
  for (const ph of PHASES) {
    const w0 = r.results[0]?.windows[ph];
    if (!w0 || w0.steps === 0) continue;
    row(`  ${ph} (${measuredSpan(w0)}, ${w0.steps} step${w0.steps === 1 ? '' : 's'})`, (x) => x.windows[ph].stepMs);
  }
  // (JSON written before the figure existed has none.)
  if (r.results.every((x) => x.backendMs)) row('  backend query calls (wall)', (x) => x.backendMs);
  if (r.results.some((x) => x.gpuQueryMs)) row('  GPU query time (timestamps; steps that dispatched)', (x) => x.gpuQueryMs ?? { median: NaN, p95: NaN });
  for (const st of STAGES) {
    if (r.results.some((x) => x.stages[st].median > 0.0005 || x.stages[st].mean > 0.0005)) row(`  ${st}`, (x) => x.stages[st]);
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((rw) => rw[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  lines.push(fmt(head));
  lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const rw of rows) lines.push(fmt(rw));
  for (const x of r.results) {
    lines.push(
      `${x.backend} (${setupText(x.adapter)}, ${x.timing} time): ${f(x.queriesPerStep)} samples sent per step in ${f(x.queryCallsPerStep)} calls (at most ${x.maxQueryCalls} in a step), ` +
        `${(x.samplesSentPerSecond / 1e6).toFixed(2)} M sent per second of query time; ` +
        (x.samplesEvaluatedPerStep !== null
          ? `${f(x.samplesEvaluatedPerStep)} evaluated after the culls (${((x.queriesPerSecond ?? 0) / 1e6).toFixed(2)} M/s)`
          : `samples evaluated after the culls n/a (${notCountedWhy(x)})`) +
        (x.backend === 'gpu' ? `; ${f(x.submitsPerStep)} submits, ${f(x.readbacksPerStep)} readbacks (at most ${x.maxReadbacks}), ${f(x.bytesReadBackPerStep / 1024)} KiB read back per step` : '') +
        `; ${f(x.shockSweepsPerStep)} shock sweeps, ` +
        (x.pgsIterationsPerStep > 0 ? `${f(x.pgsIterationsPerStep)} PGS iterations, ` : '') +
        `${f(x.pairsPerStep)} pairs, ${f(x.contactsPerStep)} contacts/step (${x.stepsWithContacts} of ${r.steps} steps with any${x.soft ? ', the soft bodies\' included' : ''}), ${f(x.awakePerStep)} awake / ${f(x.asleepPerStep)} asleep, ` +
        `bake ${(x.bakeNodesPerSecond / 1e6).toFixed(2)} M nodes/s`,
    );
    const sl = x.sleep;
    if (sl && sl.dynamic > 0) {
      const end = ((r.warmup + r.steps) * x.dt).toFixed(2);
      lines.push(
        sl.allAsleepFromS !== null
          ? `${x.backend}: all ${sl.dynamic} dynamic bodies asleep from ${sl.allAsleepFromS.toFixed(2)} s to the end (${end} s)`
          : `${x.backend}: ${sl.asleepAtEnd} of ${sl.dynamic} dynamic bodies asleep at the end (${end} s)`,
      );
    }
    if (x.gcPerStep) lines.push(`${x.backend}: garbage collection ${f(x.gcPerStep.ms)} ms a step (${f(x.gcPerStep.pauses)} pauses), within the steps above`);
    if (x.soft) lines.push(formatSoftBench(x.soft));
  }
  return lines.join('\n');
}

/** A backend's setup for a report line: "one thread", "2 threads", or the GPU adapter (its description without the backend's name). */
function setupText(adapter: string): string {
  if (adapter === 'cpu') return 'one thread';
  return adapter.replace(/^cpu, /, '').replace(/^gpu \((.*)\)$/, '$1');
}
