/**
 * The contact phase's one interface (World.step's stages after the contact
 * graph): what World asks of whichever contact solver `solver.contactSolver`
 * names. World picks the solver once per step and calls, in order,
 *
 *   prepare(phase)    stage contactPrepare: rows or manifolds built from the
 *                     contact points, last step's impulses matched to them
 *   solve(phase)      stage contactSolve (and the solver's own later stages:
 *                     shock propagation, position correction; a query
 *                     between passes is booked as contactQuery)
 *   finish(phase)     stage contactStore: impulses kept for the next step
 *   (integrate)       World's position integration
 *   integrated(ctx)   stage pseudoPositions: position work a solver keeps
 *                     apart from integration
 *
 * Each method books its own stages into phase.profile (a solver with nothing
 * to do at a point books nothing); `stages` lists them in order
 * (profile.ts CONTACT_SOLVER_STAGES). Three implement it:
 *
 *   sequential   the seed's scheme (sequentialSolver.ts): contact passes
 *                with restitution -0.9 .. 0 level by level, shock
 *                propagation, split-impulse position correction; nothing
 *                to prepare or store (its patch cache lives with the pairs)
 *   pgs          projected Gauss-Seidel (pgs.ts): rows, warm start, velocity
 *                sweeps with the distance and rope joint rows (booked as
 *                joints), pseudo sweeps, the cache kept; its pseudo
 *                velocities move positions after integration
 *   accumulated  persistent, sub-stepped, warm-started (accumulatedSolver.ts):
 *                manifolds and store matching, the substeps (warm start,
 *                solve, relax, shock propagation in the last relax,
 *                restitution), the store kept
 *
 * No stage receives World: a solver sees the step context, the pairs, their
 * contact points and the joints (ContactPhase).
 */
import type { ConstraintSystem } from './constraints.ts';
import type { PairList } from './pairs.ts';
import type { StepProfile, Stage } from './profile.ts';
import type { ContactSet } from './contacts.ts';
import type { StepContext } from './stepContext.ts';

/** Where a contact solver gets a pair's current contact points (the narrow phase). */
export interface Contacts {
  readonly cur: ContactSet;
  /** Makes pair k's points in `cur` current. */
  ensure(ctx: StepContext, pairs: PairList, k: number): void;
  /** Makes pair k's points current at the present velocities, within a pass (NarrowPhase.update). */
  update(ctx: StepContext, pairs: PairList, k: number): void;
  /** Pair k's closest non-penetrating point within `reach`, into `near` (NarrowPhase.nearest). */
  nearest(ctx: StepContext, pairs: PairList, k: number, reach: number): boolean;
  readonly near: { gap: number; owner: number; other: number; nx: number; ny: number; nz: number };
}

/** What a contact solver works on during one step's contact phase. */
export interface ContactPhase {
  readonly ctx: StepContext;
  readonly pairs: PairList;
  /** The pairs' contact points (the narrow phase). */
  readonly contacts: Contacts;
  /** Contact-graph levels of this step (pairs.order holds the pairs sorted by level). */
  levels: number;
  /** Joints and motors, when the scene has any. */
  constraints: ConstraintSystem | null;
  readonly profile: StepProfile;
  /**
   * Brings the pairs whose bodies an impulse moved up to date (one batched
   * query for those past their limits), booked as contactQuery: the
   * sequential solver's start of each pass after the first.
   */
  requery(): Promise<void>;
}

export interface ContactSolver {
  /** The stages this solver books, in order. */
  readonly stages: readonly Stage[];
  prepare(phase: ContactPhase): void;
  solve(phase: ContactPhase): Promise<void>;
  finish(phase: ContactPhase): void;
  /** After World's position integration. */
  integrated(ctx: StepContext, profile: StepProfile): void;
  /**
   * Per pair of the last solve (PairList index), its deepest point's
   * separation as the solver left it, for sleeping (Islands), or null: the
   * islands read the raw contact points.
   */
  readonly pairDepth: Float64Array | null;
  /**
   * Depth, in cells of a pair's field, that this solver leaves uncorrected
   * at rest (its slop): sleeping reads a pair as crossed only beyond it
   * (Islands, when pairDepth is null).
   */
  restingSlop(ctx: StepContext): number;
  /**
   * In the separated scheme, the speed (m/s) above which a body this
   * solver's contacts accelerated smoothly moves by the trapezoid of its
   * velocities (integrate.ts trapezoidCorrection; 0: at any speed), or null:
   * the solver moves its bodies itself (the accumulated stage's substeps).
   */
  readonly trapezoidSpeed: number | null;
  /** Forgets what it carries from step to step (a restored state, a new backend). */
  reset(): void;
}
