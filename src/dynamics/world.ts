/**
 * The simulation world and its time step.
 *
 * One step of the separated scheme (ALGORITHM.md 4.2, seed ch. 5-6), as the
 * stages of `step()`:
 *
 *   collisions      for each of `collisionIterations`: predict x' = x + dt (v + dt g),
 *                   query every candidate pair (one batched call), resolve pairs in
 *                   shuffled order with the pair's restitution; impulses change v
 *   [joints]        velocity stabilisation
 *   velocityUpdate  v += dt g, omega += dt I^-1 tau (motors)
 *   [joints]        velocity stabilisation
 *   contactGraph    levels from the contacts at x' = x + dt v
 *   contacts        for each of `contactIterations` k: query, resolve pairs level by
 *                   level with restitution -0.9 + 0.9 k / (n - 1); joints per level
 *   shock           one more level-by-level pass, lower levels frozen
 *                   (contactSolver "pgs": contacts + shock are one projected
 *                   Gauss-Seidel solve instead, src/dynamics/pgs.ts)
 *   integrate       x += dt v, q += dt/2 (omega, 0) q
 *   [joints]        velocity stabilisation
 *
 * The standard scheme (4.1) advances velocities and positions first, then
 * runs the same collision and contact passes at the new positions.
 *
 * Within one iteration the geometry of each pair (points, normals, depths) is
 * what the query returned at the start of the iteration; impulses then change
 * velocities only, and the next iteration re-queries the pairs whose bodies
 * received an impulse (the others keep their points: their predicted poses did
 * not change). Per pair, points are visited deepest first and each gets at most
 * one impulse per iteration, applied only if it is approaching at its turn;
 * this is the seed's "until every point was once separating" rule without a
 * GPU round trip per impulse.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import { QueryBatchBuilder, type PenetrationBackend, type QueryShape } from '../collision/query.ts';
import { SweepAndPrune } from '../collision/broadphase.ts';
import type { SolverSettings } from '../scene/types.ts';
import { SimulationError } from '../errors.ts';
import { BodyStore } from './bodies.ts';
import { StepProfile, type Stage } from './profile.ts';
import type { RigidShape } from './shape.ts';
import { ContactSet } from './contacts.ts';
import { ContactGraph } from './contactGraph.ts';
import { applyContactImpulse, applyPatchTorque, applyTangentialStick, lastImpulse, type ImpulseState, type Material } from './impulse.ts';
import { integrateQuat, quatToMat3, Rng, worldInverseInertia } from './math.ts';
import { PgsSolver } from './pgs.ts';

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
}

/**
 * What joints and motors plug into the step (src/dynamics/joints.ts). The
 * world calls these at the points of the hybrid step (ALGORITHM.md 6).
 */
export interface ConstraintSystem {
  /** Joined pairs that must not collide (a < b). */
  ignoresPair(a: number, b: number): boolean;
  /** Adds external torques/forces as velocity changes for this step (motors); true if any velocity changed. */
  applyForces(world: World, dt: number): boolean;
  /** Removes relative anchor velocities of every joint. */
  velocityStabilize(world: World): void;
  /**
   * Position pre-stabilisation of the joints whose bodies are both at a level
   * <= `level` with at least one at `level` (level < 0: all joints), using
   * predicted positions x + dt v. Bodies with world.solverInvMass 0 are fixed.
   */
  positionStabilize(world: World, level: number): void;
  /** Joint edges for the contact graph: calls add(u, v) for bodies to share levels. */
  graphEdges(world: World, add: (u: number, v: number) => void): void;
  /** For drawing: world segments (6 numbers each) from body centres to joint anchors. */
  anchorSegments?(): Float64Array;
}

const PAIR_MESH = 0;
const PAIR_PLANE = 1;
/** Sweeps over a pair's points in the shock-propagation pass. */
const SHOCK_SWEEPS = 10;
/**
 * Penetration recovery (not in the seed, which lets bodies that start
 * interpenetrated stay so): in the contact phase a point deeper than PUSH_SLOP
 * cells gets a separating velocity of PUSH_RATE of the excess depth per step,
 * at most PUSH_MAX m/s. Resting contacts (about g dt^2 deep) never reach it.
 */
const PUSH_SLOP = 0.25;
const PUSH_RATE = 0.1;
const PUSH_MAX = 0.1;
/** Depth band of a contact patch, in SDF cells (see resolvePair). */
const PATCH_BAND = 0.25;
/** Depth band, in cells, of the points that make a patch flat enough to hold a torque. */
const TORQUE_BAND = 0.02;
/** Normals within ~25 degrees of the patch leader's join its patch. */
const PATCH_COS = 0.9;

export class World {
  readonly bodies = new BodyStore();
  readonly shapes: RigidShape[] = [];
  gravity: Vec3 = [0, -9.81, 0];
  dt = 0.01;
  solver: SolverSettings;
  time = 0;
  stepCount = 0;
  readonly profile = new StepProfile();
  /** Contact-graph level per body of the last step (-1: static). */
  level = new Int32Array(0);
  readonly contacts: ContactView = { count: 0, points: new Float64Array(0), normals: new Float64Array(0), depth: new Float64Array(0) };
  backend: PenetrationBackend;
  constraints: ConstraintSystem | null = null;
  /** The projected Gauss-Seidel contact solver, used when solver.contactSolver is "pgs". */
  readonly pgs = new PgsSolver();

  // ---- solver scratch (sized to the body count in prepare()) ----
  /** Predicted centres / orientations / rotation matrices used by the current pass. */
  predPos = new Float64Array(0);
  predQuat = new Float64Array(0);
  predRot = new Float64Array(0);
  /** Inverse mass and world inverse inertia as the solver sees them (0 for static or frozen). */
  solverInvMass = new Float64Array(0);
  solverInvInertia = new Float64Array(0);
  private impulseState!: ImpulseState;
  private version = new Uint32Array(0);
  private aabbMin = new Float64Array(0);
  private aabbMax = new Float64Array(0);
  private skip = new Uint8Array(0);
  private preparedCount = -1;
  private planeBodies: number[] = [];
  private readonly sap = new SweepAndPrune();
  private readonly graph = new ContactGraph();
  private readonly batch = new QueryBatchBuilder();
  private cur = new ContactSet();
  private prev = new ContactSet();
  private readonly rng = new Rng(12345);
  /** Query shape index per world shape (-1 for planes). */
  private queryIndex: number[] = [];

