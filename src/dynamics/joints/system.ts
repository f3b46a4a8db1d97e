/**
 * Joints and motors: the ConstraintSystem the step calls at the points of
 * the hybrid step (docs/ALGORITHM.md 6, seed ch. 10):
 *
 *   collisions         -> velocityStabilize
 *   velocity update    -> applyForces (motors) -> velocityStabilize
 *   contacts, per contact-graph level (also in shock propagation)
 *                      -> positionStabilize(level): the joints of that level
 *   advance positions  -> postStabilize (only without pre-stabilisation)
 *                      -> velocityStabilize
 *
 * Each scene joint becomes one or two primitive parts (parts.ts); the
 * error and impulse of a part are in solve.ts. Both passes sweep the
 * selected parts Gauss-Seidel style, at most `solver.jointIterations` times,
 * and stop early once every part is within tolerance: fixing one joint of a
 * chain opens its neighbours, which is the error the seed shows with a single
 * joint iteration (fig. 35).
 *
 * Under contactSolver "pgs" the distance and rope parts are rows of the PGS
 * solve (pgsRows.ts, handed over as `pgsRows`) and every pass here skips them.
 *
 * Position passes are asked for one contact-graph level at a time; the parts
 * are bucketed by level once per step (prepareLevels), so a pass visits only
 * its own parts instead of scanning them all.
 */
import type { BodyStore } from '../bodies.ts';
import type { ConstraintSystem } from '../constraints.ts';
import type { RigidShape } from '../shape.ts';
import type { StepContext } from '../stepContext.ts';
import { integrateQuat, quatToMat3, worldInverseInertia } from '../math.ts';
import { MotorSet, type MotorJoint } from '../motors.ts';
import { ANGLE, AXIS, BALL, DIST, JointParts, LINE, LOCK, PLANE, isTranslational } from './parts.ts';
import { DistanceRows } from './pgsRows.ts';
import { captureRest, partError, predictedError, ropeImpact, stabilizePosition, stabilizeVelocity, type JointState } from './solve.ts';
import type { JointDesc, MotorDesc } from './types.ts';

/** Position pre-stabilisation stops below this predicted error (m, rad); the seed's ref. [13] uses 1e-6 m. */
export const POSITION_TOLERANCE = 1e-6;
/** Velocity stabilisation stops below this relative speed (m/s, rad/s). */
export const VELOCITY_TOLERANCE = 1e-6;

/** Bodies are keyed in pairs as a * PAIR_KEY + b; indices stay far below 2^21. */
const PAIR_KEY = 2 ** 21;

export interface JointErrors {
  /** Largest anchor gap (m) of each scene joint's translational parts (0 if none). */
  linear: Float64Array;
  /** Largest angular error (rad) of each scene joint's rotational parts (0 if none). */
  angular: Float64Array;
}

const EMPTY = new Float64Array(0);

export class JointSystem implements ConstraintSystem {
  readonly parts = new JointParts();
  readonly joints: readonly JointDesc[];
  readonly motors: MotorSet;
  /** Body indices of each scene joint (A, B). */
  readonly jointA: Int32Array;
  readonly jointB: Int32Array;
  /**
   * The distance and rope parts as rows of the PGS solve (pgsRows.ts; null
   * without such parts). Under contactSolver "pgs" they are solved there
   * and every pass here skips them (ownedByPgs).
   */
  readonly pgsRows: DistanceRows | null;
  /** Sweeps used by the last position / velocity pass (for tests and the profile). */
  lastPositionSweeps = 0;
  lastVelocitySweeps = 0;
  private readonly ignored = new Set<number>();
  /** Every body some part touches, once. */
  private readonly jointBodies: Int32Array;
  private selected = new Int32Array(0);
  /** The rope parts with restitution above 0 (ropeImpact). */
  private readonly bouncyRopes: Int32Array;
  /** Velocities of the joint bodies before the current position sweep. */
  private readonly savedVel: Float64Array;
  private readonly savedAngVel: Float64Array;
  private velInvMass = EMPTY;
  private velInvInertia = EMPTY;
  private readonly state: JointState = {
    centre: EMPTY, vel: EMPTY, angVel: EMPTY, invMass: EMPTY, invInertiaW: EMPTY, quat: EMPTY,
  };
  private readonly rot = new Float64Array(9);

