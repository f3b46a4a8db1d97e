/**
 * The simulation world and its time step.
 *
 * `step()` is the method as a list of stages, one call per line, each timed
 * into `profile` (src/dynamics/profile.ts: STAGES lists them in this order,
 * stageOrder per scheme and contact solver) and each a function of its own
 * module working on the step context (stepContext.ts), never on World:
 *
 *   forces             the step's settings; impulses due now; external      forces.ts
 *                      accelerations (fields, point forces, drag)
 *   wake               islands a motor drives woken (all, sleeping off);    islands.ts
 *                      solver masses                                          predict.ts
 *   predict            x' = x + dt (v + dt g), solver masses                 predict.ts
 *   broadphase         candidate pairs at the predicted poses                pairs.ts
 *   collisionQuery     contact points of every pair from its cached          narrowphase.ts
 *                      samples (one batched query for stale pairs); then
 *                      wake: sleeping bodies an awake one touches (if any
 *                      woke: predict, broadphase, collisionQuery again)
 *   collisionSolve     one impulse per patch, shuffled pairs,               sequentialSolver.ts
 *                      the pair's restitution                               (x collisionIterations)
 *   joints             rope impacts (restitution), velocity                 joints/system.ts
 *                      stabilisation
 *   velocityUpdate     v += dt g, gyroscopic term, motors                    integrate.ts
 *   joints             velocity stabilisation
 *   soft               soft bodies through the step (World.soft, a          src/soft/coupling.ts
 *                      StepHook given a StepHookInput; wake if it woke one)
 *   contactQuery       contacts at x' = x + dt v (then wake, as above)
 *   contactGraph       levels from the contacts                              levels.ts
 *   the contact solver solver.contactSolver names, through ContactSolver    contactSolver.ts
 *     contactPrepare     (pgs, accumulated) rows / manifolds, last step's impulses matched
 *     contactSolve       sequential: level by level, restitution -0.9 .. 0, sequentialSolver.ts
 *                        joints per level (x contactIterations, a
 *                        contactQuery between passes); pgs: warm start,    pgs.ts
 *                        velocity sweeps (its joint rows booked as joints);
 *                        accumulated: the substeps, restitution            accumulatedSolver.ts
 *     shockPropagation   (sequential) one more pass, lower levels frozen
 *     positionCorrection (sequential) split impulse on what is left of the
 *                        depths; (pgs) its pseudo sweeps
 *     contactStore       (pgs, accumulated) impulses kept for the next step;
 *                        joints: one position pass
 *   integrate          x += dt (v + pseudo v), q += dt/2 (omega, 0) q       integrate.ts
 *                      (free flight: x += dt (v + v') / 2, the parabola;
 *                      sequential, pgs: the same trapezoid from the step's start
 *                      for smooth changes, along the contacts' tangents)
 *   pseudoPositions    (pgs) positions moved by its pseudo velocities
 *   joints             velocity stabilisation
 *   islands            islands at rest fall asleep                           islands.ts
 *   publishContacts    the penetrating points, for drawing (World.contacts)
 *
 * (docs/ALGORITHM.md 4.2, seed ch. 5-6.) Every collision and contact iteration
 * predicts again and re-evaluates its pairs' cached samples at the new
 * poses (the seed's re-detection); only pairs that moved past their margin
 * go to the query backend. The standard scheme (4.1) is the same step with the
 * velocity update before the collision phase.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { PenetrationBackend } from '../collision/query.ts';
import { SimulationError } from '../errors.ts';
import { grown } from '../util/growable.ts';
import { quote } from '../util/echo.ts';
import { didYouMean, listChoices } from '../util/suggest.ts';
import { MotorHandle } from './motorHandle.ts';
import { applyImpulseAt, ForceSet } from './forces.ts';
import { BodyStore } from './bodies.ts';
import type { ConstraintSystem } from './constraints.ts';
import { forgetFreeVelocities, velocityUpdate, integratePositions, markImpacts, recordFreeVelocities, trapezoidCorrection } from './integrate.ts';
import { Islands } from './islands.ts';
import { ContactLevels } from './levels.ts';
import { quatToMat3, Rng } from './math.ts';
import { NarrowPhase } from './narrowphase.ts';
import { BroadPhase, PairList } from './pairs.ts';
import { PgsSolver } from './pgs.ts';
import { predictPoses, solverMasses } from './predict.ts';
import { bookQueryCounters, StepProfile, type Stage } from './profile.ts';
import type { QueryCounters } from '../collision/query.ts';
import { SequentialSolver } from './sequentialSolver.ts';
import { AccumulatedSolver, RESTITUTION_STEPS } from './accumulatedSolver.ts';
import type { SolverSettings } from './settings.ts';
import type { RigidShape } from './shape.ts';
import { sampleCount } from '../geometry/samples.ts';
import { StepContext } from './stepContext.ts';
import type { ContactPhase, ContactSolver } from './contactSolver.ts';
import { HookInput, type StepHook } from './stepHook.ts';

export type { ConstraintSystem } from './constraints.ts';
export type { StepHook, StepHookInput } from './stepHook.ts';

/** Contact points of the last step, for drawing (world frame). */
export interface ContactView {
  count: number;
  /** x, y, z per contact. */
  points: Float64Array;
  /** Unit normal per contact (pointing out of the body whose SDF was hit). */
  normals: Float64Array;
  /** Penetration depth per contact (m, > 0 inside) at the pose it was found. */
  depth: Float64Array;
}

