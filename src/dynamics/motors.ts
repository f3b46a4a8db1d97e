/**
 * Motors (docs/EXTRAS.md "Robots", seed 003 section 4.4; docs/SCENE_FORMAT.md
 * "motors"). Two kinds share one torque ramp and one program clock:
 *
 * - A **body motor** sits on one body and keeps that body's angular velocity
 *   along its axis (fixed in the world, or turning with the body) at a
 *   target, with a torque that starts at startTorque and grows by
 *   torqueIncrement every step it is still below the target speed, up to
 *   maxTorque; once the target speed is reached the torque drops back to
 *   startTorque (the seed resets it to zero and restarts from startTorque).
 *   The torque is a pure couple on the body (the seed: "a pair of opposite
 *   forces ... that only turn the body"): omega += dt I^-1 tau, and it acts
 *   only towards the target, never as a brake, as in the seed. Its reaction
 *   goes nowhere: the seed's motor names one body only.
 *
 * - A **joint motor** drives a hinge (relative angular velocity of B against
 *   A about the hinge axis) or a slider (relative velocity along its axis) to
 *   a signed target, both ways, as a servo does: it brakes as well as drives,
 *   and a target of 0 holds the joint. Its torque or force acts equally and
 *   oppositely on the two bodies, so it conserves momentum and angular
 *   momentum: a hinge motor applies +tau a to B and -tau a to A; a slider
 *   motor applies +F a and -F a at one point (B's anchor), so the two forces
 *   share a line of action and their moments cancel too. (Forces at the two
 *   centres of mass would leave a couple (c_B - c_A) x F.)
 *
 * The target comes from a program: segments of (speed, duration) from `from`
 * on, repeated or not; a constant speed is one endless segment. A step is
 * active when its midpoint lies in [from, until): step start times are sums of
 * dt and may sit a rounding error below `from`, and a window given in steps
 * (k dt) then covers exactly steps k.. .
 *
 * One refinement over the seed: a step's torque is capped at what brings the
 * speed exactly to the target (the effective inertia along the axis, from
 * the free bodies), so a strong motor holds its speed instead of overshooting
 * and idling every other step. A motor too weak for its load simply loses to
 * the contacts and joints that hold the body: its velocity change is undone
 * by them within the same step.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { BodyStore } from './bodies.ts';

/** The accelerations the step's velocity update gave each body before the motors act (StepContext's fields of these names). */
export interface MotorLoads {
  readonly gravity: ArrayLike<number>;
  readonly extAcc: Float64Array;
  readonly extAngAcc: Float64Array;
}
import { quatMul, quatToMat3, relativePointVelocity, worldInverseInertia } from './math.ts';
import * as det from '../util/detmath.ts';

/** One segment of a motor program: hold `speed` for `duration` seconds. */
export interface MotorSegment {
  /** rad/s (body motors, hinges) or m/s (sliders), signed along the motor's axis. */
  speed: number;
  /** Seconds; Infinity for a constant target. */
  duration: number;
}

/**
 * A motor (docs/SCENE_FORMAT.md "motors"). Exactly one of `body` and `joint`
 * is non-empty: a body motor turns one body by a pure couple (seed 003); a
 * joint motor drives a hinge or slider with equal and opposite torques or
 * forces on the joint's two bodies.
 */
export interface MotorDesc {
  name: string;
  /** The driven body of a body motor, else "". */
  body: string;
  /** The hinge or slider a joint motor drives, else "". */
  joint: string;
  /** Body motors: the unit axis ([0, 0, 0]: the motor does nothing), in `frame`. Joint motors: unused. */
  axis: Vec3;
  /** Body motors: the axis is fixed in the world, or turns with the body (its shape's own frame). */
  frame: 'world' | 'body';
  /** Target speed segments from `from` on; a constant target is one segment of infinite duration. */
  program: MotorSegment[];
  /** Start the program again when it ends (otherwise the motor stops there). */
  repeat: boolean;
  startTorque: number;
  /** N m (or N) added every active step that did not reach the target. */
  torqueIncrement: number;
  maxTorque: number;
  /** Seconds: a step is active when its midpoint lies in [from, until). */
  from: number;
  until: number;
}

