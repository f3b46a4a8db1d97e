/**
 * Soft bodies inside World's step: the stage "soft" (World.soft, a StepHook).
 * World calls step() once per step after its velocity update, before the
 * contact phase (docs/soft-bodies.md, "Coupling"); the soft bodies then move
 * through the whole step among the rigid bodies, whose poses run from the
 * step's start to the pose their current velocities predict, and whatever
 * impulses the soft bodies give the rigid bodies are in their velocities when
 * World's contact phase resolves them, as gravity's are.
 *
 * One step:
 *  1. rigid motion: every body's pose now and as World's predict stage
 *     predicts it (predict.ts, horizon dt), its world inverse inertia; each
 *     particle's predicted end x + dt v + dt^2 g;
 *  2. pairs: a soft body's box (its particles at both ends) against every
 *     rigid body's swept box, and against the other soft bodies' boxes;
 *  3. sample sets, one batched query (the same PenetrationBackend, CPU or
 *     GPU, as the rigid bodies' narrow phase; src/collision/query.ts):
 *       set 2b     the paths of soft body b's particles that can reach a rigid
 *                  body: each path (now to predicted end) sampled every half
 *                  cell of the finest field it can reach, so a wall two cells
 *                  thick cannot be stepped over; tasks: the set against each
 *                  rigid body of its pairs, posed into its frame at mid-step,
 *                  margin one cell plus half its motion over the step;
 *       set 2b+1   the rigid bodies' samples that lie inside soft body b at
 *                  their predicted positions (located in b's tetrahedra;
 *                  embed.ts), mapped to b's rest shape; task: the set
 *                  against b's own rest shape, whose SDF World's shape list
 *                  carries;
 *  4. contacts from the records (contact.ts): per particle and rigid body the
 *     first record along its path (the surface it reaches first) and, when
 *     later, the first record inside a surface the path enters; per located
 *     point its record in the rest shape; and the pairs of surface particles
 *     of different soft bodies that can touch within the step (a hash grid;
 *     soft against soft needs no field, contact.ts);
 *  5. the soft system's step (its substeps resolve those contacts, the
 *     static planes and the pins), then the pins' pull on their rigid bodies;
 *     every rigid body that took an impulse is woken (World.bodyEdited).
 *
 * Support through a rigid body (transmitSupport). Within the stage a rigid
 * body is free: a heavy soft ball resting on a light plank pushes the plank
 * down with its weight's impulse every step, and the plank moves with the
 * ball. What holds the plank (the ground, a fulcrum) acts only in World's
 * contact phase afterwards, which stops the plank but not the ball; the ball
 * would keep the downward velocity, gain another g dt the next step, push the
 * plank again, and so on: its velocity grew step after step until the net
 * tore (a 40 kg ball on the seesaw's 4 kg plank, within 0.6 s). So the next
 * stage first hands on what World did to the body meanwhile: for every
 * particle that rested on it at the end of the last stage, the change of the
 * body's velocity at the particle (less gravity, which the particle got too),
 * where it pushes along the contact normal, is added to the particle. In free
 * space World changes nothing and this adds nothing (momentum is kept
 * exactly); on a support it is the support's reaction, one step late, like a
 * rigid body on a stack between its contact phase and the next.
 */
import { QueryBatchBuilder, sampleSetRef, type QueryResult } from '../collision/query.ts';
import { sampleCount } from '../geometry/samples.ts';
import type { StepHook, StepHookInput } from '../dynamics/stepHook.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import { quatToMat3, worldInverseInertia } from '../dynamics/math.ts';
import { predictPoses } from '../dynamics/predict.ts';
import { StepContext } from '../dynamics/stepContext.ts';
import { grown, growColumns } from '../util/growable.ts';
import type { PlaneCollider } from './collide.ts';
import { RIGID_SLOP, RigidMotion, SoftContacts } from './contact.ts';
import { TetLocator } from './embed.ts';
import { sampleSdf } from '../sdf/grid.ts';
import { SpringKind } from './model.ts';
import type { PinFrames, SoftState, SoftSystem } from './system.ts';
import * as det from '../util/detmath.ts';

/** Most samples along one particle's path in a step (beyond that they are spread wider). */
export const MAX_PATH_SAMPLES = 48;
/** Soft-soft balls: surface particles (within this many spacings of the rest surface) get a ball of BALL_RADIUS spacings. */
const SURFACE_DEPTH = 0.6;
const BALL_RADIUS = 0.5;
/** Smallest barycentric weight of a rigid point located in a soft body: inside the tetrahedra, give or take rounding. */
const RIGID_TOLERANCE = 0.02;
/** Query margin against a rigid body's field, in its cells (plus half its motion over the step). */
const MARGIN_CELLS = 1;
/** A query task's columns: what it is, the soft body, the rigid body. */
const TASK_COLUMNS = { taskKind: 1, taskSoft: 1, taskRigid: 1 } as const;
/** A PointSet's columns. */
const POINT_COLUMNS = { points: 4, tag: 1, tet: 1, local: 3 } as const;

/** Query shape index of each world shape: the shapes with a field, in order (what NarrowPhase.upload sends to setShapes); -1 for planes. */
export function queryShapeIndices(shapes: readonly RigidShape[]): Int32Array {
  const out = new Int32Array(shapes.length);
  let k = 0;
  shapes.forEach((s, i) => (out[i] = s.sdf ? k++ : -1));
  return out;
}

/** The stage's state for World.saveState: the particles, and what rested on which rigid body (transmitSupport). */
export interface CouplingState {
  system: SoftState;
  support: { part: Int32Array; body: Int32Array; n: Float64Array; vel: Float64Array; step: number };
}

