/**
 * Driving a motor from code (World.motor; docs/LIBRARY_FORMAT.md "Motors
 * from code"): a handle on one motor of a world's MotorSet (motors.ts).
 * setSpeed replaces the scene's program with a constant target from now on;
 * setMaxTorque changes the torque limit; the getters read the motor's state
 * after the last step. Every change wakes the motor's bodies and their
 * islands, so a sleeping robot answers at the next step.
 */
import { BODY, HINGE, type MotorSet } from './motors.ts';
import type { BodyStore } from './bodies.ts';

export type MotorKind = 'body' | 'hinge' | 'slider';

/** What a handle needs of its world. */
export interface MotorWorld {
  readonly bodies: BodyStore;
  readonly time: number;
  readonly dt: number;
  wakeBody(i: number): void;
}

/**
 * One motor of a world, driven from code between steps: `world.motor(name)`
 * (a robot's motor is `instance/motor`; `world.motorNames()` lists them).
 *
 * @example
 * ```ts
 * const fl = world.motor('cart/fl');
 * fl.setMaxTorque(10).setSpeed(-6);       // rad/s about the hinge axis, from now on
 * for (let i = 0; i < 100; i++) await world.step();
 * console.log(fl.speed, fl.torque);
 * fl.useProgram();                         // back to the scene's program
 * ```
 */
export class MotorHandle {
  /** The motor's name in the world (a robot's motor: "instance/motor"). */
  readonly name: string;
  /** "body" (a couple on one body), "hinge" (rad/s) or "slider" (m/s). */
  readonly kind: MotorKind;

  constructor(private readonly world: MotorWorld, private readonly set: MotorSet, readonly index: number) {
    this.name = set.names[index]!;
    const k = set.kind[index]!;
    this.kind = k === BODY ? 'body' : k === HINGE ? 'hinge' : 'slider';
  }

  /**
   * Drives the motor at a constant target speed from now on, replacing its
   * program and window: rad/s (body motors, hinges) or m/s (sliders), signed
   * along the motor's axis. A joint motor brakes as well as drives, and 0
   * holds the joint; a body motor with 0 does nothing (the seed's motor).
   */
  setSpeed(speed: number): this {
    if (!Number.isFinite(speed)) throw new RangeError(`motor ${JSON.stringify(this.name)}: setSpeed expects a finite number, got ${typeof speed === 'string' ? JSON.stringify(speed) : String(speed)}`);
    this.set.setSpeed(this.index, speed);
    this.wake();
    return this;
  }

  /** Turns the motor off until the next setSpeed or useProgram: it applies nothing. */
  off(): this {
    this.set.setSpeed(this.index, NaN);
    return this;
  }

  /** Goes back to the scene's program and window, at the world's current time. */
  useProgram(): this {
    this.set.useProgram(this.index);
    this.wake();
    return this;
  }

  /**
   * The most torque (N m) or force (N, sliders) the motor gives, >= 0, from
   * the next step: a motor without a ramp (no torqueIncrement) gives up to
   * it at once, one with a ramp starts from its startTorque (cut to the
   * limit). A motor too weak for its load stalls, or loses to it.
   */
  setMaxTorque(maxTorque: number): this {
    if (!(Number.isFinite(maxTorque) && maxTorque >= 0)) throw new RangeError(`motor ${JSON.stringify(this.name)}: setMaxTorque expects a finite number >= 0, got ${maxTorque}`);
    this.set.setMaxTorque(this.index, maxTorque);
    this.wake();
    return this;
  }

  /** The torque (force) limit. */
  get maxTorque(): number {
    return this.set.maxTorque[this.index]!;
  }

  /** The target speed of the next step (NaN while the motor is off: outside its window, past its program, or off()). */
  get target(): number {
    return this.set.target(this.index, this.world.time + 0.5 * this.world.dt);
  }

  /** Whether code has replaced the program (setSpeed or off). */
  get manual(): boolean {
    return this.set.isManual(this.index);
  }

  /** The speed along the motor's axis now (see setSpeed for the units). */
  get speed(): number {
    return this.set.speed(this.world.bodies, this.index);
  }

  /** The torque (N m) or force (N) applied in the last step, signed along the axis. */
  get torque(): number {
    return this.set.applied[this.index]!;
  }

  private wake(): void {
    this.world.wakeBody(this.set.body[this.index]!);
    const a = this.set.bodyA[this.index]!;
    if (a >= 0) this.world.wakeBody(a);
  }
}