/** What a joint motor needs of its joint (src/dynamics/joints/system.ts). */
export interface MotorJoint {
  type: 'hinge' | 'slider';
  a: number;
  b: number;
  /** The joint axis, unit, in A's body frame. */
  axisA: readonly number[];
  /** Anchors relative to each body's centre of mass, body frames (sliders). */
  rA: readonly number[];
  rB: readonly number[];
}

export const BODY = 0;
export const HINGE = 1;
export const SLIDER = 2;

const R = new Float64Array(9);
const IA = new Float64Array(9);
const IB = new Float64Array(9);

export class MotorSet {
  readonly count: number;
  readonly names: string[];
  /** BODY, HINGE or SLIDER per motor. */
  readonly kind: Uint8Array;
  /** The driven body (body motors), or the joint's body B. */
  readonly body: Int32Array;
  /** The joint's body A (joint motors), or -1. */
  readonly bodyA: Int32Array;
  /** Unit axis: body motors in their frame, joint motors in A's body frame. */
  readonly dir: Float64Array;
  /** 1 when a body motor's axis turns with the body. */
  readonly bodyFrame: Uint8Array;
  /** Slider anchors relative to the centres of mass, body frames. */
  readonly rA: Float64Array;
  readonly rB: Float64Array;
  /** Program of motor m: segments segStart[m] .. segStart[m + 1], each a speed and its end time after `from`. */
  readonly segStart: Int32Array;
  readonly segSpeed: Float64Array;
  readonly segEnd: Float64Array;
  readonly repeat: Uint8Array;
  readonly startTorque: Float64Array;
  readonly torqueIncrement: Float64Array;
  readonly maxTorque: Float64Array;
  readonly from: Float64Array;
  readonly until: Float64Array;
  /** The torque the motor applies at its next active step. */
  readonly torque: Float64Array;
  /** The torque (N m) or force (N) actually applied in the last step, signed along the axis, for display and tests. */
  readonly applied: Float64Array;
  /**
   * The load observer: the speed along the axis at the start of the last
   * active step (NaN after a step the motor was off), the inverse inertia k
   * along the axis then, and the torque applied (see loadTorque).
   */
  private readonly lastSpeed: Float64Array;
  private readonly lastK: Float64Array;
  private readonly lastTorque: Float64Array;
  /** What the step's velocity update gave the bodies before the motors (apply's `loads`; null: nothing known). */
  private loads: MotorLoads | null = null;
  /** Body motors: the direction (+1 or -1 along the axis) of the last step. */
  private readonly lastSign: Int8Array;
  /**
   * Joint motors with a program follow it as a trajectory (trackProgram):
   * 1 while on; the joint's position (angle or displacement) the program has
   * reached; the reference pose the position is measured from (A's frame:
   * the relative orientation of a hinge, the anchor offset of a slider at
   * the start), and the hinge angle unwrapped across +-pi.
   */
  readonly tracking: Uint8Array;
  private readonly on: Uint8Array;
  private readonly programPos: Float64Array;
  private readonly ref: Float64Array;
  private readonly angle: Float64Array;
  private readonly lastWrapped: Float64Array;
  /**
   * Run-time control (World.motor, src/dynamics/motorHandle.ts): 1 while
   * code has replaced the program; the constant target then (NaN: off), and
   * whether the scene's program is tracked, for going back to it.
   */
  private readonly manual: Uint8Array;
  private readonly manualSpeed: Float64Array;
  private readonly programTracked: Uint8Array;
  private readonly sceneStart: Float64Array;