/** The dynamic state of every body, for going back in time (World.saveState / restoreState). */
export interface WorldState {
  time: number;
  stepCount: number;
  pos: Float64Array;
  quat: Float64Array;
  vel: Float64Array;
  angVel: Float64Array;
  asleep: Uint8Array;
  /**
   * The state of the shuffle that orders the collision phase's pairs (a
   * state without it keeps the world's). With it, a run goes on from a
   * restored state exactly as it went: two impacts at one body (a plank hit
   * by a ball while it strikes its pivot) depend on their order.
   */
  rng?: number;
  /** The soft bodies' state (StepHook.saveState), when the world has some. */
  soft?: unknown;
}

/** A rigid-body world: bodies, their shapes, and the step (docs/ALGORITHM.md 4). */
export class World {
  /** Every body's state as typed arrays, by index (`pos[3i..3i+2]` the centre of mass, `quat[4i..4i+3]`, `vel`, `angVel`, `names[i]`). */
  readonly bodies = new BodyStore();
  /** The shapes bodies use (`bodies.shape[i]` indexes this). */
  readonly shapes: RigidShape[] = [];
  /** m/s^2. */
  gravity: Vec3 = [0, -9.81, 0];
  /** Seconds per step. */
  dt = 0.01;
  solver: SolverSettings;
  /** Simulated seconds so far. */
  time = 0;
  /** Steps taken so far. */
  stepCount = 0;
  /**
   * The clock `time` is counted from: time = time0 + (stepCount - step0) dt,
   * so 3000 steps of 0.01 s end at 30 s, not at the 30.000000000002 a running
   * sum reaches. Set again whenever dt, time or stepCount changed from outside
   * (restoreState, the app's dt, a library user).
   */
  private readonly clock = { time0: 0, step0: 0, dt: NaN, time: NaN, step: NaN };
  /** Scratch of jointedBodies(). */
  private jointMask = new Uint8Array(0);
  /** Milliseconds per stage of the last step, and counts (pairs, contacts, queries). */
  readonly profile = new StepProfile();
  /** The penetrating contact points of the last step. */
  readonly contacts: ContactView = { count: 0, points: new Float64Array(0), normals: new Float64Array(0), depth: new Float64Array(0) };
  /** The penetration-query backend (change it with setBackend). */
  backend: PenetrationBackend;
  /** Joints and motors, when the scene has any. */
  constraints: ConstraintSystem | null = null;
  /** The soft bodies, when the scene has some (StepHook). */
  soft: StepHook | null = null;
  /** Wind, drag, force fields, timed forces and impulses (forces.ts, docs/forces.md). */
  readonly forces = new ForceSet();
  /** Whether the last step had external accelerations (so the next clears them). */
  private externalActive = false;
  /** The projected Gauss-Seidel contact solver, used when solver.contactSolver is "pgs". */
  readonly pgs = new PgsSolver();
  /** The accumulated, sub-stepped soft contact stage, used when solver.contactSolver is "accumulated". */
  readonly accumulated = new AccumulatedSolver();
  /**
   * The seed's passes (collision passes always; contact passes, shock propagation and position
   * correction when solver.contactSolver is "sequential").
   */
  readonly sequential = new SequentialSolver();

  /** What the stages share during a step (predicted poses, solver masses, levels). */
  private readonly ctx: StepContext;
  private readonly pairs = new PairList();
  private readonly broad = new BroadPhase();
  private readonly narrow = new NarrowPhase();
  private readonly levels = new ContactLevels();
  private readonly islands = new Islands();
  private readonly wakeFromMotor = (i: number): void => {
    this.islands.wake(this.ctx, i);
  };
  /** Sleepers the contact phase found touched, woken when the next step begins (query). */
  private readonly deferredWakes: number[] = [];
  private readonly touched: number[] = [];
  private readonly rng = new Rng(12345);
  private readonly rot = new Float64Array(9);
  private preparedCount = -1;
  private readonly countersAtStart: QueryCounters = { calls: 0, samplesSent: 0, samplesEvaluated: 0, submits: 0, readbacks: 0, bytesRead: 0, bytesWritten: 0 };

  /** What the contact solver works on (the step context, pairs, contact points, joints). */
  private readonly phase: ContactPhase;
  /** What the soft stage sees (never World). */
  private readonly hookInput: HookInput;

  constructor(backend: PenetrationBackend, solver: SolverSettings) {
    this.backend = backend;
    this.solver = solver;
    this.ctx = new StepContext(this.bodies, this.shapes, solver);
    this.phase = {
      ctx: this.ctx,
      pairs: this.pairs,
      contacts: this.narrow,
      levels: 0,
      constraints: null,
      profile: this.profile,
      requery: () => this.beginPass('contactQuery'),
    };
    this.hookInput = new HookInput(this.ctx, backend, (i) => this.bodyEdited(i));
  }

  /** The contact solver solver.contactSolver names. */
  private contactSolver(): ContactSolver {
    const name = this.solver.contactSolver;
    switch (name) {
      case 'sequential':
        return this.sequential;
      case 'pgs':
        return this.pgs;
      case 'accumulated':
        return this.accumulated;
      default:
        throw new SimulationError(`unknown contact solver ${quote(String(name))}: the solvers are ${listChoices(['sequential', 'pgs', 'accumulated'])}`);
    }
  }

  /** Contact-graph level per body of the last step (-1: static). */
  get level(): Int32Array {
    return this.ctx.level;
  }

  /** Uploads the shapes to the backend; call after adding shapes and before step(). */
  uploadShapes(): void {
    this.narrow.upload(this.shapes, this.backend);
  }

  /** Switch the query backend between steps (shapes are uploaded to the new one). */
  setBackend(b: PenetrationBackend): void {
    this.backend = b;
    this.uploadShapes();
    this.invalidate();
  }