  // Candidate pairs of the current phase.
  private pairCount = 0;
  private pairA = new Int32Array(64);
  private pairB = new Int32Array(64);
  private pairKind = new Uint8Array(64);
  private pairVerA = new Uint32Array(64);
  private pairVerB = new Uint32Array(64);
  private pairFresh = new Uint8Array(64);
  private pairTask = new Int32Array(64);
  private pairOrder = new Int32Array(64);
  private pairLevel = new Int32Array(64);
  private readonly mat: Material = { restitution: 0, friction: 0, rolling: 0, spinning: 0 };
  private readonly rot = new Float64Array(9);
  private handled = new Uint8Array(64);
  private readonly spread = new Float64Array(8);
  /** Predicted poses (A then B: xyz + quat) at each pair's last query. */
  private pairRef = new Float64Array(14 * 64);
  /**
   * Re-query a touched pair only when its predicted poses drifted by this many
   * SDF cells since its last query (0: re-query whenever an impulse touched it).
   */
  reuseTolerance = 0.05;

  constructor(backend: PenetrationBackend, solver: SolverSettings) {
    this.backend = backend;
    this.solver = solver;
  }

  /** Uploads the shapes to the backend; call after adding shapes and before step(). */
  uploadShapes(): void {
    const qs: QueryShape[] = [];
    this.queryIndex = this.shapes.map((s) => {
      if (!s.sdf) return -1;
      qs.push({ samples: s.samples, sdf: s.sdf });
      return qs.length - 1;
    });
    this.backend.setShapes(qs);
  }

  /** Switch the query backend between steps (shapes are uploaded to the new one). */
  setBackend(b: PenetrationBackend): void {
    this.backend = b;
    this.uploadShapes();
    this.preparedCount = -1;
  }

  /**
   * Marks body i's velocity as changed outside the contact solver (joint
   * impulses), so the pairs it is in are queried again at its new predicted
   * pose instead of reusing cached contact points.
   */
  markMoved(i: number): void {
    this.version[i]++;
  }

