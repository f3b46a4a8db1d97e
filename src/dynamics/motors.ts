/**
 * Motors (docs/EXTRAS.md "Robots", seed 003 section 4.4). A motor sits on one body
 * and keeps that body's angular velocity at a target (world frame) during
 * [from, until) of simulation time, with a torque that starts at startTorque
 * and grows by torqueIncrement every step it is still below the target speed,
 * up to maxTorque; once the target speed is reached the torque drops back to
 * startTorque (the seed resets it to zero and restarts from startTorque).
 *
 * The torque is a pure couple on the body (the seed: "a pair of opposite
 * forces ... that only turn the body"): omega += dt I^-1 tau, applied in the
 * velocity update. Its reaction goes nowhere, as in the seed; a motor that
 * pushed back on the body it is joined to would need a second body per motor,
 * which the scene format does not name.
 *
 * One refinement over the seed: a step's torque is capped at what brings the
 * speed along the target exactly to the target, so a strong motor holds its
 * speed instead of overshooting and idling every other step. A motor too weak
 * for its load simply loses to the contacts and joints that hold the body:
 * its velocity change is undone by them within the same step.
 */
import type { MotorDesc } from './joints/types.ts';
import type { BodyStore } from './bodies.ts';
import { quatToMat3, worldInverseInertia } from './math.ts';

const R = new Float64Array(9);
const IW = new Float64Array(9);

export class MotorSet {
  readonly count: number;
  /** Driven body per motor. */
  readonly body: Int32Array;
  /** Unit target direction (world) and target speed |targetAngularVelocity|. */
  readonly dir: Float64Array;
  readonly speed: Float64Array;
  readonly startTorque: Float64Array;
  readonly torqueIncrement: Float64Array;
  readonly maxTorque: Float64Array;
  readonly from: Float64Array;
  readonly until: Float64Array;
  /** The torque the motor applies at its next active step. */
  readonly torque: Float64Array;
  /** The torque actually applied in the last step (N m), for display and tests. */
  readonly applied: Float64Array;

  constructor(descs: readonly MotorDesc[], bodyIndex: (name: string) => number) {
    const n = descs.length;
    this.count = n;
    this.body = new Int32Array(n);
    this.dir = new Float64Array(3 * n);
    this.speed = new Float64Array(n);
    this.startTorque = new Float64Array(n);
    this.torqueIncrement = new Float64Array(n);
    this.maxTorque = new Float64Array(n);
    this.from = new Float64Array(n);
    this.until = new Float64Array(n);
    this.torque = new Float64Array(n);
    this.applied = new Float64Array(n);
    descs.forEach((d, m) => {
      this.body[m] = bodyIndex(d.body);
      const [x, y, z] = d.targetAngularVelocity;
      const s = Math.hypot(x, y, z);
      this.speed[m] = s;
      // A zero target has no direction to drive along: such a motor does nothing.
      if (s > 0) {
        this.dir[3 * m] = x / s;
        this.dir[3 * m + 1] = y / s;
        this.dir[3 * m + 2] = z / s;
      }
      this.startTorque[m] = d.startTorque;
      this.torqueIncrement[m] = d.torqueIncrement;
      this.maxTorque[m] = d.maxTorque;
      this.from[m] = d.from;
      this.until[m] = d.until;
      this.torque[m] = d.startTorque;
    });
  }

  /**
   * Applies every active motor for the step [t, t + dt). Returns true if any
   * angular velocity changed.
   */
  /** Calls f(body) for every motor on within the step starting at t (sleeping is not for them). */
  active(t: number, dt: number, f: (body: number) => void): void {
    const mid = t + 0.5 * dt;
    for (let m = 0; m < this.count; m++) {
      if (this.speed[m]! !== 0 && mid >= this.from[m]! && mid < this.until[m]!) f(this.body[m]!);
    }
  }

  apply(B: BodyStore, t: number, dt: number): boolean {
    let changed = false;
    for (let m = 0; m < this.count; m++) {
      this.applied[m] = 0;
      const i = this.body[m]!;
      const speed = this.speed[m]!;
      // A step is on when its middle lies in the window: the step's start time
      // is a sum of dt's and may sit a rounding error below `from`.
      const mid = t + 0.5 * dt;
      if (!(mid >= this.from[m]! && mid < this.until[m]!) || speed === 0 || B.isStatic[i]) {
        this.torque[m] = this.startTorque[m]!;
        continue;
      }
      const dx = this.dir[3 * m]!, dy = this.dir[3 * m + 1]!, dz = this.dir[3 * m + 2]!;
      const w = B.angVel;
      const along = w[3 * i]! * dx + w[3 * i + 1]! * dy + w[3 * i + 2]! * dz;
      if (along >= speed) {
        this.torque[m] = this.startTorque[m]!;
        continue;
      }
      quatToMat3(B.quat, 4 * i, R);
      worldInverseInertia(R, 0, B.invInertia, 9 * i, IW, 0);
      // Angular velocity change per unit torque along the target: I^-1 dir.
      const ax = IW[0]! * dx + IW[1]! * dy + IW[2]! * dz;
      const ay = IW[3]! * dx + IW[4]! * dy + IW[5]! * dz;
      const az = IW[6]! * dx + IW[7]! * dy + IW[8]! * dz;
      const gain = ax * dx + ay * dy + az * dz;
      if (!(gain > 0)) continue;
      const needed = (speed - along) / (dt * gain);
      const tau = Math.min(this.torque[m]!, needed);
      if (tau > 0) {
        w[3 * i] += dt * tau * ax;
        w[3 * i + 1] += dt * tau * ay;
        w[3 * i + 2] += dt * tau * az;
        this.applied[m] = tau;
        changed = true;
      }
      this.torque[m] = Math.min(this.maxTorque[m]!, this.torque[m]! + this.torqueIncrement[m]!);
    }
    return changed;
  }
}