/** What the soft stage did in the last step. */
export interface SoftStageStats {
  /** Milliseconds: pairs, sets and contacts (host), the query call, the soft system's step, all of it. */
  prepareMs: number;
  queryMs: number;
  solveMs: number;
  totalMs: number;
  /** Samples sent to the query (path samples and located points) and records back. */
  samples: number;
  probes: number;
  records: number;
  queryCalls: number;
  /** Particle-field contacts, located points and soft-soft particle pairs of the step; contacts that acted in some substep. */
  contacts: number;
  embedded: number;
  pairs: number;
  active: number;
  substeps: number;
}

/** Pins follow World's bodies through the step (their shape frame: the centre of mass minus R comOffset). */
export class WorldPinFrames implements PinFrames {
  constructor(private readonly motion: RigidMotion, private readonly world: StepHookInput) {}
  frame(body: number, s: number, out: Float64Array): void {
    const m = this.motion;
    m.pose(body, s);
    const off = this.world.shapes[this.world.bodies.shape[body]!]!.comOffset;
    const R = m.R, o = 9 * body;
    for (let k = 0; k < 3; k++) out[k] = m.c[3 * body + k]! - (R[o + 3 * k]! * off[0] + R[o + 3 * k + 1]! * off[1] + R[o + 3 * k + 2]! * off[2]);
    for (let k = 0; k < 4; k++) out[3 + k] = m.q[4 * body + k]!;
  }
}

export class SoftCoupling implements StepHook {
  readonly motion = new RigidMotion();
  readonly contacts = new SoftContacts(this.motion);
  readonly stats: SoftStageStats = {
    prepareMs: 0, queryMs: 0, solveMs: 0, totalMs: 0, samples: 0, probes: 0, records: 0, queryCalls: 0, contacts: 0, embedded: 0, pairs: 0, active: 0, substeps: 0,
  };
  private queryIndex: Int32Array = new Int32Array(0);
  private readonly batch = new QueryBatchBuilder();
  /** Predicted particle ends, 3 per particle. */
  private x1 = new Float64Array(0);
  /** Per soft body: box of its particles now and at the predicted end (6). */
  private softBox = new Float64Array(0);
  /** Per rigid body: box swept over the step (6), the mid-step pose (7), margin. */
  private rigidBox = new Float64Array(0);
  private midPose = new Float64Array(0);
  private rigidMargin = new Float64Array(0);
  private readonly locators: TetLocator[] = [];
  /** Scratch for buildProbes: the candidate probes (world xyz, rigid body, local xyz) and their box. */
  private probeScratch = new Float64Array(0);
  private readonly probeRegion = new Float64Array(6);
  private readonly sets: PointSet[] = [];
  /** Tasks (TASK_COLUMNS; not private only so growColumns reaches them): what each is (0 path, 1 probes), the soft body, the rigid body. */
  taskKind = new Uint8Array(0);
  taskSoft = new Int32Array(0);
  taskRigid = new Int32Array(0);
  private readonly rot = new Float64Array(9);
  /** Where World's predict stage (predict.ts) puts the rigid bodies' predicted poses for this stage. */
  private ctx: StepContext | null = null;
  private readonly w = new Float64Array(4);
  /** Velocity and angular velocity of each supporting body at the end of the last stage (6 per World body), and that step. */
  private supportVel = new Float64Array(0);
  private supportStep = -1;
  private readonly pv = new Float64Array(3);
  // Soft-soft pairs: ball radius per particle, candidates, hash grid.
  private radius = new Float64Array(0);
  /** Per candidate particle: its predicted displacement over the step. */
  private move = new Float64Array(0);
  private candidates = new Int32Array(0);
  private heads = new Int32Array(0);
  private next = new Int32Array(0);
  private cellOf = new Int32Array(0);

  /**
   * @param restShape World shape index of each soft body's rest shape (its SDF
   *   tells how deep a point mapped into the rest shape is).
   */
  constructor(readonly system: SoftSystem, readonly planes: PlaneCollider, readonly restShape: readonly number[], world: StepHookInput) {
    system.colliders = [planes, this.contacts];
    this.capture(world, 0);
  }

  get bodyCount(): number {
    return this.system.bodies.length;
  }

  kineticEnergy(): number {
    return this.system.kineticEnergy();
  }

  saveState(): CouplingState {
    const c = this.contacts, n = c.supportCount;
    return {
      system: this.system.saveState(),
      support: { part: c.supportPart.slice(0, n), body: c.supportBody.slice(0, n), n: c.supportN.slice(0, 3 * n), vel: this.supportVel.slice(), step: this.supportStep },
    };
  }

  restoreState(state: unknown): void {
    const s = state as CouplingState;
    this.system.restoreState(s.system);
    // What rested on what at the end of the saved step, so the next stage hands World's support on as it would have.
    const c = this.contacts, sp = s.support;
    c.supportCount = 0;
    for (let k = 0; k < sp.part.length; k++) c.addSupportRecord(sp.part[k]!, sp.body[k]!, sp.n[3 * k]!, sp.n[3 * k + 1]!, sp.n[3 * k + 2]!);
    this.supportVel = sp.vel.slice();
    this.supportStep = sp.step;
  }

  /** A stand-in PinFrames that follows World's bodies (for SoftSystem.addPin). */
  pinFrames(world: StepHookInput): PinFrames {
    return new WorldPinFrames(this.motion, world);
  }