  constructor(descs: readonly MotorDesc[], bodyIndex: (name: string) => number, jointOf: (name: string) => MotorJoint = noJoint) {
    const n = descs.length;
    this.count = n;
    this.names = descs.map((d) => d.name);
    this.kind = new Uint8Array(n);
    this.body = new Int32Array(n);
    this.bodyA = new Int32Array(n).fill(-1);
    this.dir = new Float64Array(3 * n);
    this.bodyFrame = new Uint8Array(n);
    this.rA = new Float64Array(3 * n);
    this.rB = new Float64Array(3 * n);
    this.segStart = new Int32Array(n + 1);
    let segs = 0;
    for (const d of descs) segs += d.program.length;
    this.segSpeed = new Float64Array(segs);
    this.segEnd = new Float64Array(segs);
    this.repeat = new Uint8Array(n);
    this.startTorque = new Float64Array(n);
    this.torqueIncrement = new Float64Array(n);
    this.maxTorque = new Float64Array(n);
    this.from = new Float64Array(n);
    this.until = new Float64Array(n);
    this.torque = new Float64Array(n);
    this.applied = new Float64Array(n);
    this.lastSpeed = new Float64Array(n).fill(NaN);
    this.lastK = new Float64Array(n);
    this.lastTorque = new Float64Array(n);
    this.lastSign = new Int8Array(n).fill(1);
    this.tracking = new Uint8Array(n);
    this.on = new Uint8Array(n);
    this.programPos = new Float64Array(n);
    this.ref = new Float64Array(4 * n);
    this.angle = new Float64Array(n);
    this.lastWrapped = new Float64Array(n);
    this.manual = new Uint8Array(n);
    this.manualSpeed = new Float64Array(n);
    this.programTracked = new Uint8Array(n);
    this.sceneStart = new Float64Array(n);
    let s = 0;
    descs.forEach((d, m) => {
      if (d.joint) {
        const j = jointOf(d.joint);
        this.kind[m] = j.type === 'hinge' ? HINGE : SLIDER;
        this.body[m] = j.b;
        this.bodyA[m] = j.a;
        for (let k = 0; k < 3; k++) {
          this.dir[3 * m + k] = j.axisA[k]!;
          this.rA[3 * m + k] = j.rA[k]!;
          this.rB[3 * m + k] = j.rB[k]!;
        }
      } else {
        this.kind[m] = BODY;
        this.body[m] = bodyIndex(d.body);
        this.bodyFrame[m] = d.frame === 'body' ? 1 : 0;
        for (let k = 0; k < 3; k++) this.dir[3 * m + k] = d.axis[k]!;
      }
      this.segStart[m] = s;
      let end = 0;
      for (const seg of d.program) {
        end += seg.duration;
        this.segSpeed[s] = seg.speed;
        this.segEnd[s++] = end;
      }
      this.repeat[m] = d.repeat ? 1 : 0;
      // A constant speed is one endless segment; anything else is a program, which joint motors track.
      const constant = d.program.length === 1 && d.program[0]!.duration === Infinity;
      this.tracking[m] = d.joint && !constant ? 1 : 0;
      this.programTracked[m] = this.tracking[m]!;
      this.startTorque[m] = d.startTorque;
      this.sceneStart[m] = d.startTorque;
      this.torqueIncrement[m] = d.torqueIncrement;
      this.maxTorque[m] = d.maxTorque;
      this.from[m] = d.from;
      this.until[m] = d.until;
      this.torque[m] = d.startTorque;
    });
    this.segStart[n] = s;
  }

  /**
   * The target speed of motor m for the step whose midpoint is `mid`, or NaN
   * when the motor is off then (outside its window, or past the end of a
   * program that does not repeat).
   */
  target(m: number, mid: number): number {
    if (this.manual[m]) return this.manualSpeed[m]!;
    if (!(mid >= this.from[m]! && mid < this.until[m]!)) return NaN;
    const s0 = this.segStart[m]!, s1 = this.segStart[m + 1]!;
    if (s1 - s0 === 1 && this.segEnd[s0] === Infinity) return this.segSpeed[s0]!;
    let tau = mid - this.from[m]!;
    const total = this.segEnd[s1 - 1]!;
    if (this.repeat[m]) tau -= Math.floor(tau / total) * total;
    for (let s = s0; s < s1; s++) if (tau < this.segEnd[s]!) return this.segSpeed[s]!;
    return NaN;
  }

  /**
   * Replaces motor m's program and window by a constant target speed from
   * now on (NaN: the motor is off). A joint motor then servos to the speed
   * as a constant `speed` does (no trajectory to track); the torque ramp
   * and the load observer carry on.
   */
  setSpeed(m: number, speed: number): void {
    this.manual[m] = 1;
    this.manualSpeed[m] = speed;
    this.tracking[m] = 0;
    this.on[m] = 0;
  }

  /** Motor m follows its scene program and window again (at the world's time, not from its start). */
  useProgram(m: number): void {
    this.manual[m] = 0;
    this.tracking[m] = this.programTracked[m]!;
    this.on[m] = 0;
  }

