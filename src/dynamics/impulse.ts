/**
 * The impulse state and what every impulse at a contact shares
 * (docs/ALGORITHM.md 5, seed ch. 7): the arrays an impulse reads and writes
 * (ImpulseState), a pair's material, the result an impulse reports to its
 * caller (ImpulseResult), the kinematics at a contact point (lever arms,
 * relative velocity, collision matrix), and applying a linear or angular
 * impulse to a body or a pair. The impulses themselves live in files of
 * their own: contactImpulse.ts (the seed's point impulse with friction,
 * rolling friction, restitution at the surface), rowImpulse.ts (one row at
 * a point: accumulated normal and tangential rows, static friction alone),
 * patchTorque.ts (the torque a flat patch holds), flatPatch.ts (a flat
 * patch's rows solved together) and pseudoImpulse.ts (position correction).
 *
 * Body 1 owns the sample point; body 2's SDF was hit, so the normal N points
 * out of body 2 toward body 1 and u_rel = u1 - u2 approaches when u_rel.N < 0.
 * A body with invMass 0 (static, or frozen by shock propagation) contributes
 * K = 0 and is not changed.
 *
 * Points, normals, lever arms and impulses travel in arrays, not as
 * arguments: a call the optimiser does not inline boxes every
 * floating-point argument on the heap, and most of these are too long to
 * inline. A contact *site* is six numbers at[o..o+6): the point p, then the
 * normal N (a patch's layout, patches.ts). The scratch arrays below are
 * shared by the impulse files: a function leaves the lever arms in `kin`
 * for the impulse it then applies from J3.
 */
import { addCollisionMatrix, relativePointVelocity } from './math.ts';

/** The state the impulse reads and writes; the world owns these arrays. */
export interface ImpulseState {
  /** Centres of mass used for the lever arms (the predicted ones). */
  centre: Float64Array;
  vel: Float64Array;
  angVel: Float64Array;
  /** Effective inverse mass (0 for static/frozen). */
  invMass: Float64Array;
  /** World inverse inertia, 9 per body (zero for static/frozen). */
  invInertiaW: Float64Array;
}

export interface Material {
  restitution: number;
  /** Dynamic friction mu_d: the cone a sliding contact's friction lies on. */
  friction: number;
  /**
   * Static friction mu_s (>= friction when the scene gives both): a contact
   * sticks while the impulse that holds it fits in this cone; one that needs
   * more slides, with friction.
   */
  staticFriction: number;
  rolling: number;
  spinning: number;
}

/**
 * What an impulse reports besides its return value, into an object the
 * caller owns and passes in (no allocation per call): whether the contact
 * stuck, the size of its tangential (friction) impulse and, for a flat
 * patch solved whole, the normal impulse its torque needed (torqueLoad) and
 * the friction its spin used (spin: spinFriction).
 * A call writes only the fields its own doc names, and only in the cases
 * that doc names; the others keep what the last call left.
 */
export interface ImpulseResult {
  sticking: boolean;
  jt: number;
  torqueLoad: number;
  spin: number;
}

/** The collision matrix K of the lever arms in `kin` (collisionMatrix). */
export const K = new Float64Array(9);
/** Scratch of pointKinematics (and applyPseudoImpulse, with pseudo velocities): r1 (3), r2 (3), u_rel (3). */
export const kin = new Float64Array(9);
/** The impulse (or angular impulse) to apply: applyImpulsePair, applyAngularImpulsePair. */
export const J3 = new Float64Array(3);

/**
 * Lever arms r1 = p - c1, r2 = p - c2 and the relative velocity
 * u_rel = (v1 + w1 x r1) - (v2 + w2 x r2) at the site's point, into `kin`.
 */
export function pointKinematics(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number): void {
  const c = s.centre;
  const px = at[o]!, py = at[o + 1]!, pz = at[o + 2]!;
  const i1 = 3 * b1, i2 = 3 * b2;
  kin[0] = px - c[i1]!; kin[1] = py - c[i1 + 1]!; kin[2] = pz - c[i1 + 2]!;
  kin[3] = px - c[i2]!; kin[4] = py - c[i2 + 1]!; kin[5] = pz - c[i2 + 2]!;
  relativePointVelocity(s.vel, s.angVel, b1, b2, kin, 0, kin, 6);
}