  async step(world: StepHookInput): Promise<void> {
    const t0 = performance.now();
    const sys = this.system;
    const dt = world.dt;
    const st = this.stats;
    sys.gravity = [world.gravity[0], world.gravity[1], world.gravity[2]];
    if (this.queryIndex.length !== world.shapes.length) this.queryIndex = queryShapeIndices(world.shapes);
    this.transmitSupport(world, dt);
    this.capture(world, dt);
    this.predict(dt);
    this.contacts.clear(world.bodies.count);
    const batch = this.batch;
    batch.clear();
    st.samples = st.probes = st.records = st.queryCalls = st.pairs = 0;
    for (let b = 0; b < sys.bodies.length; b++) this.prepareBody(world, b);
    this.findParticlePairs(world);
    const t1 = performance.now();
    let t2 = t1;
    if (batch.count > 0) {
      for (let k = 0; k < this.sets.length; k++) {
        const set = this.sets[k];
        if (set && set.used) world.backend.setSampleSet(k, set.points, set.count);
      }
      const res = await world.backend.query(batch);
      t2 = performance.now();
      st.queryCalls = 1;
      st.records = res.count;
      this.readContacts(world, res);
    }
    const t3 = performance.now();
    sys.step(dt);
    this.applyPins(world);
    const B = world.bodies, touched = this.contacts.touched;
    for (let i = 0; i < B.count; i++) if (touched[i]) world.bodyEdited(i);
    this.keepSupport(world);
    const t4 = performance.now();
    st.prepareMs = t1 - t0 + (t3 - t2);
    st.queryMs = t2 - t1;
    st.solveMs = t4 - t3;
    st.totalMs = t4 - t0;
    st.contacts = this.contacts.count;
    st.embedded = this.contacts.embeddedCount;
    st.active = this.contacts.active;
    st.substeps = sys.profile.substeps;
  }

  // ------------------------------------------------------------------ support (file comment)

  /** Remembers the velocities of the bodies particles rest on at the end of this stage. */
  private keepSupport(world: StepHookInput): void {
    const B = world.bodies, c = this.contacts;
    this.supportVel = grown(this.supportVel, 6 * B.count);
    for (let k = 0; k < c.supportCount; k++) {
      const r = c.supportBody[k]!;
      for (let a = 0; a < 3; a++) {
        this.supportVel[6 * r + a] = B.vel[3 * r + a]!;
        this.supportVel[6 * r + 3 + a] = B.angVel[3 * r + a]!;
      }
    }
    this.supportStep = world.stepCount;
  }

  /** Hands World's change of each supporting body's velocity since the last stage on to the particles resting on it. */
  private transmitSupport(world: StepHookInput, dt: number): void {
    const c = this.contacts;
    if (this.supportStep !== world.stepCount - 1 || c.supportCount === 0) return;
    const B = world.bodies, sys = this.system, x = sys.pos, v = sys.vel, sv = this.supportVel, pv = this.pv;
    const g = world.gravity;
    for (let k = 0; k < c.supportCount; k++) {
      const r = c.supportBody[k]!, i = c.supportPart[k]!;
      if (B.invMass[r] === 0 || r >= B.count) continue;
      const rx = x[3 * i]! - B.pos[3 * r]!, ry = x[3 * i + 1]! - B.pos[3 * r + 1]!, rz = x[3 * i + 2]! - B.pos[3 * r + 2]!;
      // The body's point velocity now and at the end of the last stage (plus the gravity since), at the particle.
      const dwx = B.angVel[3 * r]! - sv[6 * r + 3]!, dwy = B.angVel[3 * r + 1]! - sv[6 * r + 4]!, dwz = B.angVel[3 * r + 2]! - sv[6 * r + 5]!;
      pv[0] = B.vel[3 * r]! - sv[6 * r]! - dt * g[0] + dwy * rz - dwz * ry;
      pv[1] = B.vel[3 * r + 1]! - sv[6 * r + 1]! - dt * g[1] + dwz * rx - dwx * rz;
      pv[2] = B.vel[3 * r + 2]! - sv[6 * r + 2]! - dt * g[2] + dwx * ry - dwy * rx;
      const nx = c.supportN[3 * k]!, ny = c.supportN[3 * k + 1]!, nz = c.supportN[3 * k + 2]!;
      const push = pv[0]! * nx + pv[1]! * ny + pv[2]! * nz;
      if (!(push > 0) || sys.invMass[i] === 0) continue;
      v[3 * i] += push * nx;
      v[3 * i + 1] += push * ny;
      v[3 * i + 2] += push * nz;
    }
  }

  // ------------------------------------------------------------------ 1. motion

  /**
   * Every body's pose now and at the end of a step of dt at its current
   * velocity, as World's predict stage makes it (predict.ts: the stage run
   * on this stage's own StepContext, horizon dt, no gravity term, static and
   * sleeping bodies standing still); world inverse inertia at the start.
   */
  private capture(world: StepHookInput, dt: number): void {
    const B = world.bodies, m = this.motion, n = B.count;
    const ctx = this.prediction(world);
    ctx.dt = dt;
    ctx.gravity = world.gravity;
    ctx.settings = world.solver;
    ctx.resize(n);
    predictPoses(ctx, dt, false);
    m.resize(n);
    m.bodies = B;
    m.at.fill(NaN, 0, n);
    m.c0.set(B.pos.subarray(0, 3 * n));
    m.q0.set(B.quat.subarray(0, 4 * n));
    m.c1.set(ctx.predPos.subarray(0, 3 * n));
    m.q1.set(ctx.predQuat.subarray(0, 4 * n));
    this.rigidBox = grown(this.rigidBox, 6 * n);
    this.midPose = grown(this.midPose, 7 * n);
    this.rigidMargin = grown(this.rigidMargin, n);
    const R = this.rot;
    for (let i = 0; i < n; i++) {
      // World inverse inertia R I0^-1 R^T at the start (zero for static bodies; a sleeping one keeps its own, as the stage may push it).
      if (B.invMass[i] === 0) {
        m.Iw.fill(0, 9 * i, 9 * i + 9);
      } else {
        quatToMat3(B.quat, 4 * i, R);
        worldInverseInertia(R, 0, B.invInertia, 9 * i, m.Iw, 9 * i);
      }
      this.sweepBox(world, i);
    }
  }