  /**
   * Says that body i was edited from outside the step (teleported, its
   * velocity set, dragged): it wakes, and its cached contacts are dropped.
   */
  bodyEdited(i: number): void {
    this.checkBody(i);
    if (i < this.islands.timer.length) this.islands.wake(this.ctx, i);
    this.bodies.asleep[i] = 0;
    if (i < this.ctx.version.length) this.ctx.markMoved(i);
    if (i < this.ctx.edited.length) this.ctx.edited[i] = 1;
  }

  /** Wakes body i and its island (a sleeping body stays asleep until something touches or drives it). */
  wakeBody(i: number): void {
    this.checkBody(i);
    if (i < this.islands.timer.length) this.islands.wake(this.ctx, i);
    this.bodies.asleep[i] = 0;
  }

  /** The names of the world's motors, in the scene's order (a robot's: "instance/motor"). */
  motorNames(): string[] {
    return this.constraints?.motors?.names.slice() ?? [];
  }

  /**
   * A handle to drive the motor `name` from code (set its speed or torque
   * limit between steps, read its speed and torque). Throws RangeError for
   * an unknown name, listing the world's motors.
   */
  motor(name: string): MotorHandle {
    const set = this.constraints?.motors;
    const m = set ? set.names.indexOf(name) : -1;
    if (!set || m < 0) {
      const names = this.motorNames();
      throw new RangeError(
        `no motor ${quote(String(name))} in this world${didYouMean(String(name), names)}: ${names.length ? `its motors are ${listChoices(names)}` : 'it has no motors'}`,
      );
    }
    return new MotorHandle(this, set, m);
  }

  /**
   * The index of a body given by name or index; throws RangeError for an
   * unknown one, suggesting the nearest name.
   */
  bodyIndex(body: string | number): number {
    const B = this.bodies;
    if (typeof body === 'number') {
      if (Number.isInteger(body) && body >= 0 && body < B.count) return body;
      throw new RangeError(`no body ${body} in this world: it has bodies 0 to ${B.count - 1}`);
    }
    const i = B.names.indexOf(body);
    if (i >= 0 && i < B.count) return i;
    const names = B.names.slice(0, B.count);
    throw new RangeError(`no body ${quote(String(body))} in this world${didYouMean(String(body), names)}: its bodies are ${listChoices(names)}`);
  }

  /**
   * Applies the impulse J (N s, world frame) at the world point `point`
   * (default: the centre of mass) to a dynamic body now: its velocity
   * changes by J / m and its angular velocity by I_w^-1 (r x J), r = point -
   * centre, at its current orientation. The body wakes.
   */
  applyImpulse(body: string | number, impulse: Vec3, point?: Vec3): void {
    const i = this.bodyIndex(body);
    checkVector('applyImpulse', 'impulse', impulse);
    if (point) checkVector('applyImpulse', 'point', point);
    const B = this.bodies;
    if (B.isStatic[i]) throw new RangeError(`applyImpulse: body ${quote(B.names[i]!)} is static; only dynamic bodies move`);
    const r = point ? [point[0] - B.pos[3 * i]!, point[1] - B.pos[3 * i + 1]!, point[2] - B.pos[3 * i + 2]!] : [0, 0, 0];
    const t = [r[1]! * impulse[2] - r[2]! * impulse[1], r[2]! * impulse[0] - r[0]! * impulse[2], r[0]! * impulse[1] - r[1]! * impulse[0]];
    const v0 = B.vel.slice(3 * i, 3 * i + 3), w0 = B.angVel.slice(3 * i, 3 * i + 3);
    applyImpulseAt(B, i, impulse, t);
    // The limits a scene's own velocities have (docs/SCENE_FORMAT.md,
    // "Limits on magnitudes"): an impulse of 1e308 N s left a box at 1e305
    // m/s and 1e303 m away after a step.
    const v = B.vel, w = B.angVel;
    const speed = Math.sqrt(v[3 * i]! * v[3 * i]! + v[3 * i + 1]! * v[3 * i + 1]! + v[3 * i + 2]! * v[3 * i + 2]!);
    const spin = Math.sqrt(w[3 * i]! * w[3 * i]! + w[3 * i + 1]! * w[3 * i + 1]! + w[3 * i + 2]! * w[3 * i + 2]!);
    if (!(speed <= LIGHT_SPEED) || !(spin * this.dt <= Math.PI)) {
      v.set(v0, 3 * i);
      w.set(w0, 3 * i);
      throw new RangeError(
        `applyImpulse: it would leave body ${quote(B.names[i]!)} (mass ${B.mass[i]!.toPrecision(4)} kg) ` +
          (speed <= LIGHT_SPEED
            ? `turning at ${spin.toPrecision(4)} rad/s, more than half a turn per step (pi / dt = ${(Math.PI / this.dt).toPrecision(4)} rad/s)`
            : `at ${speed.toPrecision(4)} m/s, more than the speed of light (299792458 m/s)`) +
          '; expected a smaller impulse, or one nearer the centre of mass',
      );
    }
    this.wakeBody(i);
    if (i < this.ctx.version.length) this.ctx.markMoved(i);
  }

  /**
   * Applies the force F (N, world frame) at the world point `point`
   * (default: the centre of mass) during the next step only: F on the
   * centre and the torque r x F. Call it before every step it should act in;
   * forces for a time window are `forces.addForce` (or a scene's "forces").
   */
  applyForce(body: string | number, force: Vec3, point?: Vec3): void {
    const i = this.bodyIndex(body);
    checkVector('applyForce', 'force', force);
    if (point) checkVector('applyForce', 'point', point);
    if (this.bodies.isStatic[i]) throw new RangeError(`applyForce: body ${quote(this.bodies.names[i]!)} is static; only dynamic bodies move`);
    this.forces.pushForce(i, force, point ?? null);
  }

