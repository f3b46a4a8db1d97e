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
import { growColumns, sizeColumns } from '../util/growable.ts';

/** BodyStore.materialGiven bits: the property was given for the body, not left at the format's default. */
export const MATERIAL_RESTITUTION = 1;
export const MATERIAL_FRICTION = 2;
export const MATERIAL_ROLLING = 4;
export const MATERIAL_SPINNING = 8;
export const MATERIAL_STATIC = 16;
export const MATERIAL_ALL = 31;

/** A body's columns (the layout in the file comment above). */
const BODY_COLUMNS = {
  pos: 3, quat: 4, vel: 3, angVel: 3, invMass: 1, mass: 1, invInertia: 9, restitution: 1, friction: 1, staticFriction: 1,
  rollingFriction: 1, spinningFriction: 1, materialGiven: 1, isStatic: 1, asleep: 1, shape: 1,
} as const;

/** Body state as a structure of arrays, indexed by body (layout in the file comment above). */
export class BodyStore {
  count = 0;
  capacity: number;
  pos = new Float64Array(0);
  quat = new Float64Array(0);
  vel = new Float64Array(0);
  angVel = new Float64Array(0);
  invMass = new Float64Array(0);
  mass = new Float64Array(0);
  invInertia = new Float64Array(0);
  restitution = new Float64Array(0);
  /** Dynamic (sliding) friction coefficient mu_d. */
  friction = new Float64Array(0);
  /**
   * Static (sticking) friction coefficient mu_s; NaN (what add() sets) means
   * "the same as friction" (staticFrictionOf).
   */
  staticFriction = new Float64Array(0);
  rollingFriction = new Float64Array(0);
  spinningFriction = new Float64Array(0);
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
  materialGiven = new Uint8Array(0);
  isStatic = new Uint8Array(0);
  /** 1 while the body sleeps (no queries, no solve; woken by contact, joints, edits). */
  asleep = new Uint8Array(0);
  shape = new Int32Array(0);
  names: string[] = [];

  constructor(capacity = 16) {
    this.capacity = capacity;
    sizeColumns(this, BODY_COLUMNS, capacity);
  }

  private grow(): void {
    this.capacity *= 2;
    growColumns(this, BODY_COLUMNS, this.capacity);
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