  /** The StepContext the predict stage runs on for this stage (World's bodies and shapes). */
  private prediction(world: StepHookInput): StepContext {
    if (this.ctx?.bodies !== world.bodies || this.ctx.shapes !== world.shapes) this.ctx = new StepContext(world.bodies, world.shapes, world.solver);
    return this.ctx;
  }

  /** Rigid body i's box over the step (its local bounds at both ends), its mid-step pose and its query margin. */
  private sweepBox(world: StepHookInput, i: number): void {
    const B = world.bodies, m = this.motion;
    const shape = world.shapes[B.shape[i]!]!;
    const box = this.rigidBox, o = 6 * i;
    for (let k = 0; k < 3; k++) {
      box[o + k] = Infinity;
      box[o + 3 + k] = -Infinity;
    }
    const lb = shape.localBounds;
    for (const s of [0, 1]) {
      m.pose(i, s);
      const R = m.R, ro = 9 * i;
      for (let k = 0; k < 3; k++) {
        let centre = m.c[3 * i + k]!, half = 0;
        for (let a = 0; a < 3; a++) {
          const r = R[ro + 3 * k + a]!;
          centre += r * 0.5 * (lb.min[a]! + lb.max[a]!);
          half += Math.abs(r) * 0.5 * (lb.max[a]! - lb.min[a]!);
        }
        box[o + k] = Math.min(box[o + k]!, centre - half);
        box[o + 3 + k] = Math.max(box[o + 3 + k]!, centre + half);
      }
    }
    // Mid-step pose (the query's), and the margin: a cell plus half the motion of any point within the body's reach.
    m.pose(i, 0.5);
    for (let k = 0; k < 3; k++) this.midPose[7 * i + k] = m.c[3 * i + k]!;
    for (let k = 0; k < 4; k++) this.midPose[7 * i + 3 + k] = m.q[4 * i + k]!;
    const cell = shape.sdf?.cellSize ?? 0;
    const dot = Math.abs(m.q0[4 * i]! * m.q1[4 * i]! + m.q0[4 * i + 1]! * m.q1[4 * i + 1]! + m.q0[4 * i + 2]! * m.q1[4 * i + 2]! + m.q0[4 * i + 3]! * m.q1[4 * i + 3]!);
    const angle = 2 * det.acos(Math.min(1, dot));
    const shift = Math.hypot(m.c1[3 * i]! - m.c0[3 * i]!, m.c1[3 * i + 1]! - m.c0[3 * i + 1]!, m.c1[3 * i + 2]! - m.c0[3 * i + 2]!);
    const motion = shift + angle * (shape.radius + MARGIN_CELLS * cell);
    this.rigidMargin[i] = MARGIN_CELLS * cell + 0.5 * motion;
    for (let k = 0; k < 3; k++) {
      box[o + k] -= this.rigidMargin[i]!;
      box[o + 3 + k] += this.rigidMargin[i]!;
    }
  }

  /** Predicted particle ends x + dt v + dt^2 g and each soft body's box over both ends. */
  private predict(dt: number): void {
    const sys = this.system, x = sys.pos, v = sys.vel;
    this.x1 = grown(this.x1, 3 * sys.particleCount);
    this.softBox = grown(this.softBox, 6 * sys.bodies.length);
    const g = sys.gravity, x1 = this.x1;
    sys.bodies.forEach((b, bi) => {
      const box = this.softBox, o = 6 * bi;
      for (let k = 0; k < 3; k++) {
        box[o + k] = Infinity;
        box[o + 3 + k] = -Infinity;
      }
      for (let i = b.particleStart; i < b.particleStart + b.particleCount; i++) {
        for (let k = 0; k < 3; k++) {
          const a = x[3 * i + k]!;
          const e = a + dt * v[3 * i + k]! + (sys.invMass[i] === 0 ? 0 : dt * dt * g[k]!);
          x1[3 * i + k] = e;
          box[o + k] = Math.min(box[o + k]!, a, e);
          box[o + 3 + k] = Math.max(box[o + 3 + k]!, a, e);
        }
      }
    });
  }

  // ------------------------------------------------------------------ 2-3. pairs, sets, tasks

  private set(k: number): PointSet {
    return (this.sets[k] ??= new PointSet());
  }