  /** One step on the clock (World.clock). */
  private advanceClock(): void {
    const c = this.clock;
    if (c.dt !== this.dt || c.time !== this.time || c.step !== this.stepCount) {
      c.time0 = this.time;
      c.step0 = this.stepCount;
      c.dt = this.dt;
    }
    this.stepCount++;
    this.time = c.time0 + (this.stepCount - c.step0) * this.dt;
    c.time = this.time;
    c.step = this.stepCount;
  }

  /** The collision phase's shuffle state (WorldState.rng), for a saved state that does not copy the bodies (the app's timeline). */
  get shuffleState(): number {
    return this.rng.state;
  }

  /** A copy of every body's dynamic state, time and step count. */
  saveState(): WorldState {
    const B = this.bodies, n = B.count;
    return {
      time: this.time,
      stepCount: this.stepCount,
      pos: B.pos.slice(0, 3 * n),
      quat: B.quat.slice(0, 4 * n),
      vel: B.vel.slice(0, 3 * n),
      angVel: B.angVel.slice(0, 3 * n),
      asleep: B.asleep.slice(0, n),
      rng: this.rng.state,
      ...(this.soft ? { soft: this.soft.saveState() } : {}),
    };
  }

  /**
   * Puts back a state saveState() returned for this world (same bodies).
   * Cached contacts are dropped, so the next step queries every pair afresh.
   */
  restoreState(s: WorldState): void {
    const B = this.bodies, n = B.count;
    B.pos.set(stateNumbers(s.pos, 'pos', 3 * n, n));
    B.quat.set(stateNumbers(s.quat, 'quat', 4 * n, n));
    B.vel.set(stateNumbers(s.vel, 'vel', 3 * n, n));
    B.angVel.set(stateNumbers(s.angVel, 'angVel', 3 * n, n));
    B.asleep.set(stateNumbers(s.asleep, 'asleep', n, n));
    if (this.soft && s.soft !== undefined) this.soft.restoreState(s.soft);
    this.time = s.time;
    this.stepCount = s.stepCount;
    if (s.rng !== undefined) this.rng.state = s.rng;
    // (The sleepers touched in the step before belong to the state left.)
    this.deferredWakes.length = 0;
    this.invalidate();
  }

  /** Deepest penetration (m) among the contacts of the last step, 0 when none. */
  deepestPenetration(): number {
    const c = this.contacts;
    let d = 0;
    for (let i = 0; i < c.count; i++) if (c.depth[i]! > d) d = c.depth[i]!;
    return d;
  }