  /** The bodies (for drawing the anchors). */
  private readonly bodies: BodyStore;
  /** Reusable output of anchorSegments() and ropeSegments(). */
  private segments = new Float64Array(0);
  private ropes = new Float64Array(0);
  /** Parts bucketed by contact-graph level: parts of level L are byLevel[levelStart[L] .. levelStart[L+1]). */
  private byLevel = new Int32Array(0);
  private levelStart = new Int32Array(1);
  private levelStamp = -1;
  private levelFill = new Int32Array(0);

  /**
   * @param bodies the world's bodies (already added)
   * @param joints, motors as the scene gives them (anchors in each shape's own frame)
   * @param shapeOf the shape of a body, by name (for the centre-of-mass offset of anchors)
   */
  constructor(bodies: BodyStore, joints: readonly JointDesc[], motors: readonly MotorDesc[], shapeOf: (body: string) => RigidShape) {
    const B = bodies;
    this.bodies = B;
    const index = new Map<string, number>();
    for (let i = 0; i < B.count; i++) index.set(B.names[i]!, i);
    const bodyIndex = (name: string): number => {
      const i = index.get(name);
      // Validation checked every reference; this guards hand-built scenes.
      if (i === undefined) throw new RangeError(`joint or motor names unknown body "${name}"`);
      return i;
    };
    this.joints = joints;
    this.jointA = new Int32Array(joints.length);
    this.jointB = new Int32Array(joints.length);
    const P = this.parts;
    const touched = new Set<number>();
    joints.forEach((j, ji) => {
      const a = bodyIndex(j.bodyA), b = bodyIndex(j.bodyB);
      this.jointA[ji] = a;
      this.jointB[ji] = b;
      touched.add(a);
      touched.add(b);
      if (!j.collide) this.ignored.add(Math.min(a, b) * PAIR_KEY + Math.max(a, b));
      // Anchors are written in the shape's own frame; the body frame is centred on the centre of mass.
      const ca = shapeOf(j.bodyA).comOffset, cb = shapeOf(j.bodyB).comOffset;
      const anchors = (p: number): void => {
        for (let k = 0; k < 3; k++) {
          P.rA[3 * p + k] = j.anchorA[k]! - ca[k]!;
          P.rB[3 * p + k] = j.anchorB[k]! - cb[k]!;
        }
      };
      const axes = (p: number, u: readonly number[], v: readonly number[]): void => {
        const lu = Math.hypot(u[0]!, u[1]!, u[2]!), lv = Math.hypot(v[0]!, v[1]!, v[2]!);
        for (let k = 0; k < 3; k++) {
          P.axA[3 * p + k] = u[k]! / lu;
          P.axB[3 * p + k] = v[k]! / lv;
        }
      };
      const add = (kind: number): number => P.add(kind, ji, a, b);
      switch (j.type) {
        case 'ball':
          anchors(add(BALL));
          break;
        case 'line': {
          const p = add(LINE);
          anchors(p);
          axes(p, j.axisA, j.axisA);
          break;
        }
        case 'plane': {
          const p = add(PLANE);
          anchors(p);
          const u = j.axisA, v = j.axis2A;
          axes(p, [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]], u);
          break;
        }
        case 'lockRotation':
          add(LOCK);
          break;
        case 'axis':
          axes(add(AXIS), j.axisA, j.axisB);
          break;
        case 'angle':
          axes(add(ANGLE), j.axisA, j.axisB);
          break;
        case 'hinge':
          anchors(add(BALL));
          axes(add(AXIS), j.axisA, j.axisB);
          break;
        case 'slider': {
          const p = add(LINE);
          anchors(p);
          axes(p, j.axisA, j.axisA);
          add(LOCK);
          break;
        }
        case 'fixed':
          anchors(add(BALL));
          add(LOCK);
          break;
        case 'distance':
        case 'rope': {
          const p = add(DIST);
          anchors(p);
          P.ref[4 * p] = j.length;
          P.ref[4 * p + 1] = j.type === 'rope' ? 1 : 0;
          P.ref[4 * p + 2] = j.type === 'rope' ? j.restitution : 0;
          P.ref[4 * p + 3] = 0;
          break;
        }
      }
    });
    for (let p = 0; p < P.count; p++) captureRest(P, p, B.quat);
    const bouncy: number[] = [];
    for (let p = 0; p < P.count; p++) if (P.kind[p] === DIST && P.ref[4 * p + 1]! !== 0 && P.ref[4 * p + 2]! > 0) bouncy.push(p);
    this.bouncyRopes = Int32Array.from(bouncy);
    this.pgsRows = P.kind.subarray(0, P.count).includes(DIST) ? new DistanceRows(P) : null;
    this.jointBodies = Int32Array.from(touched);
    this.savedVel = new Float64Array(3 * this.jointBodies.length);
    this.savedAngVel = new Float64Array(3 * this.jointBodies.length);
    this.selected = new Int32Array(P.count);
    const jointIndex = new Map(joints.map((j, ji) => [j.name, ji] as const));
    const jointOf = (name: string): MotorJoint => {
      const ji = jointIndex.get(name);
      const j = ji === undefined ? undefined : joints[ji];
      // Validation checked that a joint motor names a hinge or a slider.
      if (!j || (j.type !== 'hinge' && j.type !== 'slider')) throw new RangeError(`motor names "${name}", which is not a hinge or slider joint`);
      const ca = shapeOf(j.bodyA).comOffset, cb = shapeOf(j.bodyB).comOffset;
      const len = Math.hypot(j.axisA[0], j.axisA[1], j.axisA[2]);
      return {
        type: j.type,
        a: this.jointA[ji!]!,
        b: this.jointB[ji!]!,
        axisA: j.axisA.map((c) => c / len),
        rA: j.anchorA.map((c, k) => c - ca[k]!),
        rB: j.anchorB.map((c, k) => c - cb[k]!),
      };
    };
    this.motors = new MotorSet(motors, bodyIndex, jointOf);
  }

  ignoresPair(a: number, b: number): boolean {
    return this.ignored.size > 0 && this.ignored.has(Math.min(a, b) * PAIR_KEY + Math.max(a, b));
  }

  applyForces(ctx: StepContext, dt: number): boolean {
    return this.motors.apply(ctx.bodies, ctx.time, dt, ctx);
  }

  awakeBodies(ctx: StepContext, keep: (i: number) => void): void {
    this.motors.active(ctx.time, ctx.dt, keep);
  }

  /**
   * For drawing: per translational part, the segments centre A -> anchor A and
   * centre B -> anchor B in world space (6 numbers a segment), so a chain shows
   * its links and any gap a joint has not closed. The array is reused from
   * call to call (drawing asks every frame).
   */
  anchorSegments(): Float64Array {
    const P = this.parts;
    const B = this.bodies;
    let n = 0;
    for (let p = 0; p < P.count; p++) if (isTranslational(P.kind[p]!)) n++;
    if (this.segments.length !== 12 * n) this.segments = new Float64Array(12 * n);
    const out = this.segments;
    const R = this.rot;
    let o = 0;
    for (let p = 0; p < P.count; p++) {
      if (!isTranslational(P.kind[p]!)) continue;
      for (let side = 0; side < 2; side++) {
        const body = side === 0 ? P.a[p]! : P.b[p]!;
        const r = side === 0 ? P.rA : P.rB;
        quatToMat3(B.quat, 4 * body, R);
        const rx = r[3 * p]!, ry = r[3 * p + 1]!, rz = r[3 * p + 2]!;
        for (let k = 0; k < 3; k++) {
          const c = B.pos[3 * body + k]!;
          out[o + k] = c;
          out[o + 3 + k] = c + R[3 * k]! * rx + R[3 * k + 1]! * ry + R[3 * k + 2]! * rz;
        }
        o += 6;
      }
    }
    return out;
  }

  /**
   * For drawing: per rope or distance joint, the segment from anchor A to
   * anchor B in world space (6 numbers). Reused from call to call.
   */
  ropeSegments(): Float64Array {
    const P = this.parts;
    const B = this.bodies;
    let n = 0;
    for (let p = 0; p < P.count; p++) if (P.kind[p] === DIST) n++;
    if (this.ropes.length !== 6 * n) this.ropes = new Float64Array(6 * n);
    const out = this.ropes;
    const R = this.rot;
    let o = 0;
    for (let p = 0; p < P.count; p++) {
      if (P.kind[p] !== DIST) continue;
      for (let side = 0; side < 2; side++) {
        const body = side === 0 ? P.a[p]! : P.b[p]!;
        const r = side === 0 ? P.rA : P.rB;
        quatToMat3(B.quat, 4 * body, R);
        const rx = r[3 * p]!, ry = r[3 * p + 1]!, rz = r[3 * p + 2]!;
        for (let k = 0; k < 3; k++) out[o + k] = B.pos[3 * body + k]! + R[3 * k]! * rx + R[3 * k + 1]! * ry + R[3 * k + 2]! * rz;
        o += 3;
      }
    }
    return out;
  }

  jointedBodies(mark: (i: number) => void): void {
    for (let j = 0; j < this.jointA.length; j++) {
      mark(this.jointA[j]!);
      mark(this.jointB[j]!);
    }
  }

  graphEdges(ctx: StepContext, add: (u: number, v: number) => void): void {
    const st = ctx.bodies.isStatic;
    for (let j = 0; j < this.jointA.length; j++) {
      const a = this.jointA[j]!, b = this.jointB[j]!;
      // Static bodies are not in the contact graph.
      if (!st[a] && !st[b]) add(a, b);
    }
  }

  impacts(ctx: StepContext): void {
    const P = this.parts;
    if (this.bouncyRopes.length === 0 || ownedByPgs(ctx, DIST)) return;
    const st = this.bindBodyMasses(ctx);
    for (let k = 0; k < this.bouncyRopes.length; k++) {
      ropeImpact(P, this.bouncyRopes[k]!, st, ctx.dt);
    }
  }

  velocityStabilize(ctx: StepContext): void {
    const P = this.parts;
    if (P.count === 0) return;
    const st = this.bindBodyMasses(ctx);
    const iters = ctx.settings.jointIterations;
    let sweeps = 0;
    for (let it = 0; it < iters; it++) {
      sweeps++;
      let any = false;
      for (let p = 0; p < P.count; p++) {
        if (ownedByPgs(ctx, P.kind[p]!)) continue;
        if (stabilizeVelocity(P, p, st, VELOCITY_TOLERANCE) < 0) {
          any = true;
          ctx.markMoved(P.a[p]!);
          ctx.markMoved(P.b[p]!);
        }
      }
      if (!any) break;
    }
    this.lastVelocitySweeps = sweeps;
  }

  /**
   * The joint state with the bodies' own masses and the world inverse
   * inertia at the current orientation: no body is frozen outside the
   * contact passes.
   */
  private bindBodyMasses(ctx: StepContext): JointState {
    const B = ctx.bodies;
    if (this.velInvMass.length < B.count) {
      this.velInvMass = new Float64Array(B.count);
      this.velInvInertia = new Float64Array(9 * B.count);
    }
    const jb = this.jointBodies;
    for (let k = 0; k < jb.length; k++) {
      const i = jb[k]!;
      if (B.isStatic[i]) {
        this.velInvMass[i] = 0;
        this.velInvInertia.fill(0, 9 * i, 9 * i + 9);
        continue;
      }
      this.velInvMass[i] = B.invMass[i]!;
      quatToMat3(B.quat, 4 * i, this.rot);
      worldInverseInertia(this.rot, 0, B.invInertia, 9 * i, this.velInvInertia, 9 * i);
    }
    return this.bind(B, this.velInvMass, this.velInvInertia);
  }

  positionStabilize(ctx: StepContext, level: number): void {
    if (!ctx.settings.jointPrestabilization) return;
    const P = this.parts;
    let n = 0;
    if (level < 0) {
      for (let p = 0; p < P.count; p++) if (!ownedByPgs(ctx, P.kind[p]!)) this.selected[n++] = p;
    } else {
      if (this.levelStamp !== ctx.levelStamp) this.bucketByLevel(ctx);
      if (level + 1 < this.levelStart.length) {
        for (let k = this.levelStart[level]!; k < this.levelStart[level + 1]!; k++) {
          if (!ownedByPgs(ctx, P.kind[this.byLevel[k]!]!)) this.selected[n++] = this.byLevel[k]!;
        }
      }
    }
    const iters = ctx.settings.jointIterations;
    if (n === 0 || iters === 0) return;
    // The solver's masses: zero for static bodies and for the levels shock
    // propagation has frozen, so those joints pull only the upper body.
    const B = ctx.bodies;
    const st = this.bind(B, ctx.invMass, ctx.invInertia);
    const h = ctx.dt;
    let sweeps = 0;
    // Each part's impulse lowers its own error, but a sweep as a whole can
    // raise the others' more: on a nearly straight, fast-whipping chain (the
    // linearisation fails near that singular pose), and on a body held by
    // several joints at once, where each ball part's push at one corner tilts
    // the body and opens the axis parts the sweep already closed (a chassis on
    // four hinged wheels: its first sweep raises the summed error, the later
    // ones bring it down). So the sweeps go on while any part is off, and the
    // pass keeps the velocities of the best sweep (the start when none
    // helped): repeating bad sweeps cannot spin the links up, and a first
    // sweep that makes things worse does not end a pass that would converge.
    let best = this.predictedErrorSq(st, h, n);
    this.saveVelocities(B);
    let moved = false;
    let atBest = true;
    for (let it = 0; it < iters; it++) {
      sweeps++;
      let any = false;
      for (let k = 0; k < n; k++) {
        const p = this.selected[k]!;
        if (stabilizePosition(P, p, st, h, POSITION_TOLERANCE) < 0) any = true;
      }
      if (!any) break;
      const after = this.predictedErrorSq(st, h, n);
      atBest = after < best;
      if (atBest) {
        best = after;
        moved = true;
        this.saveVelocities(B);
      }
    }
    if (!atBest) this.restoreVelocities(B);
    if (moved) {
      for (let k = 0; k < n; k++) {
        ctx.markMoved(P.a[this.selected[k]!]!);
        ctx.markMoved(P.b[this.selected[k]!]!);
      }
    }
    this.lastPositionSweeps = sweeps;
  }

  /**
   * Position stabilisation after the position step, in place of
   * pre-stabilisation when `jointPrestabilization` is off (seed fig. 24):
   * the gaps of the advanced poses are closed by moving the bodies directly
   * (the position passes' impulses, found from zero velocity and applied as
   * a displacement over dt; the velocities are kept). The contacts were
   * resolved before, for motion that left the joints open, so nothing stops
   * a joint from pulling its bodies into each other or into what they
   * touch.
   */
  postStabilize(ctx: StepContext): void {
    const P = this.parts;
    const iters = ctx.settings.jointIterations;
    if (ctx.settings.jointPrestabilization || P.count === 0 || iters === 0) return;
    const B = ctx.bodies;
    const jb = this.jointBodies;
    this.saveVelocities(B);
    for (let k = 0; k < jb.length; k++) {
      const i = jb[k]!;
      B.vel.fill(0, 3 * i, 3 * i + 3);
      B.angVel.fill(0, 3 * i, 3 * i + 3);
    }
    const st = this.bindBodyMasses(ctx);
    const h = ctx.dt;
    let sweeps = 0;
    for (let it = 0; it < iters; it++) {
      sweeps++;
      let any = false;
      for (let p = 0; p < P.count; p++) {
        if (!ownedByPgs(ctx, P.kind[p]!) && stabilizePosition(P, p, st, h, POSITION_TOLERANCE) < 0) any = true;
      }
      if (!any) break;
    }
    for (let k = 0; k < jb.length; k++) {
      const i = jb[k]!;
      if (B.isStatic[i]) continue;
      for (let c = 0; c < 3; c++) B.pos[3 * i + c] += h * B.vel[3 * i + c]!;
      const wx = B.angVel[3 * i]!, wy = B.angVel[3 * i + 1]!, wz = B.angVel[3 * i + 2]!;
      if (wx !== 0 || wy !== 0 || wz !== 0) integrateQuat(B.quat, 4 * i, wx, wy, wz, h, B.quat, 4 * i);
      ctx.markMoved(i);
    }
    this.restoreVelocities(B);
    this.lastPositionSweeps = sweeps;
  }

  /** Sum of squared predicted errors of the selected parts (m^2 + rad^2). */
  private predictedErrorSq(st: JointState, h: number, n: number): number {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      const e = predictedError(this.parts, this.selected[k]!, st, h);
      sum += e * e;
    }
    return sum;
  }

  /**
   * Parts by the level of their upper body (a counting sort, stable in part
   * order), redone whenever the contact graph gave new levels.
   */
  private bucketByLevel(ctx: StepContext): void {
    this.levelStamp = ctx.levelStamp;
    const P = this.parts;
    const lv = ctx.level;
    const partLevel = (p: number): number => {
      const a = P.a[p]!, b = P.b[p]!;
      return Math.max(a < lv.length ? lv[a]! : 0, b < lv.length ? lv[b]! : 0);
    };
    let top = -1;
    for (let p = 0; p < P.count; p++) top = Math.max(top, partLevel(p));
    if (this.levelStart.length < top + 3) this.levelStart = new Int32Array(top + 3);
    const start = this.levelStart;
    start.fill(0);
    // Parts whose bodies are both static (level -1) are never selected by level.
    for (let p = 0; p < P.count; p++) {
      const L = partLevel(p);
      if (L >= 0) start[L + 1]++;
    }
    for (let L = 0; L <= top; L++) start[L + 1] += start[L]!;
    if (this.byLevel.length < P.count) this.byLevel = new Int32Array(P.count);
    if (this.levelFill.length < top + 1) this.levelFill = new Int32Array(top + 1);
    const fill = this.levelFill; // next free slot per level
    for (let L = 0; L <= top; L++) fill[L] = start[L]!;
    for (let p = 0; p < P.count; p++) {
      const L = partLevel(p);
      if (L >= 0) this.byLevel[fill[L]!++] = p;
    }
    // Levels above the top have no parts.
    for (let L = top + 1; L < start.length - 1; L++) start[L + 1] = start[L]!;
  }

  private saveVelocities(B: BodyStore): void {
    const jb = this.jointBodies;
    for (let k = 0; k < jb.length; k++) {
      const i = jb[k]!;
      for (let c = 0; c < 3; c++) {
        this.savedVel[3 * k + c] = B.vel[3 * i + c]!;
        this.savedAngVel[3 * k + c] = B.angVel[3 * i + c]!;
      }
    }
  }

  private restoreVelocities(B: BodyStore): void {
    const jb = this.jointBodies;
    for (let k = 0; k < jb.length; k++) {
      const i = jb[k]!;
      for (let c = 0; c < 3; c++) {
        B.vel[3 * i + c] = this.savedVel[3 * k + c]!;
        B.angVel[3 * i + c] = this.savedAngVel[3 * k + c]!;
      }
    }
  }

  /** The current error of every scene joint (largest over its parts), without changing anything. */
  errors(world: { readonly bodies: BodyStore }, out?: JointErrors): JointErrors {
    const nj = this.joints.length;
    const res = out ?? { linear: new Float64Array(nj), angular: new Float64Array(nj) };
    res.linear.fill(0);
    res.angular.fill(0);
    const P = this.parts;
    const B = world.bodies;
    for (let p = 0; p < P.count; p++) {
      const e = partError(P, p, B.pos, B.quat);
      const j = P.joint[p]!;
      const arr = isTranslational(P.kind[p]!) ? res.linear : res.angular;
      if (e > arr[j]!) arr[j] = e;
    }
    return res;
  }

  private bind(B: BodyStore, invMass: Float64Array, invInertia: Float64Array): JointState {
    const st = this.state;
    st.centre = B.pos;
    st.vel = B.vel;
    st.angVel = B.angVel;
    st.quat = B.quat;
    st.invMass = invMass;
    st.invInertiaW = invInertia;
    return st;
  }
}

/** Whether parts of this kind are rows of the PGS solve (distance and rope under contactSolver "pgs"), not solved by the passes here. */
function ownedByPgs(ctx: StepContext, kind: number): boolean {
  return kind === DIST && ctx.settings.contactSolver === 'pgs';
}

/** The JointSystem of a world, if its scene had joints or motors. */
export function jointsOf(world: { readonly constraints: ConstraintSystem | null }): JointSystem | null {
  return world.constraints instanceof JointSystem ? world.constraints : null;
}