  private prepareBody(world: StepHookInput, b: number): void {
    const sys = this.system, body = sys.bodies[b]!;
    const B = world.bodies, shapes = world.shapes;
    const sb = this.softBox, so = 6 * b;
    const rigidPairs: number[] = [];
    for (let r = 0; r < B.count; r++) {
      if (this.queryIndex[B.shape[r]!]! < 0) continue;
      if (overlaps(sb, so, this.rigidBox, 6 * r)) rigidPairs.push(r);
    }
    const paths = this.set(2 * b), probes = this.set(2 * b + 1);
    paths.clear();
    probes.clear();
    if (rigidPairs.length > 0) {
      this.buildPaths(world, b, rigidPairs, paths);
      this.buildProbes(world, b, rigidPairs, probes);
    }
    if (paths.count > 0) {
      paths.used = true;
      for (const r of rigidPairs) {
        const mp = this.midPose, o = 7 * r;
        // World -> body frame: q* and -R^T c.
        const qx = -mp[o + 3]!, qy = -mp[o + 4]!, qz = -mp[o + 5]!, qw = mp[o + 6]!;
        const t = rotate(qx, qy, qz, qw, mp[o]!, mp[o + 1]!, mp[o + 2]!);
        this.pushTask(0, b, r, this.batch.push(sampleSetRef(2 * b), this.queryIndex[B.shape[r]!]!, qx, qy, qz, qw, -t[0], -t[1], -t[2], this.rigidMargin[r]!));
      }
      this.stats.samples += paths.count;
    }
    if (probes.count > 0) {
      probes.used = true;
      const shape = shapes[this.restShape[b]!]!;
      this.pushTask(1, b, -1, this.batch.push(sampleSetRef(2 * b + 1), this.queryIndex[this.restShape[b]!]!, 0, 0, 0, 1, 0, 0, 0, shape.sdf!.cellSize));
      this.stats.probes += probes.count;
    }
    void body;
  }

  private pushTask(kind: number, soft: number, rigid: number, t: number): void {
    if (t >= this.taskKind.length) growColumns(this, TASK_COLUMNS, t + 1);
    this.taskKind[t] = kind;
    this.taskSoft[t] = soft;
    this.taskRigid[t] = rigid;
  }