  /** Total kinetic energy of the rigid bodies (for tests and monitors; the soft bodies': `soft.kineticEnergy()`). */
  kineticEnergy(): number {
    const B = this.bodies;
    let e = 0;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      const m = B.mass[i]!;
      const v = B.vel, w = B.angVel;
      e += 0.5 * m * (v[3 * i]! * v[3 * i]! + v[3 * i + 1]! * v[3 * i + 1]! + v[3 * i + 2]! * v[3 * i + 2]!);
      // 0.5 w^T I w with I = R I0 R^T: use the body-frame inverse inertia.
      const R = this.rot;
      quatToMat3(B.quat, 4 * i, R);
      const wx = w[3 * i]!, wy = w[3 * i + 1]!, wz = w[3 * i + 2]!;
      // body-frame omega = R^T w
      const bx = R[0]! * wx + R[3]! * wy + R[6]! * wz;
      const by = R[1]! * wx + R[4]! * wy + R[7]! * wz;
      const bz = R[2]! * wx + R[5]! * wy + R[8]! * wz;
      // inertiaOf(i), without an array per body (the bench and the monitors call this every step).
      const s = this.shapes[B.shape[i]!]!, u = s.inertiaUnit, f = m / s.volume;
      e += 0.5 * (bx * (u[0]! * f * bx + u[1]! * f * by + u[2]! * f * bz) + by * (u[3]! * f * bx + u[4]! * f * by + u[5]! * f * bz) + bz * (u[6]! * f * bx + u[7]! * f * by + u[8]! * f * bz));
    }
    return e;
  }

  /** Body-frame inertia (about the centre of mass) of body i. */
  /** Throws RangeError unless i is a body index of this world. */
  private checkBody(i: number): void {
    if (!(Number.isInteger(i) && i >= 0 && i < this.bodies.count)) throw new RangeError(`no body ${i} in this world (${this.bodies.count} bodies)`);
  }

  inertiaOf(i: number): Float64Array {
    this.checkBody(i);
    const s = this.shapes[this.bodies.shape[i]!]!;
    const m = this.bodies.mass[i]!;
    const out = new Float64Array(9);
    for (let k = 0; k < 9; k++) out[k] = s.inertiaUnit[k]! * (m / s.volume);
    return out;
  }

  // ------------------------------------------------------------------ step

  /**
   * Advances the world by dt; throws SimulationError if a state turns
   * non-finite (naming the body and stage). Steps run one at a time: a call
   * made before the last one's promise settled runs after it, in the order
   * of the calls (`Promise.all` of 200 calls is 200 steps, not 200 steps
   * run over each other's half-done state).
   */
  step(): Promise<void> {
    const next = this.stepQueue.then(() => this.stepNow());
    this.stepQueue = next.catch(() => undefined);
    return next;
  }

  /** The last step asked for (step), settled or not; a failed one counts as settled. */
  private stepQueue: Promise<unknown> = Promise.resolve();

  private async stepNow(): Promise<void> {
    // Set from code (a library user, the app): a step of 0, -1 or NaN seconds would run the world
    // backwards or make every state NaN.
    if (!(this.dt > 0 && this.dt <= 1e6)) throw new SimulationError(`world.dt must be a number of seconds above 0, got ${this.dt}`);
    if (!this.gravity.every(Number.isFinite)) throw new SimulationError(`world.gravity must be three finite numbers (m/s^2), got [${this.gravity.join(', ')}]`);
    const prof = this.profile;
    const t0 = performance.now();
    prof.reset();
    const counters = this.backend.counters;
    Object.assign(this.countersAtStart, counters);
    this.narrow.cacheEvaluations = 0;
    this.narrow.pairRequeries = 0;
    prof.begin(t0);
    this.prepare();
    this.externalForces();
    const S = this.solver;
    this.rng.next();
    prof.end('forces');
    // An active motor wakes its body's island (it is about to act).
    if (!S.sleep) this.islands.wakeAll(this.ctx);
    else this.constraints?.awakeBodies?.(this.ctx, this.wakeFromMotor);
    this.wakeDeferred();
    solverMasses(this.ctx);
    prof.end('wake');
    // The standard scheme (docs/ALGORITHM.md 4.1) is this step with the
    // velocity update moved before the collision phase: collisions then see
    // the velocity gravity just gave, and a body resting on another collides
    // with it every step.
    const standard = S.scheme === 'standard';
    // In the separated scheme the seed's passes and PGS move smoothly accelerated bodies along the trapezoid
    // (integrate.ts, ContactSolver.trapezoidSpeed); not beside soft bodies, whose impulses come after the
    // collision phase and may be blows.
    const trapezoidSpeed = standard || this.soft !== null ? null : this.contactSolver().trapezoidSpeed;
    const trapezoid = trapezoidSpeed !== null;
    if (standard) {
      forgetFreeVelocities(this.ctx);
      this.velocityUpdate();
      this.jointVelocities();
      this.guard('velocityUpdate');
    } else {
      recordFreeVelocities(this.ctx);
      if (trapezoid) this.ctx.smoothVel.set(this.bodies.vel.subarray(0, this.ctx.smoothVel.length));
    }
    // 1. Collisions at x' = x + dt (v + dt g) (standard: x + dt v, v already
    // updated), until a pass changes nothing.
    this.predict(this.dt, !standard);
    this.broadphase();
    // Under the warm-started solvers (accumulated, PGS) the collision phase is
    // for impacts: a pair that cannot close faster than RESTITUTION_STEPS |g|
    // dt is left to the contact solver's resting rows (NarrowPhase.impactSpeed).
    // Re-solved by the seed's collision passes every step, a resting heap's
    // pairs fought the warm start (EXTRAS.md, "Constraint solver alternative").
    // The warm-started solvers read a face's spin lever from its triangles,
    // and the accumulated stage reduces each patch to a few points: their
    // plane pairs leave out the samples on seams inside flat faces
    // (NarrowPhase.planeFlatOut; under PGS a row per point made 24 cups 4
    // times slower).
    this.narrow.planeFlatOut = S.contactSolver !== 'sequential';
    if (S.contactSolver !== 'sequential') this.narrow.impactSpeed = RESTITUTION_STEPS * Math.hypot(this.gravity[0], this.gravity[1], this.gravity[2]) * this.dt;
    try {
      await this.query('collisionQuery');
      // Under those solvers the later collision passes evaluate their pairs
      // from the caches alone (no query): the contact phase queries again,
      // and its rows hold what the passes leave.
      const passQuery = S.contactSolver === 'sequential';
      for (let it = 0; it < S.collisionIterations; it++) {
        if (it > 0) await this.beginPass('collisionQuery', passQuery);
        if (!this.collisionSolve()) break;
      }
    } finally {
      // (Also when a query fails: the next phase must see every pair.)
      this.narrow.impactSpeed = 0;
    }
    this.guard('collisionSolve');
    this.jointImpacts();
    this.jointVelocities();
    // 2. Velocities.
    if (!standard) {
      markImpacts(this.ctx, this.gravity, trapezoid);
      this.velocityUpdate();
      this.jointVelocities();
      this.guard('velocityUpdate');
    }
    const softWoke = await this.softStage();
    // 3. Contacts at x' = x + dt v'. A body the soft stage woke had no
    // pairs with static or sleeping bodies (findPairs leaves them out while
    // it sleeps): find the pairs again, or nothing holds it this step.
    this.predict(this.dt, false);
    if (S.collisionIterations === 0 || softWoke) this.broadphase();
    await this.query('contactQuery');
    // The contact phase: the solver solver.contactSolver names, through
    // ContactSolver (contactSolver.ts).
    const solver = this.contactSolver();
    const phase = this.phase;
    phase.levels = this.contactGraph();
    phase.constraints = this.constraints;
    solver.prepare(phase);
    await solver.solve(phase);
    solver.finish(phase);
    this.guard('contactSolve');
    // 4. Positions (plus the pseudo velocities of the PGS split impulse; the
    // seed's passes and PGS: of the trapezoid where the velocities changed smoothly).
    this.integrate(trapezoidSpeed);
    solver.integrated(this.ctx, prof);
    this.jointPostPositions();
    this.jointVelocities();
    this.guard('integrate');
    this.updateIslands(solver);
    this.publishContacts();
    // The step's total is read off the same clock as its last stage, so the
    // stages add up to it exactly.
    prof.totalMs = prof.end('publishContacts') - t0;
    this.advanceClock();
    bookQueryCounters(prof, this.countersAtStart, counters);
    prof.cacheEvaluations = this.narrow.cacheEvaluations;
    prof.pairRequeries = this.narrow.pairRequeries;
  }

  // ------------------------------------------------------------ stages
  // Each calls into its module and books the time since the previous stage
  // ended to itself (the profile partitions the step; guards and the hop
  // back from an awaited query count to the stage that follows).

  private predict(h: number, withGravity: boolean): void {
    predictPoses(this.ctx, h, withGravity);
    this.profile.end('predict');
  }

  private broadphase(): void {
    this.findPairs();
    this.narrow.beginStep(this.pairs);
    this.sequential.patches.clear(this.pairs.count);
    this.profile.end('broadphase');
  }

  private findPairs(): void {
    const c = this.constraints;
    this.broad.findPairs(this.ctx, this.pairs, c ? (a, b) => c.ignoresPair(a, b) : null);
    this.profile.pairs = Math.max(this.profile.pairs, this.pairs.count);
  }

  /**
   * The start of a phase: the pairs' caches checked at the new predictions
   * (one batched query for those past their limits), every pair's points
   * made current, and the sleeping bodies an awake one now touches woken.
   */
  private async query(stage: 'collisionQuery' | 'contactQuery'): Promise<void> {
    await this.narrow.refresh(this.ctx, this.pairs, this.backend, this.profile);
    this.narrow.evaluateAll(this.ctx, this.pairs, this.profile);
    this.profile.end(stage);
    // Under the warm-started solvers a step makes at most two query calls,
    // one a phase (issue "Piles that come to rest"): a sleeper touched in
    // the contact phase stays asleep, as immovable as the ground, until the
    // next step begins (wakeDeferred), and the pairs that bodies woken in
    // the collision phase have among themselves wait for the contact
    // phase's query. The seed's passes query in every pass anyway.
    const deferred = this.solver.contactSolver !== 'sequential';
    if (deferred && stage === 'contactQuery') {
      this.touchedSleepers(this.deferredWakes);
      this.profile.end('wake');
      return;
    }
    const woke = this.wakeTouched();
    if (woke) solverMasses(this.ctx);
    this.profile.end('wake');
    if (woke) {
      // Bodies woke: they now move and have mass, and their pairs among
      // themselves (left out while they slept) count again: predict and find
      // the pairs of this phase again. Deferred, the new pairs with a plane
      // get their points (no query needs them) and the others none yet.
      this.predict(this.ctx.predH, this.ctx.predGravity);
      this.broadphase();
      await this.narrow.refresh(this.ctx, this.pairs, this.backend, this.profile, null, deferred);
      this.narrow.evaluateAll(this.ctx, this.pairs, this.profile);
      this.profile.end(stage);
    }
  }

  /**
   * The sleeping bodies an awake one touches, into `out`: a pair with a point
   * in contact at the current or the predicted poses. A point still open at
   * both (within the band, a speculative contact) does not wake: an awake
   * body at rest beside a sleeping one sags by g dt^2 at its prediction
   * where the sleeper does not, which brings points within the band that
   * two awake bodies never had; in a heap of 150 boxes such a pair, 6.5 mm
   * apart, woke each other's islands in turn (each falling asleep half a
   * second after the other woke it) for good.
   */
  private touchedSleepers(out: number[]): void {
    const B = this.bodies, cs = this.narrow.cur, pairs = this.pairs;
    for (let k = 0; k < pairs.count; k++) {
      if (cs.start[k] === cs.end[k]) continue;
      const a = pairs.a[k]!, b = pairs.b[k]!;
      if (B.asleep[a] === B.asleep[b]) continue;
      let touching = false;
      for (let j = cs.start[k]!, e = cs.end[k]!; j < e && !touching; j++) touching = cs.pred[j]! <= 0 || cs.gap[j]! <= 0;
      if (!touching) continue;
      out.push(B.asleep[a] ? a : b);
    }
  }

  /** Wakes the island of every sleeping body an awake one touches; true if any woke. */
  private wakeTouched(): boolean {
    const touched = this.touched;
    touched.length = 0;
    this.touchedSleepers(touched);
    let woke = false;
    for (const i of touched) woke = this.islands.wake(this.ctx, i) || woke;
    return woke;
  }

  /** Wakes the islands the last step's contact phase touched (query). */
  private wakeDeferred(): void {
    for (const i of this.deferredWakes) if (i < this.bodies.count) this.islands.wake(this.ctx, i);
    this.deferredWakes.length = 0;
  }

  private updateIslands(solver: ContactSolver): void {
    // The accumulated stage knows each pair's depth from its fitted manifolds
    // (AccumulatedSolver.pairDepth); the others leave it to the raw points,
    // read beyond the depth each leaves uncorrected (ContactSolver.restingSlop).
    this.islands.update(this.ctx, this.pairs, this.narrow.cur, this.constraints, this.solver.sleep, solver.pairDepth, solver.restingSlop(this.ctx));
    const p = this.profile;
    p.awake = this.islands.awake;
    p.asleep = this.islands.asleep;
    p.islands = this.islands.islands;
    p.end('islands');
  }

  /**
   * Between passes: the pairs whose bodies an impulse moved are brought up
   * to date (one batched query for those past their limits), so the next
   * pass sees one snapshot of the geometry at the new predictions.
   */
  private async beginPass(stage: 'collisionQuery' | 'contactQuery', query = true): Promise<void> {
    await this.narrow.beginPass(this.ctx, this.pairs, this.backend, this.profile, query);
    this.profile.end(stage);
  }

  /** One collision pass; false when it applied no impulse (the phase is over). */
  private collisionSolve(): boolean {
    const any = this.sequential.collide(this.ctx, this.pairs, this.narrow, this.rng);
    this.profile.end('collisionSolve');
    return any;
  }

  private velocityUpdate(): void {
    velocityUpdate(this.ctx, this.constraints);
    this.profile.end('velocityUpdate');
  }

  /** The soft stage; true if it woke a sleeping body (which then has mass again, and pairs to find). */
  private async softStage(): Promise<boolean> {
    if (!this.soft) return false;
    const B = this.bodies;
    let sleeping = 0;
    for (let i = 0; i < B.count; i++) sleeping += B.asleep[i]!;
    const input = this.hookInput;
    input.stepCount = this.stepCount;
    input.backend = this.backend;
    await this.soft.step(input);
    this.guard('soft');
    let woke = false;
    if (sleeping > 0) {
      let still = 0;
      for (let i = 0; i < B.count; i++) still += B.asleep[i]!;
      woke = still < sleeping;
    }
    this.profile.end('soft');
    if (woke) {
      solverMasses(this.ctx);
      this.profile.end('wake');
    }
    return woke;
  }

  private contactGraph(): number {
    const levels = this.levels.build(this.ctx, this.pairs, this.narrow.cur, this.constraints);
    this.levels.sortPairs(this.ctx, this.pairs, levels);
    this.profile.end('contactGraph');
    return levels;
  }

  private integrate(trapezoidSpeed: number | null): void {
    if (trapezoidSpeed !== null) trapezoidCorrection(this.ctx, this.narrow.cur, this.pairs.count, this.jointedBodies(), trapezoidSpeed);
    integratePositions(this.ctx);
    this.profile.end('integrate');
  }

  /** 1 for each body a joint holds (ConstraintSystem.jointedBodies), or null without joints. */
  private jointedBodies(): Uint8Array | null {
    if (!this.constraints) return null;
    const mask = this.jointMask.length === this.bodies.count ? this.jointMask.fill(0) : (this.jointMask = new Uint8Array(this.bodies.count));
    this.constraints.jointedBodies((i) => {
      if (i >= 0 && i < mask.length) mask[i] = 1;
    });
    return mask;
  }

  private jointImpacts(): void {
    if (!this.constraints?.impacts) return;
    this.constraints.impacts(this.ctx);
    this.profile.end('joints');
  }

  private jointVelocities(): void {
    if (!this.constraints) return;
    this.constraints.velocityStabilize(this.ctx);
    this.profile.end('joints');
  }

  /** Without pre-stabilisation: the joints closed after the position step (seed fig. 24's failure). */
  private jointPostPositions(): void {
    if (!this.constraints?.postStabilize || this.solver.jointPrestabilization) return;
    this.constraints.postStabilize(this.ctx);
    solverMasses(this.ctx);
    this.profile.end('joints');
  }

  // ------------------------------------------------------------ internals

  /**
   * The impulses due at this step's start, then every body's external
   * accelerations for the step (forces.ts) into the step context; a body
   * asleep that a force acts on wakes.
   */
  private externalForces(): void {
    const F = this.forces, ctx = this.ctx, B = this.bodies;
    if (F.empty) {
      F.arrowCount = 0;
      if (this.externalActive) {
        ctx.extAcc.fill(0);
        ctx.extAngAcc.fill(0);
        this.externalActive = false;
      }
      return;
    }
    for (const i of F.applyDueImpulses(B, this.time, this.dt)) {
      this.wakeBody(i);
      ctx.markMoved(i);
    }
    this.externalActive = F.accelerations(B, this.time, this.dt, this.gravity, ctx.extAcc, ctx.extAngAcc);
    if (!this.externalActive) return;
    const a = ctx.extAcc, al = ctx.extAngAcc;
    for (let i = 0; i < B.count; i++) {
      if (!B.asleep[i]) continue;
      if (a[3 * i] !== 0 || a[3 * i + 1] !== 0 || a[3 * i + 2] !== 0 || al[3 * i] !== 0 || al[3 * i + 1] !== 0 || al[3 * i + 2] !== 0) {
        this.wakeBody(i);
      }
    }
  }

  /** Brings the step context up to date with the public settings; sizes scratch when the body count changed. */
  private prepare(): void {
    const ctx = this.ctx;
    ctx.dt = this.dt;
    ctx.gravity = this.gravity;
    ctx.settings = this.solver;
    ctx.time = this.time;
    ctx.serial++;
    const n = this.bodies.count;
    if (n === this.preparedCount) return;
    this.preparedCount = n;
    ctx.resize(n);
    this.islands.resize(n);
    this.broad.resize(ctx);
    if (!this.narrow.uploaded(this.shapes.length)) this.uploadShapes();
    let rows = 0;
    for (let i = 0; i < n; i++) if (!this.bodies.isStatic[i]) rows += sampleCount(this.shapes[this.bodies.shape[i]!]!.samples);
    // Twice: the cache holds each pair's fresh samples beside the ranges they replace until it is compacted.
    this.narrow.reserveCache(2 * rows);
  }

  /** Forgets everything cached between steps (after a backend switch or a restored state). */
  private invalidate(): void {
    this.preparedCount = -1;
    this.pairs.invalidate();
    this.accumulated.reset();
    this.constraints?.pgsRows?.reset?.();
  }

  /** Guard: no NaN/Inf may enter the state; name the body and the stage. */
  private guard(stage: Stage): void {
    const B = this.bodies, v = B.vel, w = B.angVel;
    const c2 = BLOWN_UP_SPEED * BLOWN_UP_SPEED;
    for (let i = 0; i < B.count; i++) {
      const ok =
        Number.isFinite(B.pos[3 * i]! + B.pos[3 * i + 1]! + B.pos[3 * i + 2]!) &&
        Number.isFinite(v[3 * i]! + v[3 * i + 1]! + v[3 * i + 2]!) &&
        Number.isFinite(w[3 * i]! + w[3 * i + 1]! + w[3 * i + 2]!) &&
        Number.isFinite(B.quat[4 * i]! + B.quat[4 * i + 1]! + B.quat[4 * i + 2]! + B.quat[4 * i + 3]!);
      const at = `after stage ${stage} at step ${this.stepCount} (t = ${this.time.toFixed(4)} s)`;
      if (!ok) throw new SimulationError(`non-finite state of body "${B.names[i]}" ${at}`);
      // Past BLOWN_UP_SPEED, along its path or at its rim: the step has blown up.
      const v2 = v[3 * i]! * v[3 * i]! + v[3 * i + 1]! * v[3 * i + 1]! + v[3 * i + 2]! * v[3 * i + 2]!;
      const r = this.shapes[B.shape[i]!]!.radius;
      const rim2 = (w[3 * i]! * w[3 * i]! + w[3 * i + 1]! * w[3 * i + 1]! + w[3 * i + 2]! * w[3 * i + 2]!) * r * r;
      if (v2 > c2 || rim2 > c2) {
        // (Math.hypot: the squares may overflow where the speeds do not.)
        const speed = Math.hypot(v[3 * i]!, v[3 * i + 1]!, v[3 * i + 2]!), rim = r * Math.hypot(w[3 * i]!, w[3 * i + 1]!, w[3 * i + 2]!);
        const what = v2 > c2 ? `moves at ${speed.toPrecision(3)} m/s` : `turns with its rim at ${rim.toPrecision(3)} m/s`;
        throw new SimulationError(`body "${B.names[i]}" ${what}, more than ten times the speed of light, ${at}: the simulation has blown up (a smaller dt, or smaller impulses, restitutions or forces, may hold it)`);
      }
    }
  }

  private publishContacts(): void {
    const cs = this.narrow.cur;
    const v = this.contacts;
    // The penetrating points (not the ones just outside that patches use),
    // as the pairs' points were last made.
    let n = 0;
    for (let k = 0; k < this.pairs.count; k++) {
      for (let i = cs.start[k]!; i < cs.end[k]!; i++) {
        if (!(cs.phi[i]! < 0)) continue;
        if (v.depth.length <= n) {
          const c = 2 * n + 32;
          v.points = grown(v.points, 3 * c);
          v.normals = grown(v.normals, 3 * c);
          v.depth = grown(v.depth, c);
        }
        for (let c = 0; c < 3; c++) {
          v.points[3 * n + c] = cs.p[3 * i + c]!;
          v.normals[3 * n + c] = cs.n[3 * i + c]!;
        }
        v.depth[n++] = -cs.phi[i]!;
      }
    }
    v.count = n;
    // (Booked by step(), which reads the step's total off the same clock.)
  }
}