/** K = the two bodies' collision matrices at the lever arms in `kin` (static or frozen bodies add nothing). */
export function collisionMatrix(s: ImpulseState, b1: number, b2: number): void {
  const im = s.invMass, I = s.invInertiaW;
  K.fill(0);
  if (im[b1] !== 0) addCollisionMatrix(im[b1]!, I, 9 * b1, kin, 0, K);
  if (im[b2] !== 0) addCollisionMatrix(im[b2]!, I, 9 * b2, kin, 3, K);
}

/** Relative normal velocity u_rel . N at the site at[o..o+6) (world). */
export function normalVelocity(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number): number {
  pointKinematics(s, b1, b2, at, o);
  return kin[6]! * at[o + 3]! + kin[7]! * at[o + 4]! + kin[8]! * at[o + 5]!;
}

/** The impulse J = J3 at lever arm r1 = kin[0..3) of body 1, -J at r2 = kin[3..6) of body 2 (7.17-7.18). */
export function applyImpulsePair(s: ImpulseState, b1: number, b2: number): void {
  applyImpulseAt(s, b1, kin, 0, J3, 1);
  applyImpulseAt(s, b2, kin, 3, J3, -1);
}

/**
 * v += J/m, w += I^-1 (r x J) for body b, with lever arm r = r[ro..ro+3)
 * and impulse J = f * J[0..3) (with -f, exactly the opposite).
 */
export function applyImpulseAt(s: ImpulseState, b: number, r: Float64Array, ro: number, J: Float64Array, f: number): void {
  const im = s.invMass[b]!;
  if (im === 0) return;
  const rx = r[ro]!, ry = r[ro + 1]!, rz = r[ro + 2]!;
  const Jx = f * J[0]!, Jy = f * J[1]!, Jz = f * J[2]!;
  const v = s.vel, w = s.angVel, I = s.invInertiaW;
  v[3 * b] += Jx * im;
  v[3 * b + 1] += Jy * im;
  v[3 * b + 2] += Jz * im;
  const tx = ry * Jz - rz * Jy, ty = rz * Jx - rx * Jz, tz = rx * Jy - ry * Jx;
  const o = 9 * b;
  w[3 * b] += I[o]! * tx + I[o + 1]! * ty + I[o + 2]! * tz;
  w[3 * b + 1] += I[o + 3]! * tx + I[o + 4]! * ty + I[o + 5]! * tz;
  w[3 * b + 2] += I[o + 6]! * tx + I[o + 7]! * ty + I[o + 8]! * tz;
}

/** Angular impulse L = f * A[0..3): w1 += I1^-1 L, w2 -= I2^-1 L. */
export function applyAngularImpulsePair(s: ImpulseState, b1: number, b2: number, A: Float64Array, f: number): void {
  const w = s.angVel, I = s.invInertiaW;
  const Lx = f * A[0]!, Ly = f * A[1]!, Lz = f * A[2]!;
  if (s.invMass[b1] !== 0) {
    const o = 9 * b1;
    w[3 * b1] += I[o]! * Lx + I[o + 1]! * Ly + I[o + 2]! * Lz;
    w[3 * b1 + 1] += I[o + 3]! * Lx + I[o + 4]! * Ly + I[o + 5]! * Lz;
    w[3 * b1 + 2] += I[o + 6]! * Lx + I[o + 7]! * Ly + I[o + 8]! * Lz;
  }
  if (s.invMass[b2] !== 0) {
    const o = 9 * b2;
    w[3 * b2] -= I[o]! * Lx + I[o + 1]! * Ly + I[o + 2]! * Lz;
    w[3 * b2 + 1] -= I[o + 3]! * Lx + I[o + 4]! * Ly + I[o + 5]! * Lz;
    w[3 * b2 + 2] -= I[o + 6]! * Lx + I[o + 7]! * Ly + I[o + 8]! * Lz;
  }
}
