/**
 * Body state as a structure of arrays (docs/STYLE.md point 2). The solver refers to
 * bodies by index; names and shape references live beside it in plain arrays.
 *
 * Per body i:
 *   pos[3i..3i+2]   centre of mass, world
 *   quat[4i..4i+3]  orientation, [x, y, z, w]
 *   vel[3i..]       linear velocity;  angVel[3i..]  angular velocity (world)
 *   invMass[i]      0 for static (or frozen) bodies
 *   invInertia[9i..] inverse inertia in the body frame, row-major
 *   restitution, friction (dynamic), staticFriction, rollingFriction, spinningFriction
 *   materialGiven[i] which of those five the scene gave (bits MATERIAL_*)
 *   isStatic[i]     1 for static bodies
 *   asleep[i]       1 while the body sleeps
 *   shape[i]        index into World.shapes
 */
import { grown } from '../util/growable.ts';

/** BodyStore.materialGiven bits: the property was given for the body, not left at the format's default. */
export const MATERIAL_RESTITUTION = 1;
export const MATERIAL_FRICTION = 2;
export const MATERIAL_ROLLING = 4;
export const MATERIAL_SPINNING = 8;
export const MATERIAL_STATIC = 16;
export const MATERIAL_ALL = 31;

/** Body state as a structure of arrays, indexed by body (layout in the file comment above). */
export class BodyStore {
  count = 0;
  capacity: number;
  pos: Float64Array;
  quat: Float64Array;
  vel: Float64Array;
  angVel: Float64Array;
  invMass: Float64Array;
  mass: Float64Array;
  invInertia: Float64Array;
  restitution: Float64Array;
  /** Dynamic (sliding) friction coefficient mu_d. */
  friction: Float64Array;
  /**
   * Static (sticking) friction coefficient mu_s; NaN (what add() sets) means
   * "the same as friction" (staticFrictionOf).
   */
  staticFriction: Float64Array;
  rollingFriction: Float64Array;
  spinningFriction: Float64Array;
  /** Body i's static friction: staticFriction[i], or friction[i] where that is NaN. */
  staticFrictionOf(i: number): number {
    const s = this.staticFriction[i]!;
    return Number.isNaN(s) ? this.friction[i]! : s;
  }
  /**
   * Which material properties were given for the body (MATERIAL_* bits); a
   * pair takes a property given for only one of its bodies from that one
   * (material.ts). Bodies added through the API have all four.
   */
  materialGiven: Uint8Array;
  isStatic: Uint8Array;
  /** 1 while the body sleeps (no queries, no solve; woken by contact, joints, edits). */
  asleep: Uint8Array;
  shape: Int32Array;
  names: string[] = [];

  constructor(capacity = 16) {
    this.capacity = capacity;
    this.pos = new Float64Array(3 * capacity);
    this.quat = new Float64Array(4 * capacity);
    this.vel = new Float64Array(3 * capacity);
    this.angVel = new Float64Array(3 * capacity);
    this.invMass = new Float64Array(capacity);
    this.mass = new Float64Array(capacity);
    this.invInertia = new Float64Array(9 * capacity);
    this.restitution = new Float64Array(capacity);
    this.friction = new Float64Array(capacity);
    this.staticFriction = new Float64Array(capacity).fill(NaN);
    this.rollingFriction = new Float64Array(capacity);
    this.spinningFriction = new Float64Array(capacity);
    this.materialGiven = new Uint8Array(capacity);
    this.isStatic = new Uint8Array(capacity);
    this.asleep = new Uint8Array(capacity);
    this.shape = new Int32Array(capacity);
  }

  private grow(): void {
    const c = this.capacity * 2;
    const g = <T extends Float64Array | Uint8Array | Int32Array>(a: T, k: number): T => grown(a, c * k);
    this.pos = g(this.pos, 3);
    this.quat = g(this.quat, 4);
    this.vel = g(this.vel, 3);
    this.angVel = g(this.angVel, 3);
    this.invMass = g(this.invMass, 1);
    this.mass = g(this.mass, 1);
    this.invInertia = g(this.invInertia, 9);
    this.restitution = g(this.restitution, 1);
    this.friction = g(this.friction, 1);
    this.staticFriction = g(this.staticFriction, 1);
    this.rollingFriction = g(this.rollingFriction, 1);
    this.spinningFriction = g(this.spinningFriction, 1);
    this.materialGiven = g(this.materialGiven, 1);
    this.isStatic = g(this.isStatic, 1);
    this.asleep = g(this.asleep, 1);
    this.shape = g(this.shape, 1);
    this.capacity = c;
  }

  /** Adds a body at rest with identity orientation; returns its index. */
  add(name: string, shape: number): number {
    if (this.count === this.capacity) this.grow();
    const i = this.count++;
    this.names[i] = name;
    this.shape[i] = shape;
    this.quat[4 * i + 3] = 1;
    this.materialGiven[i] = MATERIAL_ALL;
    this.staticFriction[i] = NaN;
    return i;
  }
}