  /** Whether code has replaced motor m's program (setSpeed). */
  isManual(m: number): boolean {
    return this.manual[m] === 1;
  }

  /**
   * Sets motor m's torque (or force) limit. A motor without a ramp
   * (torqueIncrement 0) gives up to the limit from the next step; one with a
   * ramp starts from its scene's startTorque, cut to the limit. The torque
   * the ramp has reached is kept within [startTorque, limit].
   */
  setMaxTorque(m: number, maxTorque: number): void {
    this.maxTorque[m] = maxTorque;
    this.startTorque[m] = this.torqueIncrement[m] === 0 ? maxTorque : Math.min(this.sceneStart[m]!, maxTorque);
    this.torque[m] = Math.min(Math.max(this.torque[m]!, this.startTorque[m]!), maxTorque);
  }

  /**
   * Motor m's speed now along its axis: a body motor's angular velocity
   * (rad/s), a hinge's relative angular velocity of B against A (rad/s), a
   * slider's relative velocity at B's anchor (m/s).
   */
  speed(B: BodyStore, m: number): number {
    const kind = this.kind[m]!;
    const b = this.body[m]!;
    const v = B.vel, w = B.angVel;
    if (kind === BODY) {
      let dx = this.dir[3 * m]!, dy = this.dir[3 * m + 1]!, dz = this.dir[3 * m + 2]!;
      if (this.bodyFrame[m]) {
        quatToMat3(B.quat, 4 * b, R);
        const x = dx, y = dy, z = dz;
        dx = R[0]! * x + R[1]! * y + R[2]! * z;
        dy = R[3]! * x + R[4]! * y + R[5]! * z;
        dz = R[6]! * x + R[7]! * y + R[8]! * z;
      }
      return w[3 * b]! * dx + w[3 * b + 1]! * dy + w[3 * b + 2]! * dz;
    }
    const a = this.bodyA[m]!;
    this.jointAxis(B, m, AX);
    const x = AX[0]!, y = AX[1]!, z = AX[2]!;
    if (kind === HINGE) return (w[3 * b]! - w[3 * a]!) * x + (w[3 * b + 1]! - w[3 * a + 1]!) * y + (w[3 * b + 2]! - w[3 * a + 2]!) * z;
    quatToMat3(B.quat, 4 * b, R);
    const lx = this.rB[3 * m]!, ly = this.rB[3 * m + 1]!, lz = this.rB[3 * m + 2]!;
    const rbx = R[0]! * lx + R[1]! * ly + R[2]! * lz, rby = R[3]! * lx + R[4]! * ly + R[5]! * lz, rbz = R[6]! * lx + R[7]! * ly + R[8]! * lz;
    const P = B.pos;
    ARMS[0] = rbx; ARMS[1] = rby; ARMS[2] = rbz;
    ARMS[3] = P[3 * b]! + rbx - P[3 * a]!; ARMS[4] = P[3 * b + 1]! + rby - P[3 * a + 1]!; ARMS[5] = P[3 * b + 2]! + rbz - P[3 * a + 2]!;
    relativePointVelocity(v, w, b, a, ARMS, 0, PV);
    return PV[0]! * x + PV[1]! * y + PV[2]! * z;
  }

  /** Whether motor m acts at all with target speed s (a body motor with target 0 does nothing; a joint motor holds). */
  private acts(m: number, s: number): boolean {
    return s === s && (s !== 0 || this.kind[m] !== BODY);
  }

  /** Calls f(body) for every body a motor acts on within the step starting at t (sleeping is not for them). */
  active(t: number, dt: number, f: (body: number) => void): void {
    const mid = t + 0.5 * dt;
    for (let m = 0; m < this.count; m++) {
      if (!this.acts(m, this.target(m, mid))) continue;
      f(this.body[m]!);
      if (this.bodyA[m]! >= 0) f(this.bodyA[m]!);
    }
  }

