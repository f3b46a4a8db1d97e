/**
 * The engine's solver settings. The scene layer (src/scene/validate.ts) fills
 * them from a file's "solver" object, with its defaults; code that builds a
 * World by hand passes them directly.
 */
export interface SolverSettings {
  /** "separated": collisions, velocity update, contacts (seed ch. 5-6); "standard": the old scheme (4.1). */
  scheme: 'separated' | 'standard';
  /**
   * "sequential": the seed's contact iterations and shock propagation;
   * "accumulated": contacts kept across steps, warm-started, in 12
   * substeps with a split-impulse push-out (accumulatedSolver.ts,
   * docs/ALGORITHM.md 4.6; box heaps and ring piles come to rest under it);
   * "pgs": projected Gauss-Seidel (pgs.ts).
   */
  contactSolver: 'sequential' | 'accumulated' | 'pgs';
  /**
   * Where the contact phase takes a touching pair's points, normals and
   * depths: "current", the default (where the pair touches now, the rest of
   * its points at the predicted poses; narrowphase.ts; pairs with a static
   * body only), or "predicted" (the seed: at x' = x + dt v). "current" keeps
   * a ball swinging in a bowl (the predicted normal on a curved support is a
   * drag: docs/DESIGN.md 4).
   */
  contactPose: 'predicted' | 'current';
  collisionIterations: number;
  /** Contact passes per step; PGS: the most sweeps (pgsErrMax may stop it earlier). */
  contactIterations: number;
  /**
   * PGS convergence tolerance (seed 002's errMax), m/s: the sweeps stop once
   * one changed no row's relative velocity by more than this (|delta lambda|
   * times the row's inverse effective mass); 0: always contactIterations sweeps.
   */
  pgsErrMax: number;
  /** PGS Baumgarte factor of the split-impulse position correction: the fraction of the depth beyond the slop removed per step (0 .. 1). */
  pgsBeta: number;
  /** PGS penetration slop, in SDF cells of the pair: depth left uncorrected (keeps resting contacts touching). */
  pgsSlop: number;
  jointIterations: number;
  /** Order contact pairs by contact-graph level (4.5); off: one level. */
  contactGraph: boolean;
  /** The extra level-by-level pass with lower levels frozen (needs contactGraph). */
  shockPropagation: boolean;
  /** Interior collision samples per mesh edge, the most (used when shapes are built). */
  edgeSamples: number;
  /**
   * SDF cells of its shape that an edge's samples may lie apart (used when
   * shapes are built): an edge gets only the interior samples, up to
   * edgeSamples, that keep them this close; 0: every edge gets edgeSamples.
   */
  edgeSpacing: number;
  /**
   * Continuous collision: a pair whose relative motion in a step exceeds the
   * half thickness of its thinner body is swept along the motion, so fast
   * bodies do not tunnel through thin ones (narrowphase.ts).
   */
  ccd: boolean;
  /**
   * Joint position pre-stabilisation (seed ch. 10, fig. 24): close each
   * joint's predicted gap before positions advance. Off, the gaps are closed
   * after the position step instead (JointSystem.postStabilize), which pulls
   * jointed bodies into what they touch (the seed's comparison).
   */
  jointPrestabilization: boolean;
  /**
   * Islands of bodies that stay slow for half a second fall asleep and cost
   * nothing until something touches them (islands.ts). The scene file's
   * top-level "sleep".
   */
  sleep: boolean;
}