/** The most a body's speed may be (m/s), as in a scene (scene/magnitudes.ts SPEED_MAX). */
const LIGHT_SPEED = 299_792_458;
/**
 * A body faster than this (m/s), or turning its rim faster, stops the run
 * (World.guard): a scene's own velocities are held to the speed of light,
 * and ten times it is a blow-up (a rope of restitution 1 caught from 1e9 m
 * away left a body at 5.6e12 m/s, 3.1e12 m from the world). At the speed of
 * light itself, a body a scene launches at it under the strongest gravity
 * it may have would stop the run in its first step.
 */
const BLOWN_UP_SPEED = 10 * LIGHT_SPEED;

/** Throws RangeError unless v is three finite numbers. */
function checkVector(method: string, name: string, v: unknown): void {
  if (!Array.isArray(v) && !(v instanceof Float64Array) && !(v instanceof Float32Array)) {
    throw new RangeError(`${method}: ${name} must be [x, y, z], got ${String(v)}`);
  }
  const a = v as ArrayLike<unknown>;
  if (a.length !== 3 || ![0, 1, 2].every((k) => typeof a[k] === 'number' && Number.isFinite(a[k]))) {
    throw new RangeError(`${method}: ${name} must be three finite numbers [x, y, z], got [${Array.from(a as ArrayLike<unknown>).join(', ')}]`);
  }
}

/**
 * A saved state's array as numbers, checked against the world: a typed array
 * as saveState() made it, a plain array, or the object JSON makes of a typed
 * array ({"0": x, "1": y, ...}), so a state kept as JSON restores too.
 */
function stateNumbers(a: unknown, key: string, length: number, bodies: number): ArrayLike<number> {
  const xs: ArrayLike<unknown> | null = ArrayBuffer.isView(a) || Array.isArray(a)
    ? (a as ArrayLike<unknown>)
    : a !== null && typeof a === 'object' ? Object.values(a) : null;
  if (xs === null || xs.length !== length) {
    throw new RangeError(`the state's ${key} holds ${xs === null ? 'no array' : `${xs.length} numbers`}; this world's ${bodies} bodies need ${length} (a state saveState() made for this world)`);
  }
  for (let k = 0; k < length; k++) {
    if (typeof xs[k] !== 'number' || !Number.isFinite(xs[k])) throw new RangeError(`the state's ${key}[${k}] is ${String(xs[k])}, not a finite number`);
  }
  return xs as ArrayLike<number>;
}