  /** Applies every active motor for the step [t, t + dt). Returns true if any velocity changed. */
  apply(B: BodyStore, t: number, dt: number, loads: MotorLoads | null = null): boolean {
    this.loads = loads;
    let changed = false;
    const mid = t + 0.5 * dt;
    for (let m = 0; m < this.count; m++) {
      this.applied[m] = 0;
      const s = this.target(m, mid);
      if (!this.acts(m, s)) {
        this.torque[m] = this.startTorque[m]!;
        this.lastSpeed[m] = NaN;
        this.on[m] = 0;
        continue;
      }
      const kind = this.kind[m]!;
      const acted = kind === BODY ? this.applyBody(B, m, s, dt) : kind === HINGE ? this.applyHinge(B, m, s, dt) : this.applySlider(B, m, s, dt);
      changed = acted || changed;
    }
    return changed;
  }

  /**
   * The torque the load took last step: the speed the motor's last torque
   * would have given a free body, less the speed it has now, in torque
   * units (0 after a step the motor was off). Gravity, contacts and joints
   * all show up in it. A step then aims at the target against that load:
   * capping each step's torque at what a free body needs (1 / k per unit of
   * speed) would leave a loaded motor below its target for ever, however
   * much torque it may give, since the contacts undo each step's change.
   */
  private loadTorque(m: number, speed: number, k: number, dt: number): number {
    const last = this.lastSpeed[m]!;
    if (last !== last) return 0;
    return (last + dt * this.lastK[m]! * this.lastTorque[m]! - speed) / (dt * k);
  }

  /**
   * What this step's velocity update gave the speed along motor m's axis
   * before the motor acts (gravity and the external forces of `loads`): the
   * load observer compares the last step's end with the speed before it, so
   * that a load the step already holds is not counted twice. Counted twice,
   * gravity along a slider's axis left it at its target plus g dt: told to
   * hold still on a 30 degree rail, a slider crept up it at 4.9 cm/s.
   * `arms`: a slider's lever arms to its point of action, B's then A's;
   * null for a hinge or a body motor, whose speed is angular.
   */
  private preLoad(B: BodyStore, m: number, x: number, y: number, z: number, dt: number, arms: Float64Array | null): number {
    const L = this.loads;
    if (!L) return 0;
    let sum = 0;
    for (let side = 0; side < 2; side++) {
      const i = side === 0 ? this.body[m]! : this.bodyA[m]!;
      if (i < 0 || B.isStatic[i] || B.asleep[i]) continue;
      const sgn = side === 0 ? 1 : -1;
      const al = L.extAngAcc, ax = al[3 * i]!, ay = al[3 * i + 1]!, az = al[3 * i + 2]!;
      if (arms) {
        const a = L.extAcc, g = L.gravity;
        const o = 3 * side, rx = arms[o]!, ry = arms[o + 1]!, rz = arms[o + 2]!;
        // (g + a) + alpha x r, along the axis.
        const lx = g[0]! + a[3 * i]! + ay * rz - az * ry;
        const ly = g[1]! + a[3 * i + 1]! + az * rx - ax * rz;
        const lz = g[2]! + a[3 * i + 2]! + ax * ry - ay * rx;
        sum += sgn * (lx * x + ly * y + lz * z);
      } else {
        sum += sgn * (ax * x + ay * y + az * z);
      }
    }
    return dt * sum;
  }

  private observe(m: number, speed: number, k: number, torque: number): void {
    this.lastSpeed[m] = speed;
    this.lastK[m] = k;
    this.lastTorque[m] = torque;
  }