  /**
   * Set 2b: the path of every particle of soft body b whose path box meets a
   * rigid body of its pairs, sampled every half cell of the finest of those
   * fields (MAX_PATH_SAMPLES at most).
   */
  private buildPaths(world: StepHookInput, b: number, rigidPairs: number[], set: PointSet): void {
    const sys = this.system, body = sys.bodies[b]!, x = sys.pos, x1 = this.x1;
    let cell = Infinity;
    for (const r of rigidPairs) cell = Math.min(cell, world.shapes[world.bodies.shape[r]!]!.sdf!.cellSize);
    const spacing = 0.5 * cell;
    for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
      if (sys.invMass[i] === 0) continue;
      this.addPath(rigidPairs, spacing, set, i, x[3 * i]!, x[3 * i + 1]!, x[3 * i + 2]!, x1[3 * i]!, x1[3 * i + 1]!, x1[3 * i + 2]!);
    }
    // The midpoints of the surface's structural and shear springs (contact.ts: a thin rigid body cannot slip between particles).
    const radius = this.surfaceRadius(world), kind = body.model.kind;
    for (let s = body.springStart; s < body.springStart + body.springCount; s++) {
      if (kind[s - body.springStart] === SpringKind.Bending) continue;
      const i = sys.springA[s]!, j = sys.springB[s]!;
      if (radius[i] === 0 || radius[j] === 0 || (sys.invMass[i] === 0 && sys.invMass[j] === 0)) continue;
      this.addPath(rigidPairs, spacing, set, -1 - s,
        0.5 * (x[3 * i]! + x[3 * j]!), 0.5 * (x[3 * i + 1]! + x[3 * j + 1]!), 0.5 * (x[3 * i + 2]! + x[3 * j + 2]!),
        0.5 * (x1[3 * i]! + x1[3 * j]!), 0.5 * (x1[3 * i + 1]! + x1[3 * j + 1]!), 0.5 * (x1[3 * i + 2]! + x1[3 * j + 2]!));
    }
  }

  /** The path (a -> e) of a particle (tag >= 0) or spring midpoint (tag -1 - spring) into the set, if its box meets a rigid body's. */
  private addPath(rigidPairs: number[], spacing: number, set: PointSet, tag: number, ax: number, ay: number, az: number, ex: number, ey: number, ez: number): void {
    const rb = this.rigidBox;
    let near = false;
    for (const r of rigidPairs) {
      const o = 6 * r;
      if (Math.max(ax, ex) >= rb[o]! && Math.min(ax, ex) <= rb[o + 3]! && Math.max(ay, ey) >= rb[o + 1]! && Math.min(ay, ey) <= rb[o + 4]! && Math.max(az, ez) >= rb[o + 2]! && Math.min(az, ez) <= rb[o + 5]!) {
        near = true;
        break;
      }
    }
    if (!near) return;
    const len = Math.hypot(ex - ax, ey - ay, ez - az);
    const k = Math.min(MAX_PATH_SAMPLES - 1, Math.ceil(len / spacing));
    for (let j = 0; j <= k; j++) {
      const u = k === 0 ? 0 : j / k;
      set.push(ax + u * (ex - ax), ay + u * (ey - ay), az + u * (ez - az), tag, -1);
    }
  }

  /**
   * Set 2b+1: the rigid bodies' samples and the other soft bodies' particles
   * that lie in soft body b's tetrahedra at the predicted end of the step,
   * mapped to b's rest shape.
   */
  private buildProbes(world: StepHookInput, b: number, rigidPairs: number[], set: PointSet): void {
    const sys = this.system, body = sys.bodies[b]!, model = body.model;
    if (model.tets.length === 0) return;
    const loc = (this.locators[b] ??= new TetLocator());
    const pad = 0.5 * model.spacing;
    loc.bound(model.tets, body.particleStart, this.x1, model.spacing, pad);
    const lo = loc.min, hi = loc.max;
    // The rigid samples inside b's padded box, and their box: the locator files only the tetrahedra near it.
    const m = this.motion, B = world.bodies;
    let found = 0;
    const region = this.probeRegion;
    region.fill(Infinity, 0, 3);
    region.fill(-Infinity, 3, 6);
    for (const r of rigidPairs) {
      const shape = world.shapes[B.shape[r]!]!;
      const pts = shape.samples.points, n = sampleCount(shape.samples);
      m.pose(r, 1);
      const R = m.R, ro = 9 * r;
      const cx = m.c[3 * r]!, cy = m.c[3 * r + 1]!, cz = m.c[3 * r + 2]!;
      for (let j = 0; j < n; j++) {
        const lx = pts[4 * j]!, ly = pts[4 * j + 1]!, lz = pts[4 * j + 2]!;
        const px = cx + R[ro]! * lx + R[ro + 1]! * ly + R[ro + 2]! * lz;
        const py = cy + R[ro + 3]! * lx + R[ro + 4]! * ly + R[ro + 5]! * lz;
        const pz = cz + R[ro + 6]! * lx + R[ro + 7]! * ly + R[ro + 8]! * lz;
        if (px < lo[0]! - pad || px > hi[0]! + pad || py < lo[1]! - pad || py > hi[1]! + pad || pz < lo[2]! - pad || pz > hi[2]! + pad) continue;
        if (7 * found + 7 > this.probeScratch.length) this.probeScratch = grown(this.probeScratch, 14 * found + 70);
        const q = this.probeScratch, o = 7 * found++;
        q[o] = px;
        q[o + 1] = py;
        q[o + 2] = pz;
        q[o + 3] = r;
        q[o + 4] = lx;
        q[o + 5] = ly;
        q[o + 6] = lz;
        if (px < region[0]!) region[0] = px;
        if (py < region[1]!) region[1] = py;
        if (pz < region[2]!) region[2] = pz;
        if (px > region[3]!) region[3] = px;
        if (py > region[4]!) region[4] = py;
        if (pz > region[5]!) region[5] = pz;
      }
    }
    if (found === 0) return;
    loc.index(this.x1, pad, region);
    const w = this.w, rest = model.rest, p0 = body.particleStart, q = this.probeScratch;
    for (let f = 0; f < found; f++) {
      const o = 7 * f;
      // Only inside the hull (contact.ts, "Slop").
      const t = loc.locate(q[o]!, q[o + 1]!, q[o + 2]!, w, RIGID_TOLERANCE);
      if (t < 0) continue;
      let X = 0, Y = 0, Z = 0;
      for (let c = 0; c < 4; c++) {
        const l = 3 * (loc.corner(t, c) - p0);
        X += w[c]! * rest[l]!;
        Y += w[c]! * rest[l + 1]!;
        Z += w[c]! * rest[l + 2]!;
      }
      set.push(X, Y, Z, q[o + 3]!, t, q[o + 4]!, q[o + 5]!, q[o + 6]!);
    }
  }

  // ------------------------------------------------------------------ soft against soft

  /** Per particle: ball radius (half its body's spacing) for a surface particle, 0 inside (found once; contact.ts). */
  private surfaceRadius(world: StepHookInput): Float64Array {
    const sys = this.system;
    if (this.radius.length === sys.particleCount) return this.radius;
    this.radius = new Float64Array(sys.particleCount);
    sys.bodies.forEach((body, b) => {
      const sdf = world.shapes[this.restShape[b]!]!.sdf;
      const m = body.model, h = m.spacing;
      for (let i = 0; i < body.particleCount; i++) {
        // Within 0.6 spacings of the rest surface: on the hull (every particle of an extruded seed net is).
        const phi = sdf ? sampleSdf(sdf, m.rest[3 * i]!, m.rest[3 * i + 1]!, m.rest[3 * i + 2]!) : 0;
        this.radius[body.particleStart + i] = phi > -SURFACE_DEPTH * h ? BALL_RADIUS * h : 0;
      }
    });
    return this.radius;
  }

  /**
   * Pairs of surface particles of different soft bodies whose balls can meet
   * within the step: for each pair of soft bodies whose boxes overlap, the
   * surface particles of one that lie in the other's box go into a hash grid,
   * and those of the other look for neighbours there closer than their radii
   * plus both predicted displacements (and a quarter spacing for what the
   * prediction misses). One grid per body pair, so no time goes to a body's
   * own particles.
   */
  private findParticlePairs(world: StepHookInput): void {
    const sys = this.system, nb = sys.bodies.length;
    if (nb < 2) return;
    const radius = this.surfaceRadius(world);
    const sb = this.softBox;
    this.move = grown(this.move, sys.particleCount);
    const x = sys.pos, x1 = this.x1;
    for (let a = 0; a < nb; a++) {
      for (let b = a + 1; b < nb; b++) {
        if (!overlaps(sb, 6 * a, sb, 6 * b)) continue;
        const na = this.gather(a, b, radius, 0);
        const nbb = this.gather(b, a, radius, na);
        if (na === 0 || nbb === 0) continue;
        let reach = 0, move = 0;
        for (let c = 0; c < na + nbb; c++) {
          const i = this.candidates[c]!;
          reach = Math.max(reach, radius[i]!);
          const m = Math.hypot(x1[3 * i]! - x[3 * i]!, x1[3 * i + 1]! - x[3 * i + 1]!, x1[3 * i + 2]! - x[3 * i + 2]!);
          this.move[i] = m;
          move = Math.max(move, m);
        }
        const slack = 0.25 * Math.min(sys.bodies[a]!.model.spacing, sys.bodies[b]!.model.spacing);
        this.pairGrid(na, nbb, 2 * reach + 2 * move + slack, slack, radius);
      }
    }
    this.stats.pairs = this.contacts.pairCount;
  }

  /** Appends body p's surface particles inside body q's box (padded by both spacings) to the candidates from `at`; returns how many. */
  private gather(p: number, q: number, radius: Float64Array, at: number): number {
    const sys = this.system, sb = this.softBox, x = sys.pos;
    const body = sys.bodies[p]!;
    const grow = sys.bodies[q]!.model.spacing + body.model.spacing;
    const o = 6 * q;
    const x0 = sb[o]! - grow, y0 = sb[o + 1]! - grow, z0 = sb[o + 2]! - grow;
    const x1 = sb[o + 3]! + grow, y1 = sb[o + 4]! + grow, z1 = sb[o + 5]! + grow;
    let n = 0;
    for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
      if (radius[i] === 0) continue;
      const px = x[3 * i]!, py = x[3 * i + 1]!, pz = x[3 * i + 2]!;
      if (px < x0 || px > x1 || py < y0 || py > y1 || pz < z0 || pz > z1) continue;
      if (at + n >= this.candidates.length) this.candidates = grown(this.candidates, at + n + 1);
      this.candidates[at + n++] = i;
    }
    return n;
  }

  /** The pairs between candidates [0, na) and [na, na + nb): the second set hashed by cells of size `cell`, the first looking in the 27 cells around it. */
  private pairGrid(na: number, nb: number, cell: number, slack: number, radius: Float64Array): void {
    const sys = this.system, x = sys.pos, C = this.candidates;
    let size = 16;
    while (size < 2 * nb) size *= 2;
    if (this.heads.length < size) this.heads = new Int32Array(size);
    const heads = this.heads, mask = size - 1;
    heads.fill(-1, 0, size);
    this.next = grown(this.next, na + nb);
    this.cellOf = grown(this.cellOf, 3 * (na + nb));
    const next = this.next, cellOf = this.cellOf;
    const hash = (i: number, j: number, k: number) => (Math.imul(i, 73856093) ^ Math.imul(j, 19349663) ^ Math.imul(k, 83492791)) & mask;
    for (let c = na; c < na + nb; c++) {
      const i = C[c]!;
      const ci = Math.floor(x[3 * i]! / cell), cj = Math.floor(x[3 * i + 1]! / cell), ck = Math.floor(x[3 * i + 2]! / cell);
      cellOf[3 * c] = ci;
      cellOf[3 * c + 1] = cj;
      cellOf[3 * c + 2] = ck;
      const h = hash(ci, cj, ck);
      next[c] = heads[h]!;
      heads[h] = c;
    }
    const bodies = sys.bodies, owner = sys.owner, contacts = this.contacts, move = this.move;
    const A = bodies[owner[C[0]!]!]!, B = bodies[owner[C[na]!]!]!;
    const mu = Math.max(A.friction, B.friction), e = Math.min(A.restitution, B.restitution);
    for (let c = 0; c < na; c++) {
      const i = C[c]!;
      const px = x[3 * i]!, py = x[3 * i + 1]!, pz = x[3 * i + 2]!;
      const ci = Math.floor(px / cell), cj = Math.floor(py / cell), ck = Math.floor(pz / cell);
      for (let di = -1; di <= 1; di++) {
        for (let dj = -1; dj <= 1; dj++) {
          for (let dk = -1; dk <= 1; dk++) {
            for (let k = heads[hash(ci + di, cj + dj, ck + dk)]!; k >= 0; k = next[k]!) {
              if (cellOf[3 * k] !== ci + di || cellOf[3 * k + 1] !== cj + dj || cellOf[3 * k + 2] !== ck + dk) continue; // a hash collision
              const j = C[k]!;
              const reach = radius[i]! + radius[j]!;
              const within = reach + move[i]! + move[j]! + slack;
              const dx = px - x[3 * j]!, dy = py - x[3 * j + 1]!, dz = pz - x[3 * j + 2]!;
              const d2 = dx * dx + dy * dy + dz * dz;
              if (d2 <= within * within) contacts.addPair(i, j, reach, mu, e);
            }
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ 4. contacts

  private readContacts(world: StepHookInput, res: QueryResult): void {
    const B = world.bodies, sys = this.system, contacts = this.contacts;
    const corners = [0, 0, 0, 0];
    const local = [0, 0, 0];
    const X0 = [0, 0, 0];
    for (let t = 0; t < this.batch.count; t++) {
      const b = this.taskSoft[t]!;
      const body = sys.bodies[b]!;
      const start = res.taskStart[t]!, end = res.taskStart[t + 1]!;
      if (start === end) continue;
      if (this.taskKind[t] === 0) {
        this.readPaths(world, b, this.taskRigid[t]!, res, start, end);
        continue;
      }
      const set = this.sets[2 * b + 1]!, loc = this.locators[b]!;
      for (let k = start; k < end; k++) {
        const j = res.sample[k]!;
        const tag = set.tag[j]!, t4 = set.tet[j]!;
        for (let c = 0; c < 4; c++) corners[c] = loc.corner(t4, c);
        for (let c = 0; c < 3; c++) {
          local[c] = set.local[3 * j + c]!;
          X0[c] = set.points[4 * j + c]!;
        }
        contacts.addEmbedded(b, corners, body.model.rest, body.particleStart, tag, local, res.phi[k]!, res.normal, 3 * k, X0,
          Math.max(body.friction, B.friction[tag]!), Math.min(body.restitution, B.restitution[tag]!), RIGID_SLOP * body.model.spacing, body.model.spacing);
      }
    }
  }

  /**
   * Particle contacts of soft body b against rigid body r from one task's
   * records (sorted by sample, so by particle, then along the path): the first
   * record of each particle, and the first record inside a surface whose
   * normal opposes the path (a surface the particle enters) when that comes
   * later.
   */
  private readPaths(world: StepHookInput, b: number, r: number, res: QueryResult, start: number, end: number): void {
    const B = world.bodies, sys = this.system, body = sys.bodies[b]!, set = this.sets[2 * b]!;
    const mp = this.midPose, o = 7 * r;
    const qx = -mp[o + 3]!, qy = -mp[o + 4]!, qz = -mp[o + 5]!, qw = mp[o + 6]!;
    const mu = Math.max(body.friction, B.friction[r]!), e = Math.min(body.restitution, B.restitution[r]!);
    const p = [0, 0, 0];
    const x = sys.pos, x1 = this.x1;
    let k = start;
    while (k < end) {
      const tag = set.tag[res.sample[k]!]!;
      let stop = k + 1;
      while (stop < end && set.tag[res.sample[stop]!] === tag) stop++;
      // A particle, or a spring's two ends (whose midpoint moves by their mean).
      const i = tag >= 0 ? tag : sys.springA[-1 - tag]!, j = tag >= 0 ? -1 : sys.springB[-1 - tag]!;
      this.pathPoint(res.sample[k]!, set, mp, o, p);
      this.contacts.addParticle(i, j, r, res.phi[k]!, res.normal, 3 * k, p, 0, mu, e);
      if (res.phi[k]! >= 0) {
        // The path's direction in the body's frame.
        const jj = j >= 0 ? j : i;
        const d = rotate(qx, qy, qz, qw,
          0.5 * (x1[3 * i]! - x[3 * i]! + x1[3 * jj]! - x[3 * jj]!), 0.5 * (x1[3 * i + 1]! - x[3 * i + 1]! + x1[3 * jj + 1]! - x[3 * jj + 1]!),
          0.5 * (x1[3 * i + 2]! - x[3 * i + 2]! + x1[3 * jj + 2]! - x[3 * jj + 2]!));
        for (let q = k + 1; q < stop; q++) {
          if (!(res.phi[q]! < 0)) continue;
          const n = res.normal;
          if (n[3 * q]! * d[0] + n[3 * q + 1]! * d[1] + n[3 * q + 2]! * d[2] >= 0) continue;
          this.pathPoint(res.sample[q]!, set, mp, o, p);
          this.contacts.addParticle(i, j, r, res.phi[q]!, res.normal, 3 * q, p, 0, mu, e);
          break;
        }
      }
      k = stop;
    }
  }

  /** Path sample j of a set, in the frame of the body whose mid-step pose is at mp[o..o+6], into p. */
  private pathPoint(j: number, set: PointSet, mp: Float64Array, o: number, p: number[]): void {
    const v = rotate(-mp[o + 3]!, -mp[o + 4]!, -mp[o + 5]!, mp[o + 6]!, set.points[4 * j]! - mp[o]!, set.points[4 * j + 1]! - mp[o + 1]!, set.points[4 * j + 2]! - mp[o + 2]!);
    p[0] = v[0];
    p[1] = v[1];
    p[2] = v[2];
  }

  // ------------------------------------------------------------------ 5. pins

  /** The pull of the net on each pin (SoftSystem.pinImpulse), on its rigid body at the pinned particle. */
  private applyPins(world: StepHookInput): void {
    const sys = this.system, m = this.motion, B = world.bodies;
    for (let p = 0; p < sys.pinParticle.length; p++) {
      const r = sys.pinBody[p]!, i = sys.pinParticle[p]!;
      if (B.invMass[r] === 0) continue;
      m.pose(r, 1);
      m.applyImpulse(r, sys.pos[3 * i]! - m.c[3 * r]!, sys.pos[3 * i + 1]! - m.c[3 * r + 1]!, sys.pos[3 * i + 2]! - m.c[3 * r + 2]!,
        sys.pinImpulse[3 * p]!, sys.pinImpulse[3 * p + 1]!, sys.pinImpulse[3 * p + 2]!);
      this.contacts.touched[r] = 1;
    }
  }
}

/**
 * One sample set as the coupling builds it: f32 points for the query (x, y,
 * z, 0), and per point a tag (the particle of a path sample; for a located
 * point the rigid body, or -1 - particle), its tetrahedron and the rigid
 * body's local point.
 */
class PointSet {
  count = 0;
  used = false;
  points = new Float32Array(64);
  tag = new Int32Array(16);
  tet = new Int32Array(16);
  local = new Float64Array(48);

  clear(): void {
    this.count = 0;
    this.used = false;
  }

  push(x: number, y: number, z: number, tag: number, tet: number, lx = 0, ly = 0, lz = 0): void {
    const i = this.count++;
    if (i >= this.tag.length) growColumns(this, POINT_COLUMNS, 2 * i);
    this.points[4 * i] = x;
    this.points[4 * i + 1] = y;
    this.points[4 * i + 2] = z;
    this.points[4 * i + 3] = 0;
    this.tag[i] = tag;
    this.tet[i] = tet;
    this.local[3 * i] = lx;
    this.local[3 * i + 1] = ly;
    this.local[3 * i + 2] = lz;
  }
}

function overlaps(a: Float64Array, ao: number, b: Float64Array, bo: number): boolean {
  return a[ao]! <= b[bo + 3]! && b[bo]! <= a[ao + 3]! && a[ao + 1]! <= b[bo + 4]! && b[bo + 1]! <= a[ao + 4]! && a[ao + 2]! <= b[bo + 5]! && b[bo + 2]! <= a[ao + 5]!;
}

/** v rotated by the unit quaternion (x, y, z, w). */
function rotate(x: number, y: number, z: number, w: number, vx: number, vy: number, vz: number): [number, number, number] {
  const tx = 2 * (y * vz - z * vy), ty = 2 * (z * vx - x * vz), tz = 2 * (x * vy - y * vx);
  return [vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx)];
}
