/**
 * What joints and motors plug into the step (src/dynamics/joints/system.ts).
 * World.step calls these at the points of the hybrid step (docs/ALGORITHM.md 6):
 * after the collision phase (rope impacts, then velocities), after the velocity update, per contact-graph
 * level inside the contact passes, and after integration.
 */
import type { MotorSet } from './motors.ts';
import type { StepContext } from './stepContext.ts';

export interface ConstraintSystem {
  /** The motors, for run-time control (World.motor). */
  readonly motors?: MotorSet;
  /** Joined pairs that must not collide (a < b). */
  ignoresPair(a: number, b: number): boolean;
  /** Adds external torques/forces as velocity changes for this step (motors); true if any velocity changed. */
  applyForces(ctx: StepContext, dt: number): boolean;
  /**
   * At the collision phase: finds the ropes with restitution that go taut
   * within the step while their anchors separate; the velocity pass that
   * next finds such a rope taut reverses that speed, scaled by the restitution.
   */
  impacts?(ctx: StepContext): void;
  /**
   * The rows it hands to the PGS solve (contactSolver "pgs": distance and
   * rope joints), which then leave its own passes; null or absent: none.
   */
  readonly pgsRows?: PgsJointRows | null;
  /** Removes relative anchor velocities of every joint. */
  velocityStabilize(ctx: StepContext): void;
  /**
   * Position pre-stabilisation of the joints whose upper body is at contact
   * level `level` (level < 0: all joints), using predicted positions
   * x + dt v. Bodies with ctx.invMass 0 (static, or frozen by shock
   * propagation) are not moved.
   */
  positionStabilize(ctx: StepContext, level: number): void;
  /** Without pre-stabilisation (`jointPrestabilization` off): closes the joints' gaps at the advanced poses by moving the bodies. */
  postStabilize?(ctx: StepContext): void;
  /** Calls mark(i) for every body a joint holds (to another body or to a static one). */
  jointedBodies(mark: (i: number) => void): void;
  /** Joint edges for the contact graph: calls add(u, v) for bodies that must share levels. */
  graphEdges(ctx: StepContext, add: (u: number, v: number) => void): void;
  /** Calls keep(i) for every body that must stay awake now (an active motor's). */
  awakeBodies?(ctx: StepContext, keep: (i: number) => void): void;
  /** For drawing: world segments (6 numbers each) from body centres to joint anchors. */
  anchorSegments?(): Float64Array;
  /** For drawing: world segments (6 numbers each) from anchor A to anchor B of every rope and distance joint. */
  ropeSegments?(): Float64Array;
}

/**
 * Rows other than the contacts' that the PGS solve (pgs.ts) sweeps with them (the
 * distance and rope joints, joints/pgsRows.ts): built at the solve's start
 * (their warm start applied), one velocity sweep after each contact sweep,
 * their position targets set once the velocity sweeps are done (true if any
 * needs a pseudo velocity), one pseudo sweep after each contact pseudo sweep.
 */
export interface PgsJointRows {
  build(ctx: StepContext, warmStart: boolean): void;
  /**
   * One sweep; returns the largest velocity change a row made (m/s, as the
   * contact rows count it), which the solve's pgsErrMax stop takes in too.
   */
  sweep(ctx: StepContext): number;
  prepareBias(ctx: StepContext, beta: number): boolean;
  /** One pseudo sweep; returns its largest pseudo velocity change, as sweep. */
  pseudoSweep(ctx: StepContext, pv: Float64Array, pw: Float64Array): number;
  /** After the solve: marks the bodies the rows moved. */
  finish(ctx: StepContext): void;
  /** Forgets what the rows carry from step to step (warm start, pending rebounds). */
  reset?(): void;
}