  /** The seed's motor: a couple towards the target while the body is slower than it. */
  private applyBody(B: BodyStore, m: number, speed: number, dt: number): boolean {
    const i = this.body[m]!;
    if (B.isStatic[i]) {
      this.torque[m] = this.startTorque[m]!;
      return false;
    }
    let dx = this.dir[3 * m]!, dy = this.dir[3 * m + 1]!, dz = this.dir[3 * m + 2]!;
    quatToMat3(B.quat, 4 * i, R);
    if (this.bodyFrame[m]) {
      const x = dx, y = dy, z = dz;
      dx = R[0]! * x + R[1]! * y + R[2]! * z;
      dy = R[3]! * x + R[4]! * y + R[5]! * z;
      dz = R[6]! * x + R[7]! * y + R[8]! * z;
    }
    // A negative target drives the other way: the same rule along -axis (a
    // change of direction starts the load observer afresh).
    const sign = speed < 0 ? -1 : 1;
    if (sign < 0) {
      dx = -dx; dy = -dy; dz = -dz;
      speed = -speed;
    }
    if (this.lastSign[m] !== sign) this.lastSpeed[m] = NaN;
    this.lastSign[m] = sign;
    const w = B.angVel;
    const along = w[3 * i]! * dx + w[3 * i + 1]! * dy + w[3 * i + 2]! * dz;
    if (along >= speed) {
      // The seed: the target is reached, the ramp starts again.
      this.torque[m] = this.startTorque[m]!;
      this.lastSpeed[m] = NaN;
      return false;
    }
    worldInverseInertia(R, 0, B.invInertia, 9 * i, IA, 0);
    // Angular velocity change per unit torque along the target: I^-1 dir.
    const ax = IA[0]! * dx + IA[1]! * dy + IA[2]! * dz;
    const ay = IA[3]! * dx + IA[4]! * dy + IA[5]! * dz;
    const az = IA[6]! * dx + IA[7]! * dy + IA[8]! * dz;
    const gain = ax * dx + ay * dy + az * dz;
    if (!(gain > 0)) return false;
    const needed = (speed - along) / (dt * gain) + this.loadTorque(m, along - this.preLoad(B, m, dx, dy, dz, dt, null), gain, dt);
    const tau = Math.max(0, Math.min(this.torque[m]!, needed));
    this.observe(m, along, gain, tau);
    let acted = false;
    if (tau > 0) {
      w[3 * i] += dt * tau * ax;
      w[3 * i + 1] += dt * tau * ay;
      w[3 * i + 2] += dt * tau * az;
      this.applied[m] = sign * tau;
      acted = true;
    }
    this.torque[m] = Math.min(this.maxTorque[m]!, this.torque[m]! + this.torqueIncrement[m]!);
    return acted;
  }

  /** World inverse inertia of body i into out (zero for a static body); returns its inverse mass. */
  private inverseMass(B: BodyStore, i: number, out: Float64Array): number {
    if (B.isStatic[i]) {
      out.fill(0);
      return 0;
    }
    quatToMat3(B.quat, 4 * i, R);
    worldInverseInertia(R, 0, B.invInertia, 9 * i, out, 0);
    return B.invMass[i]!;
  }

  /**
   * A two-sided motor's torque (or force) for a step at speed `speed` with
   * inverse inertia k along its axis: what reaches the target against the
   * load, within the current limit. The limit grows by the increment while
   * the target is out of its reach, and falls back to what holding the
   * target takes (at least startTorque) once it is within reach, so a servo
   * holding a load keeps the torque that holds it.
   */
  private servo(m: number, target: number, speed: number, k: number, dt: number, pre: number): number {
    const needed = (target - speed) / (dt * k) + this.loadTorque(m, speed - pre, k, dt);
    const cap = this.torque[m]!;
    const out = Math.abs(needed) <= cap ? needed : needed > 0 ? cap : -cap;
    this.torque[m] = Math.abs(needed) <= cap ? Math.max(this.startTorque[m]!, Math.abs(needed)) : Math.min(this.maxTorque[m]!, cap + this.torqueIncrement[m]!);
    this.observe(m, speed, k, out);
    return out;
  }

  /** World axis of a joint motor: A's body-frame axis turned by A's orientation. */
  private jointAxis(B: BodyStore, m: number, out: Float64Array): void {
    quatToMat3(B.quat, 4 * this.bodyA[m]!, R);
    const x = this.dir[3 * m]!, y = this.dir[3 * m + 1]!, z = this.dir[3 * m + 2]!;
    out[0] = R[0]! * x + R[1]! * y + R[2]! * z;
    out[1] = R[3]! * x + R[4]! * y + R[5]! * z;
    out[2] = R[6]! * x + R[7]! * y + R[8]! * z;
  }

  /**
   * A tracked program's target speed for this step: the program's speed plus
   * what makes up the joint's lag (or lead) on the program's trajectory over
   * TRACK_TIME. The trajectory starts where the joint is when the motor turns
   * on, so a repeated gait whose speeds sum to zero comes back to its start
   * instead of drifting by whatever each swing fell short.
   */
  private track(m: number, speed: number, position: number, dt: number): number {
    if (!this.on[m]) {
      this.on[m] = 1;
      this.programPos[m] = position;
    }
    const target = speed + (this.programPos[m]! - position) / TRACK_TIME;
    this.programPos[m] += speed * dt;
    return target;
  }

