/**
 * The narrow per-step context the stages share (Box2D's step context plays the
 * same part): where each body is predicted to be, how the solver sees its mass,
 * its contact-graph level, and a version that says when its prediction changed
 * outside a contact solve. World owns one and passes it to every stage; no
 * stage reaches into World itself.
 *
 * Per body i (sized to the body count in resize()):
 *   predPos[3i..]     predicted centre x' = x + h v (+ h dt g in the collision phase)
 *   predQuat[4i..]    predicted orientation
 *   predRot[9i..]     its rotation matrix (row-major)
 *   invMass[i]        inverse mass as the solver sees it: 0 for static bodies
 *                     and for levels frozen by shock propagation
 *   invInertia[9i..]  world inverse inertia at the current orientation (0 likewise)
 *   level[i]          contact-graph level (-1: static)
 *   version[i]        bumped whenever i's velocity changes (an impulse, a joint,
 *                     a motor, an edit): its predicted pose, and the contact
 *                     points of its pairs, are then out of date
 *   predVersion[i]    the version its predicted pose was computed for, in
 *   predPhase[i]      the phase (a predict stage) it was computed in
 *
 * Predictions are lazy: the predict stage computes every body's at the start
 * of a phase, and ensurePredicted(ctx, i) (predict.ts) recomputes one whose velocity changed
 * since, when a pair of it is evaluated again (narrowphase.ts).
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { BodyStore } from './bodies.ts';
import type { SolverSettings } from './settings.ts';
import type { RigidShape } from './shape.ts';

export class StepContext {
  dt = 0.01;
  gravity: Vec3 = [0, -9.81, 0];
  /** Simulation time at the start of the step. */
  time = 0;
  /**
   * Counts the steps this context has run, from 1 (never restored with a
   * state, unlike `time`): stamps that must mean "this step" compare to it.
   */
  serial = 0;
  settings: SolverSettings;
  count = 0;
  predPos = new Float64Array(0);
  predQuat = new Float64Array(0);
  predRot = new Float64Array(0);
  invMass = new Float64Array(0);
  invInertia = new Float64Array(0);
  level = new Int32Array(0);
  version = new Uint32Array(0);
  /** Pseudo velocities of the position correction (linear, angular; 3 per body): they move positions in integrate, then are cleared. */
  pseudoVel = new Float64Array(0);
  pseudoAngVel = new Float64Array(0);
  /**
   * Per body (3): for two balls struck where they touch within the step,
   * minus the time to the touch times the velocity the blow gave
   * (SequentialSolver.resolvePair): integratePositions adds it to the step's
   * move of a body that flies freely from the blow, which puts it on its
   * exact path, and clears it.
   */
  touchShift = new Float64Array(0);
  /** Per body (3): L - I_w(q) omega_m from the velocity update, so integrate can recover L plus the step's angular impulses (integrate.ts). */
  gyroCarry = new Float64Array(0);
  /**
   * Per body (3): the linear velocity it would have if only gravity acted on
   * it in this step, NaN where that is not tracked (the standard scheme, a
   * body asleep at the velocity update). integratePositions moves a body whose
   * velocity still equals it along the exact parabola (integrate.ts).
   */
  freeVel = new Float64Array(0);
  /**
   * Per body: 1 when something outside the step changed its velocity since
   * the last step (World.bodyEdited: a drag's pull, a throw, an edit). Such a
   * body's first step is not a free flight: the app's drag pushes it between
   * steps with what it should get during the step (its weight included).
   */
  edited = new Uint8Array(0);
  /**
   * Per body (3): the linear velocity at the step's start, from which the
   * seed's passes moved it smoothly (trapezoidCorrection, integrate.ts); NaN
   * after an impact in the collision phase (markImpacts) and where not
   * recorded (the other schemes and solvers).
   */
  smoothVel = new Float64Array(0);
  /**
   * Per body (3 each): the external linear and angular accelerations of the
   * step besides gravity (forces.ts: fields, point forces, drag), added
   * wherever gravity is; zero for a body nothing else acts on.
   */
  extAcc = new Float64Array(0);
  extAngAcc = new Float64Array(0);
  /** Bumped each time the contact graph assigns levels (so per-level buckets know to refresh). */
  levelStamp = 0;
  /** Bumped by each predict stage; with predH and predGravity, how predictions are made in this phase. */
  phase = 0;
  /** Prediction horizon of the phase (dt in the separated scheme, 0 in the standard one). */
  predH = 0;
  /** Whether the phase's predictions add h dt g (the collision phase, 6.1). */
  predGravity = false;
  predVersion = new Uint32Array(0);
  predPhase = new Int32Array(0);

  constructor(
    readonly bodies: BodyStore,
    readonly shapes: readonly RigidShape[],
    settings: SolverSettings,
  ) {
    this.settings = settings;
  }

  /** Sizes the per-body arrays for n bodies; returns true if they were reallocated. */
  resize(n: number): boolean {
    if (n === this.count && this.predPos.length === 3 * n) return false;
    this.count = n;
    this.predPos = new Float64Array(3 * n);
    this.predQuat = new Float64Array(4 * n);
    this.predRot = new Float64Array(9 * n);
    this.invMass = new Float64Array(n);
    this.invInertia = new Float64Array(9 * n);
    this.level = new Int32Array(n);
    this.version = new Uint32Array(n);
    this.predVersion = new Uint32Array(n);
    this.predPhase = new Int32Array(n).fill(-1);
    this.pseudoVel = new Float64Array(3 * n);
    this.pseudoAngVel = new Float64Array(3 * n);
    this.touchShift = new Float64Array(3 * n);
    this.gyroCarry = new Float64Array(3 * n);
    this.freeVel = new Float64Array(3 * n).fill(NaN);
    this.edited = new Uint8Array(n);
    this.smoothVel = new Float64Array(3 * n).fill(NaN);
    this.extAcc = new Float64Array(3 * n);
    this.extAngAcc = new Float64Array(3 * n);
    return true;
  }

  /**
   * Body i's velocity changed outside the contact solver (a joint impulse, a
   * motor, an edit): the pairs it is in must be queried again at its new
   * predicted pose instead of reusing cached contact points.
   */
  markMoved(i: number): void {
    this.version[i]++;
  }


  /** The shape of body i. */
  shapeOf(i: number): RigidShape {
    return this.shapes[this.bodies.shape[i]!]!;
  }
}