  /**
   * Says that body i was edited from outside the step (teleported, its
   * velocity set, dragged): it wakes, and its cached contacts are dropped.
   */
  bodyEdited(i: number): void {
    this.bodies.asleep[i] = 0;
    if (i < this.version.length) this.version[i]++;
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
    };
  }

  /**
   * Puts back a state saveState() returned for this world (same bodies).
   * Cached contacts are dropped, so the next step queries every pair afresh.
   */
  restoreState(s: WorldState): void {
    const B = this.bodies, n = B.count;
    if (s.pos.length !== 3 * n) throw new RangeError(`state has ${s.pos.length / 3} bodies, the world ${n}`);
    B.pos.set(s.pos);
    B.quat.set(s.quat);
    B.vel.set(s.vel);
    B.angVel.set(s.angVel);
    B.asleep.set(s.asleep);
    this.time = s.time;
    this.stepCount = s.stepCount;
    this.preparedCount = -1;
  }

  /** Deepest penetration (m) among the contacts of the last step, 0 when none. */
  deepestPenetration(): number {
    const c = this.contacts;
    let d = 0;
    for (let i = 0; i < c.count; i++) if (c.depth[i]! > d) d = c.depth[i]!;
    return d;
  }

  /** Total kinetic energy (for tests and monitors). */
  kineticEnergy(): number {
    const B = this.bodies;
    let e = 0;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      const m = B.mass[i]!;
      const v = B.vel, w = B.angVel;
      e += 0.5 * m * (v[3 * i]! ** 2 + v[3 * i + 1]! ** 2 + v[3 * i + 2]! ** 2);
      // 0.5 w^T I w with I = R I0 R^T: use the body-frame inverse inertia.
      quatToMat3(B.quat, 4 * i, this.rot);
      const R = this.rot;
      const wx = w[3 * i]!, wy = w[3 * i + 1]!, wz = w[3 * i + 2]!;
      // body-frame omega = R^T w
      const bx = R[0]! * wx + R[3]! * wy + R[6]! * wz;
      const by = R[1]! * wx + R[4]! * wy + R[7]! * wz;
      const bz = R[2]! * wx + R[5]! * wy + R[8]! * wz;
      const I = this.inertiaOf(i);
      e += 0.5 * (bx * (I[0]! * bx + I[1]! * by + I[2]! * bz) + by * (I[3]! * bx + I[4]! * by + I[5]! * bz) + bz * (I[6]! * bx + I[7]! * by + I[8]! * bz));
    }
    return e;
  }

  /** Body-frame inertia (about the centre of mass) of body i. */
  inertiaOf(i: number): Float64Array {
    const s = this.shapes[this.bodies.shape[i]!]!;
    const m = this.bodies.mass[i]!;
    const out = new Float64Array(9);
    for (let k = 0; k < 9; k++) out[k] = s.inertiaUnit[k]! * (m / s.volume);
    return out;
  }

  // ------------------------------------------------------------------ step

  async step(): Promise<void> {
    const prof = this.profile;
    const t0 = performance.now();
    prof.reset();
    this.prepare();
    const dt = this.dt;
    const S = this.solver;
    const c = this.constraints;
    this.rng.next();

    if (S.scheme === 'standard') {
      prof.begin();
      this.velocityUpdate(dt);
      if (c) {
        c.velocityStabilize(this);
        // Joints close their predicted gap before positions advance (seed
        // ch. 10); the contact passes come after integration in this scheme.
        this.predict(0, false);
        c.positionStabilize(this, -1);
      }
      this.integrate(dt);
      prof.end('integrate');
      this.checkFinite('integrate');
      // Detection at the new positions: no prediction.
      for (let it = 0; it < S.collisionIterations; it++) {
        await this.iteration(0, 'collision', it, -1, false);
      }
      this.checkFinite('collisionSolve');
      const levels = await this.buildLevels(0);
      if (S.contactSolver === 'pgs') {
        // Positions already advanced: apply the split-impulse correction now.
        this.solvePgs(0, levels);
        this.pgs.applyPositionCorrection(this, dt);
      } else {
        for (let it = 0; it < S.contactIterations; it++) {
          await this.iteration(0, 'contact', it, levels, false);
        }
        if (S.shockPropagation && S.contactGraph) await this.iteration(0, 'contact', S.contactIterations, levels, true);
      }
      prof.begin();
      c?.velocityStabilize(this);
      prof.end('joints');
    } else {
      // 1. Collisions at x' = x + dt (v + dt g).
      for (let it = 0; it < S.collisionIterations; it++) {
        await this.iteration(dt, 'collision', it, -1, false);
      }
      this.checkFinite('collisionSolve');
      prof.begin();
      c?.velocityStabilize(this);
      prof.end('joints');
      // 2. Velocities.
      prof.begin();
      this.velocityUpdate(dt);
      prof.end('velocityUpdate');
      prof.begin();
      c?.velocityStabilize(this);
      prof.end('joints');
      this.checkFinite('velocityUpdate');
      // 3. Contacts at x' = x + dt v'.
      const levels = await this.buildLevels(dt);
      if (S.contactSolver === 'pgs') {
        this.solvePgs(dt, levels);
      } else {
        for (let it = 0; it < S.contactIterations; it++) {
          await this.iteration(dt, 'contact', it, levels, false);
        }
        if (S.shockPropagation && S.contactGraph) await this.iteration(dt, 'contact', S.contactIterations, levels, true);
      }
      this.checkFinite('contactSolve');
      // 4. Positions (plus the pseudo velocities of the PGS split impulse).
      prof.begin();
      this.integrate(dt);
      if (S.contactSolver === 'pgs') this.pgs.applyPositionCorrection(this, dt);
      prof.end('integrate');
      prof.begin();
      c?.velocityStabilize(this);
      prof.end('joints');
      this.checkFinite('integrate');
    }
    this.publishContacts();
    this.time += dt;
    this.stepCount++;
    prof.totalMs = performance.now() - t0;
  }

  // ------------------------------------------------------------ internals

  /** Sizes scratch arrays when the body count changed. */
  private prepare(): void {
    const n = this.bodies.count;
    if (n === this.preparedCount) return;
    this.preparedCount = n;
    this.predPos = new Float64Array(3 * n);
    this.predQuat = new Float64Array(4 * n);
    this.predRot = new Float64Array(9 * n);
    this.solverInvMass = new Float64Array(n);
    this.solverInvInertia = new Float64Array(9 * n);
    this.version = new Uint32Array(n);
    this.aabbMin = new Float64Array(3 * n);
    this.aabbMax = new Float64Array(3 * n);
    this.skip = new Uint8Array(n);
    this.level = new Int32Array(n);
    this.planeBodies = [];
    for (let i = 0; i < n; i++) {
      const s = this.shapes[this.bodies.shape[i]!]!;
      if (s.kind === 'plane') {
        this.skip[i] = 1;
        this.planeBodies.push(i);
      }
    }
    if (this.queryIndex.length !== this.shapes.length) this.uploadShapes();
    this.impulseState = {
      centre: this.bodies.pos,
      vel: this.bodies.vel,
      angVel: this.bodies.angVel,
      invMass: this.solverInvMass,
      invInertiaW: this.solverInvInertia,
    };
  }

  /**
   * Predicted poses x' = x + h v, q' = q + h/2 (omega, 0) q for the current
   * velocities (h = dt for the separated scheme, 0 for the standard one), and
   * the solver's inverse mass and world inverse inertia at those poses.
   * `gravityDt` adds h * dt * g to x' (the collision phase predicts with the
   * velocity the body will have after the velocity update).
   */
  private predict(h: number, withGravity: boolean): void {
    const B = this.bodies;
    const g = this.gravity;
    const gh = withGravity ? h * this.dt : 0;
    for (let i = 0; i < B.count; i++) {
      const st = B.isStatic[i] === 1;
      const vh = st ? 0 : h;
      const gg = st ? 0 : gh;
      this.predPos[3 * i] = B.pos[3 * i]! + vh * B.vel[3 * i]! + gg * g[0];
      this.predPos[3 * i + 1] = B.pos[3 * i + 1]! + vh * B.vel[3 * i + 1]! + gg * g[1];
      this.predPos[3 * i + 2] = B.pos[3 * i + 2]! + vh * B.vel[3 * i + 2]! + gg * g[2];
      if (st || vh === 0) {
        for (let k = 0; k < 4; k++) this.predQuat[4 * i + k] = B.quat[4 * i + k]!;
      } else {
        integrateQuat(B.quat, 4 * i, B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!, vh, this.predQuat, 4 * i);
      }
      quatToMat3(this.predQuat, 4 * i, this.predRot, 9 * i);
      if (st) {
        this.solverInvMass[i] = 0;
        this.solverInvInertia.fill(0, 9 * i, 9 * i + 9);
      } else {
        this.solverInvMass[i] = B.invMass[i]!;
        // Current orientation: impulses change the current velocities, and the
        // lever arms are taken about the current centres (see contactPoint()).
        quatToMat3(B.quat, 4 * i, this.rot);
        worldInverseInertia(this.rot, 0, B.invInertia, 9 * i, this.solverInvInertia, 9 * i);
      }
    }
  }

  /** World boxes of the predicted poses, grown to cover the current pose too. */
  private computeAabbs(): void {
    const B = this.bodies;
    for (let i = 0; i < B.count; i++) {
      if (this.skip[i]) continue;
      const s = this.shapes[B.shape[i]!]!;
      const lb = s.localBounds;
      const cx = 0.5 * (lb.min[0] + lb.max[0]), cy = 0.5 * (lb.min[1] + lb.max[1]), cz = 0.5 * (lb.min[2] + lb.max[2]);
      const hx = 0.5 * (lb.max[0] - lb.min[0]), hy = 0.5 * (lb.max[1] - lb.min[1]), hz = 0.5 * (lb.max[2] - lb.min[2]);
      const margin = s.sdf ? s.sdf.cellSize : 0;
      const R = this.predRot;
      const o = 9 * i;
      for (let k = 0; k < 3; k++) {
        const c = this.predPos[3 * i + k]! + R[o + 3 * k]! * cx + R[o + 3 * k + 1]! * cy + R[o + 3 * k + 2]! * cz;
        const e = Math.abs(R[o + 3 * k]!) * hx + Math.abs(R[o + 3 * k + 1]!) * hy + Math.abs(R[o + 3 * k + 2]!) * hz + margin;
        // Grow by the displacement from the current pose so the pair list of a
        // phase still holds after impulses change the prediction a little.
        const d = this.predPos[3 * i + k]! - B.pos[3 * i + k]!;
        this.aabbMin[3 * i + k] = c - e - Math.max(0, -d) - Math.abs(d) * 0.5;
        this.aabbMax[3 * i + k] = c + e + Math.max(0, d) + Math.abs(d) * 0.5;
      }
    }
  }

  /** Candidate pairs for a phase: sweep and prune plus every body near a plane. */
  private findPairs(): void {
    const B = this.bodies;
    this.computeAabbs();
    const c = this.constraints;
    const st = B.isStatic;
    this.sap.update(B.count, this.aabbMin, this.aabbMax, this.skip, (a, b) => (st[a] === 1 && st[b] === 1) || (c !== null && c.ignoresPair(a, b)));
    this.pairCount = 0;
    const sp = this.sap.pairs;
    for (let k = 0; k < this.sap.pairCount; k++) this.addPair(sp[2 * k]!, sp[2 * k + 1]!, PAIR_MESH);
    for (const pb of this.planeBodies) {
      const nl = this.shapes[B.shape[pb]!]!.planeNormal!;
      const R = this.predRot;
      const o = 9 * pb;
      const nx = R[o]! * nl[0] + R[o + 1]! * nl[1] + R[o + 2]! * nl[2];
      const ny = R[o + 3]! * nl[0] + R[o + 4]! * nl[1] + R[o + 5]! * nl[2];
      const nz = R[o + 6]! * nl[0] + R[o + 7]! * nl[1] + R[o + 8]! * nl[2];
      const px = B.pos[3 * pb]!, py = B.pos[3 * pb + 1]!, pz = B.pos[3 * pb + 2]!;
      for (let i = 0; i < B.count; i++) {
        if (this.skip[i] || st[i]) continue;
        if (c !== null && c.ignoresPair(Math.min(i, pb), Math.max(i, pb))) continue;
        // Lowest point of the box along the normal.
        let lo = 0;
        for (let k = 0; k < 3; k++) {
          const nk = k === 0 ? nx : k === 1 ? ny : nz;
          lo += nk * (nk > 0 ? this.aabbMin[3 * i + k]! : this.aabbMax[3 * i + k]!);
        }
        if (lo - (nx * px + ny * py + nz * pz) < 0) this.addPair(i, pb, PAIR_PLANE);
      }
    }
    this.profile.pairs = Math.max(this.profile.pairs, this.pairCount);
  }

  private addPair(a: number, b: number, kind: number): void {
    if (this.pairCount === this.pairA.length) {
      const n = this.pairA.length * 2;
      const gi = (x: Int32Array) => {
        const y = new Int32Array(n);
        y.set(x);
        return y;
      };
      const gu = (x: Uint32Array) => {
        const y = new Uint32Array(n);
        y.set(x);
        return y;
      };
      const g8 = (x: Uint8Array) => {
        const y = new Uint8Array(n);
        y.set(x);
        return y;
      };
      this.pairA = gi(this.pairA);
      this.pairB = gi(this.pairB);
      this.pairKind = g8(this.pairKind);
      this.pairVerA = gu(this.pairVerA);
      this.pairVerB = gu(this.pairVerB);
      this.pairFresh = g8(this.pairFresh);
      this.pairTask = gi(this.pairTask);
      this.pairOrder = gi(this.pairOrder);
      this.pairLevel = gi(this.pairLevel);
    }
    const k = this.pairCount++;
    this.pairA[k] = a;
    this.pairB[k] = b;
    this.pairKind[k] = kind;
    this.pairFresh[k] = 0;
    this.pairLevel[k] = 0;
  }

  /**
   * Queries every pair whose bodies changed since its last query (all of them
   * when `all`), in one backend call, and rebuilds the contact set.
   */
  private async detect(all: boolean, stage: 'collisionQuery' | 'contactQuery'): Promise<void> {
    const prof = this.profile;
    prof.begin();
    const B = this.bodies;
    const batch = this.batch;
    batch.clear();
    const ver = this.version;
    let queries = 0;
    for (let k = 0; k < this.pairCount; k++) {
      const a = this.pairA[k]!, b = this.pairB[k]!;
      let stale = all || !this.pairFresh[k] || this.pairVerA[k] !== ver[a] || this.pairVerB[k] !== ver[b];
      // A pair whose predicted poses moved by less than reuseTolerance of a
      // cell since its last query keeps its points: an impulse of a settling
      // contact moves the prediction by dt * dv, far below what the grid resolves.
      if (stale && !all && this.pairFresh[k] && this.reuseTolerance > 0) {
        const tol = this.reuseTolerance * this.pairCell(a, b);
        if (this.drift(k, 0, a) + this.drift(k, 1, b) < tol) stale = false;
      }
      if (!stale) {
        this.pairTask[k] = -2; // reuse cached contacts
        continue;
      }
      this.pairVerA[k] = ver[a]!;
      this.pairVerB[k] = ver[b]!;
      this.pairFresh[k] = 1;
      this.remember(k, 0, a);
      this.remember(k, 1, b);
      if (this.pairKind[k] === PAIR_PLANE) {
        this.pairTask[k] = -1;
        continue;
      }
      const sa = this.queryIndex[B.shape[a]!]!, sb = this.queryIndex[B.shape[b]!]!;
      this.pairTask[k] = batch.count;
      this.pushTask(a, b, sa, sb);
      this.pushTask(b, a, sb, sa);
      queries += this.shapes[B.shape[a]!]!.samples.points.length / 4 + this.shapes[B.shape[b]!]!.samples.points.length / 4;
    }
    // Swap contact buffers: prev keeps the last points (and their per-pair
    // start offsets) for cached pairs.
    const tmp = this.prev;
    this.prev = this.cur;
    this.cur = tmp;
    const oldStart = this.prev.start;
    let res = null;
    if (batch.count > 0) {
      res = await this.backend.query(batch);
      prof.queryCalls++;
      const gpuMs = (this.backend as { lastGpuMs?: number | null }).lastGpuMs;
      if (typeof gpuMs === 'number') prof.gpuQueryMs += gpuMs;
      prof.queries += queries;
    }
    const cs = this.cur;
    cs.beginPairs(this.pairCount);
    const pts = this.prev;
    for (let k = 0; k < this.pairCount; k++) {
      cs.openPair(k);
      const task = this.pairTask[k]!;
      const a = this.pairA[k]!, b = this.pairB[k]!;
      if (task === -2) {
        for (let i = oldStart[k]!; i < oldStart[k + 1]!; i++) cs.copyFrom(pts, i);
      } else if (task === -1) {
        this.planeContacts(a, b);
      } else if (res) {
        this.taskContacts(res, task, a, b);
        this.taskContacts(res, task + 1, b, a);
      }
      cs.sortPair(k);
    }
    cs.endPairs();
    prof.contacts = Math.max(prof.contacts, cs.count);
    prof.end(stage);
  }

  /** Stores body i's predicted pose as side `side` (0: A, 1: B) of pair k's reference. */
  private remember(k: number, side: number, i: number): void {
    if (this.pairRef.length < 14 * this.pairA.length) {
      const r = new Float64Array(14 * this.pairA.length);
      r.set(this.pairRef.subarray(0, Math.min(this.pairRef.length, r.length)));
      this.pairRef = r;
    }
    const o = 14 * k + 7 * side;
    const P = this.predPos, Q = this.predQuat;
    for (let c = 0; c < 3; c++) this.pairRef[o + c] = P[3 * i + c]!;
    for (let c = 0; c < 4; c++) this.pairRef[o + 3 + c] = Q[4 * i + c]!;
  }

  /** Upper bound of how far any point of body i moved from pair k's reference pose. */
  private drift(k: number, side: number, i: number): number {
    const o = 14 * k + 7 * side;
    const r = this.pairRef, P = this.predPos, Q = this.predQuat;
    const dx = P[3 * i]! - r[o]!, dy = P[3 * i + 1]! - r[o + 1]!, dz = P[3 * i + 2]! - r[o + 2]!;
    // Rotation angle between the two orientations: 2 asin |vec(q conj(q_ref))| (bounded above).
    const ax = Q[4 * i]!, ay = Q[4 * i + 1]!, az = Q[4 * i + 2]!, aw = Q[4 * i + 3]!;
    const bx = -r[o + 3]!, by = -r[o + 4]!, bz = -r[o + 5]!, bw = r[o + 6]!;
    const vx = aw * bx + ax * bw + ay * bz - az * by;
    const vy = aw * by - ax * bz + ay * bw + az * bx;
    const vz = aw * bz + ax * by - ay * bx + az * bw;
    // 2 asin(s) <= 2 s + s^3 for s <= 0.5; beyond that the pose moved a lot anyway.
    const s2 = vx * vx + vy * vy + vz * vz;
    const sv = Math.sqrt(s2);
    const angle = sv > 0.5 ? Math.PI : 2 * sv + sv * s2;
    return Math.sqrt(dx * dx + dy * dy + dz * dz) + angle * this.shapes[this.bodies.shape[i]!]!.radius;
  }

  private pushTask(a: number, b: number, sa: number, sb: number): void {
    // Pose of A's frame in B's frame: q = qB^-1 qA, t = RB^T (xA - xB).
    const q = this.predQuat;
    const bx = -q[4 * b]!, by = -q[4 * b + 1]!, bz = -q[4 * b + 2]!, bw = q[4 * b + 3]!;
    const ax = q[4 * a]!, ay = q[4 * a + 1]!, az = q[4 * a + 2]!, aw = q[4 * a + 3]!;
    const qx = bw * ax + bx * aw + by * az - bz * ay;
    const qy = bw * ay - bx * az + by * aw + bz * ax;
    const qz = bw * az + bx * ay - by * ax + bz * aw;
    const qw = bw * aw - bx * ax - by * ay - bz * az;
    const R = this.predRot;
    const o = 9 * b;
    const dx = this.predPos[3 * a]! - this.predPos[3 * b]!;
    const dy = this.predPos[3 * a + 1]! - this.predPos[3 * b + 1]!;
    const dz = this.predPos[3 * a + 2]! - this.predPos[3 * b + 2]!;
    const tx = R[o]! * dx + R[o + 3]! * dy + R[o + 6]! * dz;
    const ty = R[o + 1]! * dx + R[o + 4]! * dy + R[o + 7]! * dz;
    const tz = R[o + 2]! * dx + R[o + 5]! * dy + R[o + 8]! * dz;
    this.batch.push(sa, sb, qx, qy, qz, qw, tx, ty, tz);
  }

  /** Contacts of one query task: samples of body a inside body b. */
  private taskContacts(res: import('../collision/query.ts').QueryResult, task: number, a: number, b: number): void {
    const shapeA = this.shapes[this.bodies.shape[a]!]!;
    const pts = shapeA.samples.points;
    const sn = shapeA.samples.normals;
    const shallow = -this.shapes[this.bodies.shape[b]!]!.sdf!.cellSize;
    const R = this.predRot;
    const oa = 9 * a, ob = 9 * b;
    for (let r = res.taskStart[task]!; r < res.taskStart[task + 1]!; r++) {
      const s = res.sample[r]!;
      const phi = res.phi[r]!;
      const lx = pts[4 * s]!, ly = pts[4 * s + 1]!, lz = pts[4 * s + 2]!;
      const px = this.predPos[3 * a]! + R[oa]! * lx + R[oa + 1]! * ly + R[oa + 2]! * lz;
      const py = this.predPos[3 * a + 1]! + R[oa + 3]! * lx + R[oa + 4]! * ly + R[oa + 5]! * lz;
      const pz = this.predPos[3 * a + 2]! + R[oa + 6]! * lx + R[oa + 7]! * ly + R[oa + 8]! * lz;
      const nlx = res.normal[3 * r]!, nly = res.normal[3 * r + 1]!, nlz = res.normal[3 * r + 2]!;
      const nx = R[ob]! * nlx + R[ob + 1]! * nly + R[ob + 2]! * nlz;
      const ny = R[ob + 3]! * nlx + R[ob + 4]! * nly + R[ob + 5]! * nlz;
      const nz = R[ob + 6]! * nlx + R[ob + 7]! * nly + R[ob + 8]! * nlz;
      if (sn && phi > shallow) {
        // A shallow hit where A's surface faces the same way as B's (dot > 0)
        // is a grazing artefact: A's rim sample lying on B's side face when
        // two faces coincide edge to edge. Its sideways normal would only spin
        // the bodies; deep hits are always kept.
        const ax = sn[4 * s]!, ay = sn[4 * s + 1]!, az = sn[4 * s + 2]!;
        const wx = R[oa]! * ax + R[oa + 1]! * ay + R[oa + 2]! * az;
        const wy = R[oa + 3]! * ax + R[oa + 4]! * ay + R[oa + 5]! * az;
        const wz = R[oa + 6]! * ax + R[oa + 7]! * ay + R[oa + 8]! * az;
        if (wx * nx + wy * ny + wz * nz > 0) continue;
      }
      this.pushContact(a, b, px, py, pz, nx, ny, nz, phi);
    }
  }

  /**
   * Adds a contact found at the predicted poses. Impulses act on the current
   * velocities with lever arms about the current centres, so the point is
   * moved back by the mean predicted displacement of the two bodies: both
   * bodies then get their impulse at the same point, which conserves linear
   * and angular momentum exactly (arms about the predicted centres would not,
   * by dt (v1 - v2) x J per impulse).
   */
  private pushContact(a: number, b: number, px: number, py: number, pz: number, nx: number, ny: number, nz: number, phi: number): void {
    const P = this.predPos, X = this.bodies.pos;
    const sx = 0.5 * (P[3 * a]! - X[3 * a]! + P[3 * b]! - X[3 * b]!);
    const sy = 0.5 * (P[3 * a + 1]! - X[3 * a + 1]! + P[3 * b + 1]! - X[3 * b + 1]!);
    const sz = 0.5 * (P[3 * a + 2]! - X[3 * a + 2]! + P[3 * b + 2]! - X[3 * b + 2]!);
    this.cur.push(a, b, px - sx, py - sy, pz - sz, nx, ny, nz, phi);
  }

  /** Samples of body a below the plane of body p (analytic distance; every vertex, deepest sample per edge). */
  private planeContacts(a: number, p: number): void {
    const B = this.bodies;
    const sp = this.shapes[B.shape[p]!]!;
    const nl = sp.planeNormal!;
    const R = this.predRot;
    const op = 9 * p;
    const nx = R[op]! * nl[0] + R[op + 1]! * nl[1] + R[op + 2]! * nl[2];
    const ny = R[op + 3]! * nl[0] + R[op + 4]! * nl[1] + R[op + 5]! * nl[2];
    const nz = R[op + 6]! * nl[0] + R[op + 7]! * nl[1] + R[op + 8]! * nl[2];
    const d0 = nx * this.predPos[3 * p]! + ny * this.predPos[3 * p + 1]! + nz * this.predPos[3 * p + 2]!;
    const s = this.shapes[B.shape[a]!]!.samples;
    const pts = s.points;
    const oa = 9 * a;
    const cx = this.predPos[3 * a]!, cy = this.predPos[3 * a + 1]!, cz = this.predPos[3 * a + 2]!;
    // Distance of a local point along the world normal: (R^T n) . l + n . c - d0.
    const lnx = R[oa]! * nx + R[oa + 3]! * ny + R[oa + 6]! * nz;
    const lny = R[oa + 1]! * nx + R[oa + 4]! * ny + R[oa + 7]! * nz;
    const lnz = R[oa + 2]! * nx + R[oa + 5]! * ny + R[oa + 8]! * nz;
    const base = nx * cx + ny * cy + nz * cz - d0;
    const nv = s.vertexCount, k = s.edgeSamples;
    const items = nv + s.edgeCount;
    for (let item = 0; item < items; item++) {
      const first = item < nv ? item : nv + (item - nv) * k;
      const count = item < nv ? 1 : k;
      let best = -1;
      let bestPhi = 0;
      for (let si = first; si < first + count; si++) {
        const phi = base + lnx * pts[4 * si]! + lny * pts[4 * si + 1]! + lnz * pts[4 * si + 2]!;
        if (phi < 0 && (best < 0 || phi < bestPhi)) {
          best = si;
          bestPhi = phi;
        }
      }
      if (best < 0) continue;
      const lx = pts[4 * best]!, ly = pts[4 * best + 1]!, lz = pts[4 * best + 2]!;
      this.pushContact(
        a, p,
        cx + R[oa]! * lx + R[oa + 1]! * ly + R[oa + 2]! * lz,
        cy + R[oa + 3]! * lx + R[oa + 4]! * ly + R[oa + 5]! * lz,
        cz + R[oa + 6]! * lx + R[oa + 7]! * ly + R[oa + 8]! * lz,
        nx, ny, nz, bestPhi,
      );
    }
  }

  /**
   * Pair material: the larger friction, rolling and spinning friction (the
   * seed, 7.1) and the product of the restitutions, so a contact is fully
   * elastic only when both bodies are, and a 0 on either side kills the
   * bounce (elastic balls keep their bounce off each other but not off a
   * damped floor).
   */
  private pairMaterial(a: number, b: number): Material {
    const B = this.bodies;
    const m = this.mat;
    m.restitution = B.restitution[a]! * B.restitution[b]!;
    m.friction = Math.max(B.friction[a]!, B.friction[b]!);
    m.rolling = Math.max(B.rollingFriction[a]!, B.rollingFriction[b]!);
    m.spinning = Math.max(B.spinningFriction[a]!, B.spinningFriction[b]!);
    return m;
  }

  /**
   * Resolves pair k. Its points are sorted deepest first; the deepest point
   * not yet handled leads a *patch*: every unhandled point of the pair at most
   * PATCH_BAND cells shallower whose normal agrees with the leader's (points
   * found in the reverse direction count with their roles and normal
   * flipped). One impulse is applied at the patch's centroid along its mean
   * normal, if it approaches there. A box landing on a corner makes a one-point
   * patch at the corner (the seed's deepest point); a box resting flat makes
   * one patch over its whole face, pushed through the face's centre, so the
   * rest state carries no spurious spin from whichever corner came first.
   * `eps` < -1 means "use the pair's restitution" (collision phase).
   * `sweeps` > 1 repeats the pair with a restitution ramp (shock propagation).
   */
  private resolvePair(k: number, eps: number, sweeps = 1): boolean {
    const cs = this.cur;
    const s = cs.start[k]!, e = cs.start[k + 1]!;
    if (s === e) return false;
    const a = this.pairA[k]!, b = this.pairB[k]!;
    const m = this.pairMaterial(a, b);
    const useEps = eps < -1 ? m.restitution : eps;
    const st = this.impulseState;
    const cell = this.pairCell(a, b);
    const band = PATCH_BAND * cell;
    if (this.handled.length < e - s) this.handled = new Uint8Array(2 * (e - s));
    const handled = this.handled;
    let any = false;
    for (let sweep = 0; sweep < sweeps; sweep++) {
      let applied = false;
      // Several sweeps ramp the restitution like the contact iterations do.
      const epsK = sweeps > 1 ? -0.9 + (0.9 * sweep) / (sweeps - 1) : useEps;
      handled.fill(0, 0, e - s);
      for (let i = s; i < e; i++) {
        if (handled[i - s]) continue;
        handled[i - s] = 1;
        const b1 = cs.b1[i]!;
        const lnx = cs.n[3 * i]!, lny = cs.n[3 * i + 1]!, lnz = cs.n[3 * i + 2]!;
        let px = cs.p[3 * i]!, py = cs.p[3 * i + 1]!, pz = cs.p[3 * i + 2]!;
        let nx = lnx, ny = lny, nz = lnz;
        let count = 1;
        const limit = cs.phi[i]! + band;
        for (let j = i + 1; j < e && cs.phi[j]! <= limit; j++) {
          if (handled[j - s]) continue;
          const sign = cs.b1[j] === b1 ? 1 : -1;
          const mx = sign * cs.n[3 * j]!, my = sign * cs.n[3 * j + 1]!, mz = sign * cs.n[3 * j + 2]!;
          if (mx * lnx + my * lny + mz * lnz < PATCH_COS) continue;
          handled[j - s] = 1;
          px += cs.p[3 * j]!;
          py += cs.p[3 * j + 1]!;
          pz += cs.p[3 * j + 2]!;
          nx += mx;
          ny += my;
          nz += mz;
          count++;
        }
        let flat = false;
        if (count > 1) {
          px /= count;
          py /= count;
          pz /= count;
          const l = Math.hypot(nx, ny, nz);
          nx /= l;
          ny /= l;
          nz /= l;
          flat = this.patchSpread(i, e, b1, lnx, lny, lnz, cs.phi[i]! + TORQUE_BAND * cell, nx, ny, nz);
        }
        const b2 = cs.b2[i]!;
        // Contact phase: push out of penetrations deeper than PUSH_SLOP cells.
        const depth = -cs.phi[i]! - PUSH_SLOP * cell;
        const bias = eps >= -1 && depth > 0 ? Math.min(PUSH_MAX, (PUSH_RATE * depth) / this.dt) : 0;
        const jn = applyContactImpulse(st, b1, b2, px, py, pz, nx, ny, nz, epsK, m, bias);
        if (jn !== 0) {
          applied = true;
          if (flat) {
            // Torque and friction at the centroid interact (the centroid of
            // the samples is rarely the patch's true centre): alternate them
            // a few times so a sticking patch ends neither spinning nor
            // creeping, within what is left of its friction cone.
            const sticking = lastImpulse.sticking;
            let budget = m.friction * jn - lastImpulse.jt;
            for (let r = 0; r < 3; r++) {
              applyPatchTorque(st, b1, b2, nx, ny, nz, jn, this.spread, m.friction);
              if (sticking && budget > 0) budget -= applyTangentialStick(st, b1, b2, px, py, pz, nx, ny, nz, budget);
            }
          }
        }
      }
      if (!applied) break;
      any = true;
    }
    if (any) {
      this.version[a]++;
      this.version[b]++;
    }
    return any;
  }

  /**
   * The spread of a flat patch: the points of pair k's patch led by point i
   * that are within TORQUE_BAND cells of the leader's depth (a face lying flat
   * on a face: equal depths to rounding), as principal standard deviations
   * sigma1 >= sigma2 along tangent directions e1, e2 (written to this.spread:
   * sigma1, sigma2, e1x, e1y, e1z, e2x, e2y, e2z). A single deepest point or a
   * curved surface gives ~0 and no torque; an edge gives sigma2 ~ 0, so it
   * rolls freely about itself.
   */
  private patchSpread(i: number, e: number, b1: number, lnx: number, lny: number, lnz: number, limit: number,
    nx: number, ny: number, nz: number): boolean {
    const cs = this.cur;
    // Tangent basis t1, t2 of n.
    let t1x: number, t1y: number, t1z: number;
    if (Math.abs(nx) < 0.6) { t1x = 0; t1y = nz; t1z = -ny; } else { t1x = -nz; t1y = 0; t1z = nx; }
    const tl = Math.hypot(t1x, t1y, t1z);
    t1x /= tl; t1y /= tl; t1z /= tl;
    const t2x = ny * t1z - nz * t1y, t2y = nz * t1x - nx * t1z, t2z = nx * t1y - ny * t1x;
    let cnt = 0, su = 0, sv = 0, suu = 0, svv = 0, suv = 0;
    for (let j = i; j < e && cs.phi[j]! <= limit; j++) {
      if (j !== i) {
        const sign = cs.b1[j] === b1 ? 1 : -1;
        if (sign * (cs.n[3 * j]! * lnx + cs.n[3 * j + 1]! * lny + cs.n[3 * j + 2]! * lnz) < PATCH_COS) continue;
      }
      const px = cs.p[3 * j]!, py = cs.p[3 * j + 1]!, pz = cs.p[3 * j + 2]!;
      const u = px * t1x + py * t1y + pz * t1z, v = px * t2x + py * t2y + pz * t2z;
      cnt++; su += u; sv += v; suu += u * u; svv += v * v; suv += u * v;
    }
    if (cnt < 3) return false;
    const mu = su / cnt, mv = sv / cnt;
    const cuu = Math.max(0, suu / cnt - mu * mu), cvv = Math.max(0, svv / cnt - mv * mv), cuv = suv / cnt - mu * mv;
    // Eigen-decomposition of the 2x2 covariance.
    const tr = cuu + cvv, det = cuu * cvv - cuv * cuv;
    const disc = Math.sqrt(Math.max(0, 0.25 * tr * tr - det));
    const l1 = 0.5 * tr + disc, l2 = Math.max(0, 0.5 * tr - disc);
    if (!(l1 > 0)) return false;
    let ex: number, ey: number;
    if (Math.abs(cuv) > 1e-300) { ex = l1 - cvv; ey = cuv; } else if (cuu >= cvv) { ex = 1; ey = 0; } else { ex = 0; ey = 1; }
    const el = Math.hypot(ex, ey);
    ex /= el; ey /= el;
    const sp = this.spread;
    sp[0] = Math.sqrt(l1);
    sp[1] = Math.sqrt(l2);
    sp[2] = ex * t1x + ey * t2x; sp[3] = ex * t1y + ey * t2y; sp[4] = ex * t1z + ey * t2z;
    sp[5] = -ey * t1x + ex * t2x; sp[6] = -ey * t1y + ex * t2y; sp[7] = -ey * t1z + ex * t2z;
    return true;
  }

  /** The finer SDF cell size of a pair (a plane has none). */
  private pairCell(a: number, b: number): number {
    const sa = this.shapes[this.bodies.shape[a]!]!.sdf, sb = this.shapes[this.bodies.shape[b]!]!.sdf;
    return Math.min(sa ? sa.cellSize : Infinity, sb ? sb.cellSize : Infinity);
  }

  /**
   * One collision or contact iteration: predict, (re)query, resolve.
   * `levels` < 0: no level order (collision phase). `shock`: the shock
   * propagation pass (restitution 0, lower levels frozen).
   */
  private async iteration(h: number, phase: 'collision' | 'contact', it: number, levels: number, shock: boolean): Promise<void> {
    const prof = this.profile;
    prof.begin();
    this.predict(h, phase === 'collision' && h > 0);
    if (it === 0 && phase === 'collision') this.findPairs();
    prof.end('predict');
    await this.detect(false, phase === 'collision' ? 'collisionQuery' : 'contactQuery');
    prof.begin();
    const n = this.pairCount;
    const order = this.pairOrder;
    if (phase === 'collision') {
      for (let k = 0; k < n; k++) order[k] = k;
      // Shuffle the pair order (seed: swap random pairs of the list).
      for (let k = n - 1; k > 0; k--) {
        const j = Math.floor(this.rng.next() * (k + 1));
        const t = order[k]!;
        order[k] = order[j]!;
        order[j] = t;
      }
      for (let k = 0; k < n; k++) this.resolvePair(order[k]!, -2);
      prof.end('collisionSolve');
      return;
    }
    const iters = this.solver.contactIterations;
    const eps = shock ? 0 : iters > 1 ? -0.9 + (0.9 * it) / (iters - 1) : 0;
    // Pairs sorted by level (counting sort, stable).
    this.sortPairsByLevel(levels);
    const c = this.constraints;
    const jointLevels = c !== null && this.solver.contactGraph;
    let curLevel = -1;
    for (let k = 0; k < n; k++) {
      const p = order[k]!;
      const L = this.pairLevel[p]!;
      if (L !== curLevel) {
        // Joints of the level just resolved, and of every level below L that
        // has no contacts of its own (e.g. a chain hanging in the air under a
        // stack that only starts at level 1).
        if (jointLevels) this.jointPass(Math.max(0, curLevel), L, shock);
        if (shock) this.freezeBelow(L);
        curLevel = L;
      }
      // Shock propagation: the lower level is frozen, so repeating the pair
      // until no point approaches is cheap and converges (seed 8.1's "until
      // every point was once separating", run to the end).
      this.resolvePair(p, eps, shock ? SHOCK_SWEEPS : 1);
    }
    if (c) {
      // The last contact level and the joint-only levels above it; without
      // contacts (a pendulum in the air) or without a graph, every joint.
      if (jointLevels && curLevel >= 0) this.jointPass(curLevel, levels, shock);
      else c.positionStabilize(this, -1);
    }
    if (shock) this.predict(h, false); // restore masses (unfreeze)
    prof.end(shock ? 'shockPropagation' : 'contactSolve');
  }

  /**
   * The PGS contact phase (src/dynamics/pgs.ts) on the contacts buildLevels
   * found at x' = x + h v: pairs bottom level first, no shock propagation;
   * joints get one position pass afterwards.
   */
  private solvePgs(h: number, levels: number): void {
    const prof = this.profile;
    prof.begin();
    this.sortPairsByLevel(levels);
    this.pgs.solve(this, this.cur, this.pairOrder, this.pairCount, h);
    // Velocities changed: pairs of these bodies must not reuse their points.
    const cs = this.cur;
    for (let i = 0; i < cs.count; i++) {
      this.version[cs.b1[i]!]++;
      this.version[cs.b2[i]!]++;
    }
    this.constraints?.positionStabilize(this, -1);
    prof.end('contactSolve');
  }

  /** Joint position pass for levels [from, to), each after freezing the levels below it in shock propagation. */
  private jointPass(from: number, to: number, shock: boolean): void {
    for (let L = from; L < to; L++) {
      if (shock) this.freezeBelow(L);
      this.constraints!.positionStabilize(this, L);
    }
  }

  private sortPairsByLevel(levels: number): void {
    const n = this.pairCount;
    const order = this.pairOrder;
    const lv = this.level;
    const nl = Math.max(1, levels);
    const counts = new Int32Array(nl + 1);
    for (let k = 0; k < n; k++) {
      const a = this.pairA[k]!, b = this.pairB[k]!;
      const L = this.solver.contactGraph ? Math.max(0, lv[a]!, lv[b]!) : 0;
      this.pairLevel[k] = Math.min(L, nl - 1);
      counts[this.pairLevel[k]! + 1]++;
    }
    for (let l = 0; l < nl; l++) counts[l + 1] += counts[l]!;
    for (let k = 0; k < n; k++) order[counts[this.pairLevel[k]!]!++] = k;
  }

  /** Shock propagation: bodies below `level` get infinite mass (K = 0). */
  private freezeBelow(level: number): void {
    const B = this.bodies;
    for (let i = 0; i < B.count; i++) {
      if (this.level[i]! < level && this.solverInvMass[i] !== 0) {
        this.solverInvMass[i] = 0;
        this.solverInvInertia.fill(0, 9 * i, 9 * i + 9);
      }
    }
  }

  /**
   * Contact graph (ALGORITHM.md 4.5): query at x' = x + h v, add an edge from
   * the supporting body to the supported one per touching pair, levels from
   * the strongly connected components. Returns the number of levels.
   */
  private async buildLevels(h: number): Promise<number> {
    const prof = this.profile;
    prof.begin();
    this.predict(h, false);
    // The collision phase's pair list still holds (its boxes cover the
    // prediction); without collision iterations, find pairs now.
    if (this.solver.collisionIterations === 0) this.findPairs();
    prof.end('predict');
    await this.detect(false, 'contactQuery');
    prof.begin();
    const B = this.bodies;
    const n = B.count;
    if (!this.solver.contactGraph) {
      for (let i = 0; i < n; i++) this.level[i] = B.isStatic[i] ? -1 : 0;
      prof.end('contactGraph');
      return 1;
    }
    const g = this.gravity;
    let ux = -g[0], uy = -g[1], uz = -g[2];
    const gl = Math.hypot(ux, uy, uz);
    if (gl > 0) {
      ux /= gl;
      uy /= gl;
      uz /= gl;
    } else {
      uy = 1;
    }
    const graph = this.graph;
    graph.reset(n);
    const cs = this.cur;
    for (let k = 0; k < this.pairCount; k++) {
      const s = cs.start[k]!;
      if (s === cs.start[k + 1]) continue;
      // The deepest point's normal decides who supports whom.
      const b1 = cs.b1[s]!, b2 = cs.b2[s]!;
      const up = cs.n[3 * s]! * ux + cs.n[3 * s + 1]! * uy + cs.n[3 * s + 2]! * uz;
      if (B.isStatic[b1] || B.isStatic[b2]) continue;
      if (up >= 0) graph.addEdge(b2, b1);
      else graph.addEdge(b1, b2);
    }
    this.constraints?.graphEdges(this, (u, v) => {
      graph.addEdge(u, v);
      graph.addEdge(v, u);
    });
    graph.solve(B.isStatic);
    this.level.set(graph.level.subarray(0, n));
    prof.end('contactGraph');
    return Math.max(1, graph.levelCount);
  }

  private velocityUpdate(dt: number): void {
    const B = this.bodies;
    const g = this.gravity;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      B.vel[3 * i] += dt * g[0];
      B.vel[3 * i + 1] += dt * g[1];
      B.vel[3 * i + 2] += dt * g[2];
    }
    if (this.constraints && this.constraints.applyForces(this, dt)) {
      // Motors changed angular velocities: every cached prediction is stale.
      for (let i = 0; i < B.count; i++) this.version[i]++;
    }
  }

  private integrate(dt: number): void {
    const B = this.bodies;
    for (let i = 0; i < B.count; i++) {
      if (B.isStatic[i]) continue;
      B.pos[3 * i] += dt * B.vel[3 * i]!;
      B.pos[3 * i + 1] += dt * B.vel[3 * i + 1]!;
      B.pos[3 * i + 2] += dt * B.vel[3 * i + 2]!;
      integrateQuat(B.quat, 4 * i, B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!, dt, B.quat, 4 * i);
    }
  }

  /** Guard: no NaN/Inf may enter the state; name the body and the stage. */
  private checkFinite(stage: Stage): void {
    const B = this.bodies;
    for (let i = 0; i < B.count; i++) {
      const ok =
        Number.isFinite(B.pos[3 * i]! + B.pos[3 * i + 1]! + B.pos[3 * i + 2]!) &&
        Number.isFinite(B.vel[3 * i]! + B.vel[3 * i + 1]! + B.vel[3 * i + 2]!) &&
        Number.isFinite(B.angVel[3 * i]! + B.angVel[3 * i + 1]! + B.angVel[3 * i + 2]!) &&
        Number.isFinite(B.quat[4 * i]! + B.quat[4 * i + 1]! + B.quat[4 * i + 2]! + B.quat[4 * i + 3]!);
      if (!ok) {
        throw new SimulationError(`non-finite state of body "${B.names[i]}" after stage ${stage} at step ${this.stepCount} (t = ${this.time.toFixed(4)} s)`);
      }
    }
  }

  private publishContacts(): void {
    const cs = this.cur;
    const v = this.contacts;
    if (v.points.length < 3 * cs.count) {
      v.points = new Float64Array(3 * cs.count + 96);
      v.normals = new Float64Array(3 * cs.count + 96);
      v.depth = new Float64Array(cs.count + 32);
    }
    v.points.set(cs.p.subarray(0, 3 * cs.count));
    v.normals.set(cs.n.subarray(0, 3 * cs.count));
    for (let i = 0; i < cs.count; i++) v.depth[i] = -cs.phi[i]!;
    v.count = cs.count;
  }
}