  /**
   * A hinge's angle about its axis since the motor turned on: the relative
   * rotation q_A^-1 q_B against the one at the start, read about A's axis,
   * unwrapped across +-pi step by step.
   */
  private hingeAngle(B: BodyStore, m: number): number {
    const a = 4 * this.bodyA[m]!, b = 4 * this.body[m]!;
    const Q = B.quat;
    // rel = conj(qA) qB
    REL[0] = -Q[a]!; REL[1] = -Q[a + 1]!; REL[2] = -Q[a + 2]!; REL[3] = Q[a + 3]!;
    quatMul(REL, 0, Q, b, REL2, 0);
    const o = 4 * m;
    if (!this.on[m]) {
      for (let c = 0; c < 4; c++) this.ref[o + c] = REL2[c]!;
      this.angle[m] = 0;
      this.lastWrapped[m] = 0;
      return 0;
    }
    // delta = rel conj(ref), a rotation in A's frame.
    REL[0] = -this.ref[o]!; REL[1] = -this.ref[o + 1]!; REL[2] = -this.ref[o + 2]!; REL[3] = this.ref[o + 3]!;
    quatMul(REL2, 0, REL, 0, DELTA, 0);
    const sn = DELTA[0]! * this.dir[3 * m]! + DELTA[1]! * this.dir[3 * m + 1]! + DELTA[2]! * this.dir[3 * m + 2]!;
    const wrapped = 2 * det.atan2(sn, DELTA[3]!);
    let d = wrapped - this.lastWrapped[m]!;
    d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
    this.lastWrapped[m] = wrapped;
    this.angle[m] += d;
    return this.angle[m]!;
  }

  /** Equal and opposite torques about the hinge axis: (omega_B - omega_A) . a -> target. */
  private applyHinge(B: BodyStore, m: number, speed: number, dt: number): boolean {
    const a = this.bodyA[m]!, b = this.body[m]!;
    this.jointAxis(B, m, AX);
    const x = AX[0]!, y = AX[1]!, z = AX[2]!;
    this.inverseMass(B, a, IA);
    this.inverseMass(B, b, IB);
    const w = B.angVel;
    const rel = (w[3 * b]! - w[3 * a]!) * x + (w[3 * b + 1]! - w[3 * a + 1]!) * y + (w[3 * b + 2]! - w[3 * a + 2]!) * z;
    // I^-1 a for each body; k = a . (I_A^-1 + I_B^-1) a is the inverse inertia the couple sees.
    const uax = IA[0]! * x + IA[1]! * y + IA[2]! * z, uay = IA[3]! * x + IA[4]! * y + IA[5]! * z, uaz = IA[6]! * x + IA[7]! * y + IA[8]! * z;
    const ubx = IB[0]! * x + IB[1]! * y + IB[2]! * z, uby = IB[3]! * x + IB[4]! * y + IB[5]! * z, ubz = IB[6]! * x + IB[7]! * y + IB[8]! * z;
    const k = x * (uax + ubx) + y * (uay + uby) + z * (uaz + ubz);
    if (!(k > 0)) return false;
    const target = this.tracking[m] ? this.track(m, speed, this.hingeAngle(B, m), dt) : speed;
    const tau = this.servo(m, target, rel, k, dt, this.preLoad(B, m, x, y, z, dt, null));
    if (tau === 0) return false;
    const h = dt * tau;
    w[3 * b] += h * ubx; w[3 * b + 1] += h * uby; w[3 * b + 2] += h * ubz;
    w[3 * a] -= h * uax; w[3 * a + 1] -= h * uay; w[3 * a + 2] -= h * uaz;
    this.applied[m] = tau;
    return true;
  }

