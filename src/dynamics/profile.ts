/**
 * Per-stage timings of one step (docs/STYLE.md point 3). Each stage of
 * World.step() is bracketed by begin/end; the UI graphs them and `bench`
 * reports them.
 */
import type { QueryCounters } from '../collision/query.ts';
import type { SolverSettings } from './settings.ts';

/**
 * Every stage, in the order the separated scheme first books them (the
 * contact solvers' own stages interleaved where they run; stageOrder gives
 * one configuration's list). A stage may be booked again later in the step
 * (joints after each phase, a query between passes, predict and broadphase
 * when bodies woke), never first after one listed below it.
 */
export const STAGES = [
  /** The step's settings into the step context, impulses due now, external accelerations (forces.ts). */
  'forces',
  /** Islands a motor drives (or all, sleeping off) and those an awake body touches woken; solver masses for who woke. */
  'wake',
  'predict',
  'broadphase',
  'collisionQuery',
  'collisionSolve',
  'joints',
  'velocityUpdate',
  'soft',
  'contactQuery',
  'contactGraph',
  /** A contact solver's per-step setup: its rows or manifolds built, last step's impulses matched (ContactSolver.prepare). */
  'contactPrepare',
  'contactSolve',
  'shockPropagation',
  'positionCorrection',
  /** A contact solver's impulses kept for the next step's warm start (ContactSolver.finish). */
  'contactStore',
  'integrate',
  /** Positions moved by the pseudo velocities a solver keeps apart from integration (PGS's split impulse). */
  'pseudoPositions',
  'islands',
  /** The penetrating contact points of the step, for drawing (World.contacts). */
  'publishContacts',
] as const;

export type Stage = (typeof STAGES)[number];

type ContactSolverName = SolverSettings['contactSolver'];

/** The stages each contact solver books after the contact graph, in order (ContactSolver.stages). */
export const CONTACT_SOLVER_STAGES: Record<ContactSolverName, readonly Stage[]> = {
  sequential: ['contactSolve', 'shockPropagation', 'positionCorrection'],
  pgs: ['contactPrepare', 'contactSolve', 'positionCorrection', 'contactStore'],
  accumulated: ['contactPrepare', 'contactSolve', 'contactStore'],
};

/** Stages only some contact solvers book after integrate. */
const AFTER_INTEGRATE: Record<ContactSolverName, readonly Stage[]> = {
  sequential: [],
  pgs: ['pseudoPositions'],
  accumulated: [],
};

/**
 * The stages a step of this scheme and contact solver books, in the order
 * it first books each (tests/dynamics/stages.test.ts checks it against the
 * step). The standard scheme runs its velocity update (and the joints' velocity
 * pass) before the collision phase; a stage whose work a scene lacks (soft,
 * joints) is listed and simply not booked.
 */
export function stageOrder(scheme: SolverSettings['scheme'], contactSolver: ContactSolverName): Stage[] {
  const head: Stage[] = ['forces', 'wake'];
  const collide: Stage[] = ['predict', 'broadphase', 'collisionQuery', 'collisionSolve'];
  const middle: Stage[] =
    scheme === 'standard'
      ? [...head, 'velocityUpdate', 'joints', ...collide, 'soft']
      : [...head, ...collide, 'joints', 'velocityUpdate', 'soft'];
  return [...middle, 'contactQuery', 'contactGraph', ...CONTACT_SOLVER_STAGES[contactSolver], 'integrate', ...AFTER_INTEGRATE[contactSolver], 'islands', 'publishContacts'];
}

export class StepProfile {
  /** Milliseconds spent in each stage during the last step. */
  readonly ms: Record<Stage, number>;
  totalMs = 0;
  /** Candidate pairs (broad phase) and contact points (deepest points resolved) in the last step. */
  pairs = 0;
  contacts = 0;
  /** Samples sent to the query backend in the last step (every sample of each task, before culls). */
  queries = 0;
  /** Samples whose distance the backend actually computed (after its culls) in the last step. */
  samplesEvaluated = 0;
  /** Cached samples the narrow phase evaluated again (exactly, on the CPU) in the last step. */
  cacheEvaluations = 0;
  /** Pairs queried on their own in the middle of a pass (by the CPU twin) because they moved past their limits. */
  pairRequeries = 0;
  /** Query calls (one batched call per query round that had stale pairs) in the last step. */
  queryCalls = 0;
  /** Sweeps over a level's pairs that shock propagation ran in the last step, summed over its levels (each level at least one). */
  shockSweeps = 0;
  /** PGS velocity sweeps in the last step (solver.contactSolver "pgs"; at most contactIterations, fewer when pgsErrMax stops them). */
  pgsSweeps = 0;
  /** GPU command-buffer submissions, buffer readbacks, and bytes read back / written by the queries in the last step (0 on the CPU). */
  submits = 0;
  readbacks = 0;
  bytesRead = 0;
  bytesWritten = 0;
  /** GPU execution time of the query dispatches from timestamp queries (0 when unavailable). */
  gpuQueryMs = 0;
  /**
   * Wall time of the query backend's calls in the last step, within the
   * query stages: the CPU kernel, or the GPU's task upload, dispatch, wait
   * for the readback and record intake. The rest of the query stages is the
   * host's own work around them (cached evaluation, the cache, patches).
   */
  backendMs = 0;
  /** Dynamic bodies awake and asleep, and islands of the awake ones, after the last step. */
  awake = 0;
  asleep = 0;
  islands = 0;
  private t0 = 0;

  constructor() {
    this.ms = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  }

  reset(): void {
    for (const s of STAGES) this.ms[s] = 0;
    this.totalMs = 0;
    this.pairs = 0;
    this.contacts = 0;
    this.queries = 0;
    this.samplesEvaluated = 0;
    this.cacheEvaluations = 0;
    this.pairRequeries = 0;
    this.queryCalls = 0;
    this.shockSweeps = 0;
    this.pgsSweeps = 0;
    this.submits = 0;
    this.readbacks = 0;
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this.gpuQueryMs = 0;
    this.backendMs = 0;
  }

  /** Starts booking at `at` (performance.now() by default: World.step passes its own start). */
  begin(at = performance.now()): void {
    this.t0 = at;
  }

  /**
   * Adds the time since the last begin()/end() to `stage`. World.step calls
   * begin() once and then end() after each stage, so the stages partition
   * the step: every millisecond is booked to exactly one stage.
   */
  end(stage: Stage): number {
    const t = performance.now();
    this.ms[stage] += t - this.t0;
    this.t0 = t;
    return t;
  }
}

/** Books the difference of two counter snapshots (a step's queries) into the profile. */
export function bookQueryCounters(p: StepProfile, before: QueryCounters, after: QueryCounters): void {
  p.queryCalls = after.calls - before.calls;
  p.queries = after.samplesSent - before.samplesSent;
  p.samplesEvaluated = after.samplesEvaluated - before.samplesEvaluated;
  p.submits = after.submits - before.submits;
  p.readbacks = after.readbacks - before.readbacks;
  p.bytesRead = after.bytesRead - before.bytesRead;
  p.bytesWritten = after.bytesWritten - before.bytesWritten;
}