  /** Equal and opposite forces along the slider axis at B's anchor: relative velocity there . a -> target. */
  private applySlider(B: BodyStore, m: number, speed: number, dt: number): boolean {
    const a = this.bodyA[m]!, b = this.body[m]!;
    this.jointAxis(B, m, AX);
    const x = AX[0]!, y = AX[1]!, z = AX[2]!;
    // The point of action p = c_B + R_B rB; arms from each centre.
    quatToMat3(B.quat, 4 * b, R);
    const lx = this.rB[3 * m]!, ly = this.rB[3 * m + 1]!, lz = this.rB[3 * m + 2]!;
    const rbx = R[0]! * lx + R[1]! * ly + R[2]! * lz, rby = R[3]! * lx + R[4]! * ly + R[5]! * lz, rbz = R[6]! * lx + R[7]! * ly + R[8]! * lz;
    const P = B.pos;
    const rax = P[3 * b]! + rbx - P[3 * a]!, ray = P[3 * b + 1]! + rby - P[3 * a + 1]!, raz = P[3 * b + 2]! + rbz - P[3 * a + 2]!;
    const ma = this.inverseMass(B, a, IA);
    const mb = this.inverseMass(B, b, IB);
    const v = B.vel, w = B.angVel;
    // B's velocity at p less A's (v + omega x r of each).
    ARMS[0] = rbx; ARMS[1] = rby; ARMS[2] = rbz; ARMS[3] = rax; ARMS[4] = ray; ARMS[5] = raz;
    relativePointVelocity(v, w, b, a, ARMS, 0, PV);
    const rel = PV[0]! * x + PV[1]! * y + PV[2]! * z;
    // n = r x a per body; k = 1/m_A + 1/m_B + n_A . I_A^-1 n_A + n_B . I_B^-1 n_B.
    const nax = ray * z - raz * y, nay = raz * x - rax * z, naz = rax * y - ray * x;
    const nbx = rby * z - rbz * y, nby = rbz * x - rbx * z, nbz = rbx * y - rby * x;
    const uax = IA[0]! * nax + IA[1]! * nay + IA[2]! * naz, uay = IA[3]! * nax + IA[4]! * nay + IA[5]! * naz, uaz = IA[6]! * nax + IA[7]! * nay + IA[8]! * naz;
    const ubx = IB[0]! * nbx + IB[1]! * nby + IB[2]! * nbz, uby = IB[3]! * nbx + IB[4]! * nby + IB[5]! * nbz, ubz = IB[6]! * nbx + IB[7]! * nby + IB[8]! * nbz;
    const k = ma + mb + nax * uax + nay * uay + naz * uaz + nbx * ubx + nby * uby + nbz * ubz;
    if (!(k > 0)) return false;
    let target = speed;
    if (this.tracking[m]) {
      // Displacement along the axis of B's anchor from A's (arm rA in A's frame).
      quatToMat3(B.quat, 4 * a, R);
      const lx = this.rA[3 * m]!, ly = this.rA[3 * m + 1]!, lz = this.rA[3 * m + 2]!;
      const dx = rax - (R[0]! * lx + R[1]! * ly + R[2]! * lz), dy = ray - (R[3]! * lx + R[4]! * ly + R[5]! * lz), dz = raz - (R[6]! * lx + R[7]! * ly + R[8]! * lz);
      const d = dx * x + dy * y + dz * z;
      if (!this.on[m]) this.ref[4 * m] = d;
      target = this.track(m, speed, d - this.ref[4 * m]!, dt);
    }
    const f = this.servo(m, target, rel, k, dt, this.preLoad(B, m, x, y, z, dt, ARMS));
    if (f === 0) return false;
    const h = dt * f;
    v[3 * b] += h * mb * x; v[3 * b + 1] += h * mb * y; v[3 * b + 2] += h * mb * z;
    w[3 * b] += h * ubx; w[3 * b + 1] += h * uby; w[3 * b + 2] += h * ubz;
    v[3 * a] -= h * ma * x; v[3 * a + 1] -= h * ma * y; v[3 * a + 2] -= h * ma * z;
    w[3 * a] -= h * uax; w[3 * a + 1] -= h * uay; w[3 * a + 2] -= h * uaz;
    this.applied[m] = f;
    return true;
  }
}

const AX = new Float64Array(3);
/** A joint motor's lever arms (B's, then A's) and the relative velocity at its point of action. */
const ARMS = new Float64Array(6);
const PV = new Float64Array(3);
const REL = new Float64Array(4);
const REL2 = new Float64Array(4);
const DELTA = new Float64Array(4);

/** Seconds over which a tracked program makes up the joint's lag on its trajectory (10 steps at dt = 0.01 s). */
export const TRACK_TIME = 0.1;

function noJoint(name: string): MotorJoint {
  throw new RangeError(`motor names unknown joint "${name}"`);
}
