/**
 * The impulse at one contact point (docs/ALGORITHM.md 5, seed ch. 7): frictionless,
 * sticking (static friction cone) or sliding, then rolling and spinning
 * friction for sticking contacts.
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
 * normal N (a patch's layout, patches.ts).
 */
import { addCollisionMatrix, invert3, norm2, norm3, relativePointVelocity, solveDense, tangentBasis } from './math.ts';

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
  friction: number;
  rolling: number;
  spinning: number;
}

/** What the last applyContactImpulse did: whether it stuck, and its tangential impulse. */
export const lastImpulse = { sticking: false, jt: 0, torqueLoad: 0 };

const K = new Float64Array(9);
const Kinv = new Float64Array(9);
const L = new Float64Array(9);
const Linv = new Float64Array(9);
const tb = new Float64Array(6);

/** Scratch of pointKinematics (and applyPseudoImpulse, with pseudo velocities): r1 (3), r2 (3), u_rel (3). */
const kin = new Float64Array(9);
/** The impulse (or angular impulse) to apply: applyImpulsePair, applyAngularImpulsePair. */
const J3 = new Float64Array(3);

/**
 * Lever arms r1 = p - c1, r2 = p - c2 and the relative velocity
 * u_rel = (v1 + w1 x r1) - (v2 + w2 x r2) at the site's point, into `kin`.
 */
function pointKinematics(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number): void {
  const c = s.centre;
  const px = at[o]!, py = at[o + 1]!, pz = at[o + 2]!;
  const i1 = 3 * b1, i2 = 3 * b2;
  kin[0] = px - c[i1]!; kin[1] = py - c[i1 + 1]!; kin[2] = pz - c[i1 + 2]!;
  kin[3] = px - c[i2]!; kin[4] = py - c[i2 + 1]!; kin[5] = pz - c[i2 + 2]!;
  relativePointVelocity(s.vel, s.angVel, b1, b2, kin, 0, kin, 6);
}

/** K = the two bodies' collision matrices at the lever arms in `kin` (static or frozen bodies add nothing). */
function collisionMatrix(s: ImpulseState, b1: number, b2: number): void {
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

/**
 * The restitution a collision-phase impulse takes so that a pair bounces with
 * `e` where its surfaces meet, not where the step found it. The collision
 * phase resolves a pair at the start of the step in which its prediction
 * first penetrates, when it may still be `gap` apart (up to a step's
 * approach); reversing the approach there with `e` loses only `(1 - e^2)` of
 * the kinetic energy it has at that height, not of what it would have at
 * the surface after falling the gap, so a box of restitution 0.5 dropped
 * 0.5 m at 100 Hz came back to 0.29 of the height instead of 0.25. With `an`
 * the relative acceleration that closes the pair (gravity along -N on the
 * body that falls, 0 between two bodies that fall together), the approach
 * at the surface is `u^2 + 2 an gap`, `e` of it bounces back, and rising
 * the gap again leaves `e^2 u^2 - (1 - e^2) 2 an gap`: the speed returned
 * here as a fraction of `-un`. Restitution 0 and 1 are unchanged (0 stops
 * the approach, 1 keeps the energy wherever it reverses), as is a pair
 * already touching, and an approach no faster than one step's gravity
 * (`an dt`): that is a resting contact's leftover, whose gap is what the
 * position pass left, not a fall; taking it as one moved settled stacks (a
 * cube resting 0.3 m off-centre on another slid 0.2 mm in its first steps).
 */
export function surfaceRestitution(e: number, un: number, gap: number, an: number, dt: number): number {
  if (!(e > 0 && e < 1) || !(gap > 0) || an === 0 || !(un < -Math.abs(an) * dt)) return e;
  // At most what the step closes (a first-order gap may overstate it).
  const d = Math.min(gap, (Math.max(an, 0) * dt - un) * dt);
  if (!(un * un + 2 * an * d >= 0)) return e;
  const back = e * e * un * un - (1 - e * e) * 2 * an * d;
  return back > 0 ? Math.sqrt(back) / -un : 0;
}

/**
 * Applies the impulse for restitution `eps` at the site at[o..o+6) (point p,
 * normal N) if the point approaches (u_rel.N < 0). Returns the normal
 * impulse magnitude j_n (0 when nothing was applied).
 */
export function applyContactImpulse(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number,
  eps: number, m: Material, close = 0,
): number {
  const im = s.invMass;
  if (im[b1] === 0 && im[b2] === 0) return 0;
  pointKinematics(s, b1, b2, at, o);
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const ux = kin[6]!, uy = kin[7]!, uz = kin[8]!;
  const un = ux * nx + uy * ny + uz * nz;
  // Target normal velocity: -eps u_n (restitution; a negative eps, the
  // contact passes' ramp, stops the approach), measured from -close, the
  // approach speed that just closes the pair's present gap this step.
  if (!(un < -close)) return 0;
  const target = Math.max(-eps * (un + close), 0) - close;
  const dun = target - un;

  collisionMatrix(s, b1, b2);

  const mu = m.friction;
  const KNx = K[0]! * nx + K[1]! * ny + K[2]! * nz;
  const KNy = K[3]! * nx + K[4]! * ny + K[5]! * nz;
  const KNz = K[6]! * nx + K[7]! * ny + K[8]! * nz;
  const nKn = nx * KNx + ny * KNy + nz * KNz;
  if (!(nKn > 0)) return 0;
  // Frictionless (7.15-7.16), unless friction below finds its impulse.
  let jn = dun / nKn;
  let Jx = jn * nx, Jy = jn * ny, Jz = jn * nz;
  let sticking = false;
  if (mu > 0 && invert3(K, Kinv)) {
    // Sticking: u_rel' = -eps u_n N (7.20), i.e. (target - u_n) N - u_t.
    const dx = (dun + un) * nx - ux, dy = (dun + un) * ny - uy, dz = (dun + un) * nz - uz;
    const sx = Kinv[0]! * dx + Kinv[1]! * dy + Kinv[2]! * dz;
    const sy = Kinv[3]! * dx + Kinv[4]! * dy + Kinv[5]! * dz;
    const sz = Kinv[6]! * dx + Kinv[7]! * dy + Kinv[8]! * dz;
    const sn = sx * nx + sy * ny + sz * nz;
    const tx = sx - sn * nx, ty = sy - sn * ny, tz = sz - sn * nz;
    const jt = norm3(tx, ty, tz);
    if (sn > 0 && jt <= mu * sn) {
      sticking = true;
      jn = sn;
      Jx = sx;
      Jy = sy;
      Jz = sz;
    } else {
      // Sliding (7.25-7.26): friction opposes the tangential velocity.
      let Tx = ux - un * nx, Ty = uy - un * ny, Tz = uz - un * nz;
      let tl = norm3(Tx, Ty, Tz);
      if (tl < 1e-12 && jt > 0) {
        // No tangential motion yet, but sticking needed more than the cone:
        // the friction impulse would point along -T, so take T from it.
        Tx = -tx;
        Ty = -ty;
        Tz = -tz;
        tl = jt;
      }
      if (tl > 0) {
        Tx /= tl;
        Ty /= tl;
        Tz /= tl;
        const ax = nx - mu * Tx, ay = ny - mu * Ty, az = nz - mu * Tz;
        const den = KNx * ax + KNy * ay + KNz * az; // N^T K (N - mu T), K symmetric
        if (den > 1e-12 * nKn) {
          jn = dun / den;
          Jx = jn * ax;
          Jy = jn * ay;
          Jz = jn * az;
        }
      }
    }
  }

  J3[0] = Jx; J3[1] = Jy; J3[2] = Jz;
  applyImpulsePair(s, b1, b2);
  if (sticking && (m.rolling > 0 || m.spinning > 0)) applyRollingFriction(s, b1, b2, at, o, jn, m);
  lastImpulse.sticking = sticking;
  lastImpulse.jt = norm3(Jx - jn * nx, Jy - jn * ny, Jz - jn * nz);
  return jn;
}

/**
 * A pseudo impulse (split impulse, position correction): raises the relative
 * pseudo normal velocity at p to at least `target` with an impulse along N,
 * applied to the pseudo velocities pv, pw (3 per body) with the solver's
 * masses, then stops the tangential pseudo velocity it caused within the
 * friction cone (mu), as static friction does for real velocities: a patch
 * normal tilted by the distance field's rounding at a face's edge must not
 * walk a resting body sideways a hair every step. Pseudo velocities move
 * positions only (integrate.ts).
 */
export function applyPseudoImpulse(
  s: ImpulseState, pv: Float64Array, pw: Float64Array, b1: number, b2: number,
  at: Float64Array, o: number, target: number, mu: number,
): void {
  const im = s.invMass, I = s.invInertiaW, c = s.centre;
  const im1 = im[b1]!, im2 = im[b2]!;
  if (im1 === 0 && im2 === 0) return;
  const px = at[o]!, py = at[o + 1]!, pz = at[o + 2]!, nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  kin[0] = px - c[3 * b1]!; kin[1] = py - c[3 * b1 + 1]!; kin[2] = pz - c[3 * b1 + 2]!;
  kin[3] = px - c[3 * b2]!; kin[4] = py - c[3 * b2 + 1]!; kin[5] = pz - c[3 * b2 + 2]!;
  relativePointVelocity(pv, pw, b1, b2, kin, 0, kin, 6);
  const un = kin[6]! * nx + kin[7]! * ny + kin[8]! * nz;
  if (!(un < target)) return;
  K.fill(0);
  if (im1 !== 0) addCollisionMatrix(im1, I, 9 * b1, kin, 0, K);
  if (im2 !== 0) addCollisionMatrix(im2, I, 9 * b2, kin, 3, K);
  const nKn = nx * (K[0]! * nx + K[1]! * ny + K[2]! * nz) + ny * (K[3]! * nx + K[4]! * ny + K[5]! * nz) + nz * (K[6]! * nx + K[7]! * ny + K[8]! * nz);
  if (!(nKn > 0)) return;
  const j = (target - un) / nKn;
  const ps: ImpulseState = pseudoState;
  ps.centre = c;
  ps.invMass = im;
  ps.invInertiaW = I;
  ps.vel = pv;
  ps.angVel = pw;
  J3[0] = j * nx; J3[1] = j * ny; J3[2] = j * nz;
  applyImpulsePair(ps, b1, b2);
  if (mu > 0) applyTangentialStick(ps, b1, b2, at, o, mu * j);
}
const pseudoState: ImpulseState = {
  centre: new Float64Array(0), vel: new Float64Array(0), angVel: new Float64Array(0), invMass: new Float64Array(0), invInertiaW: new Float64Array(0),
};

/** The impulse J = J3 at lever arm r1 = kin[0..3) of body 1, -J at r2 = kin[3..6) of body 2 (7.17-7.18). */
function applyImpulsePair(s: ImpulseState, b1: number, b2: number): void {
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

/**
 * Rolling and spinning friction (7.27-7.28): shrink the spin part of the
 * relative angular velocity by mu_spin * j_n and the rolling part by
 * mu_roll * j_n (clamped at zero, never reversed), through the angular
 * impulse L_T^-1 (w' - w) with L_T = I1^-1 + I2^-1.
 */
export function applyRollingFriction(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number, jn: number, m: Material): void {
  const w = s.angVel, I = s.invInertiaW;
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const wx = w[3 * b1]! - w[3 * b2]!, wy = w[3 * b1 + 1]! - w[3 * b2 + 1]!, wz = w[3 * b1 + 2]! - w[3 * b2 + 2]!;
  const wn = wx * nx + wy * ny + wz * nz;
  const snx = wn * nx, sny = wn * ny, snz = wn * nz;
  const rx = wx - snx, ry = wy - sny, rz = wz - snz;
  const sMag = Math.abs(wn);
  const rMag = norm3(rx, ry, rz);
  const sScale = sMag > 0 ? Math.max(0, sMag - m.spinning * jn) / sMag : 1;
  const rScale = rMag > 0 ? Math.max(0, rMag - m.rolling * jn) / rMag : 1;
  const dx = (sScale - 1) * snx + (rScale - 1) * rx;
  const dy = (sScale - 1) * sny + (rScale - 1) * ry;
  const dz = (sScale - 1) * snz + (rScale - 1) * rz;
  if (dx === 0 && dy === 0 && dz === 0) return;
  L.fill(0);
  if (s.invMass[b1] !== 0) for (let k = 0; k < 9; k++) L[k] += I[9 * b1 + k]!;
  if (s.invMass[b2] !== 0) for (let k = 0; k < 9; k++) L[k] += I[9 * b2 + k]!;
  if (!invert3(L, Linv)) return;
  J3[0] = Linv[0]! * dx + Linv[1]! * dy + Linv[2]! * dz;
  J3[1] = Linv[3]! * dx + Linv[4]! * dy + Linv[5]! * dz;
  J3[2] = Linv[6]! * dx + Linv[7]! * dy + Linv[8]! * dz;
  applyAngularImpulsePair(s, b1, b2, J3, 1);
}

/**
 * The factor (0..1) that brings the offset (s1, s2) of a patch's normal force
 * from its centre (along e1, e2) inside the octagon of the extent's four
 * slabs (the centre is inside it: every bound has lo <= 0 <= hi).
 */
function octagonScale(s1: number, s2: number, ext: Float64Array): number {
  let f = 1;
  f = slabScale(f, s1, ext[0]!, ext[1]!);
  f = slabScale(f, s2, ext[2]!, ext[3]!);
  f = slabScale(f, Math.SQRT1_2 * (s1 + s2), ext[10]!, ext[11]!);
  f = slabScale(f, Math.SQRT1_2 * (s1 - s2), ext[12]!, ext[13]!);
  return f;
}

/**
 * The normal impulse a patch must carry to hold the angular impulse (t1, t2)
 * about (e1, e2) within its octagon (the smallest j_n for which
 * octagonScale(-t2 / j_n, t1 / j_n) is 1); Infinity where the face has no
 * extent that way.
 */
export function torqueLoad(t1: number, t2: number, ext: Float64Array): number {
  const s1 = -t2, s2 = t1;
  let need = 0;
  need = slabLoad(need, s1, ext[0]!, ext[1]!);
  need = slabLoad(need, s2, ext[2]!, ext[3]!);
  need = slabLoad(need, Math.SQRT1_2 * (s1 + s2), ext[10]!, ext[11]!);
  need = slabLoad(need, Math.SQRT1_2 * (s1 - s2), ext[12]!, ext[13]!);
  return need;
}

function slabLoad(need: number, v: number, lo: number, hi: number): number {
  if (v > 0) return Math.max(need, hi > 0 ? v / hi : Infinity);
  if (v < 0) return Math.max(need, lo < 0 ? v / lo : Infinity);
  return need;
}

function slabScale(f: number, v: number, lo: number, hi: number): number {
  if (v > hi) return Math.min(f, Math.max(hi, 0) / v);
  if (v < lo) return Math.min(f, Math.min(lo, 0) / v);
  return f;
}

/** The spin (angular impulse about N) a patch pressed with j_n holds: mu j_n times its spin radius (ext[14]: half a face's diagonal). */
function spinLimit(mu: number, jn: number, ext: Float64Array): number {
  return mu * jn * ext[14]!;
}

function clamp(x: number, lo: number, hi: number): number {
  return x > hi ? hi : x < lo ? lo : x;
}

/**
 * The torque a flat contact patch can hold (not in the seed; see
 * patches.ts): after the normal impulse j_n at the patch centre, stop the
 * relative rotation of the two bodies, within what the patch can carry. The
 * normal force may act anywhere on the face, so body 1 can get the angular
 * impulse s x (j_n N) for any offset s of the face from the centre: about e1
 * (tipping across e2) between j_n lo2 and j_n hi2, about e2 between
 * -j_n hi1 and -j_n lo1 (e1 x e2 = N), and about the normal (spin) up to
 * mu j_n times half the face's diagonal. A face whose extent is nil along a
 * direction (an edge, a curved surface) rolls freely that way. Equal and
 * opposite on the two bodies: momentum is kept.
 * extent = [lo1, hi1, lo2, hi2, e1 (3), e2 (3), loA, hiA, loB, hiB, r_s]
 * (PatchBuilder.spread): the offset must lie in the octagon of the four
 * slabs, and the spin stays within mu j_n r_s. A curved patch resting on
 * points around its centre has no extent and only r_s: it holds a spin.
 *
 * `acc` holds what earlier calls for the same patch in the same pass have
 * applied (about e1, e2, N; zero it before the first): the limits bound
 * their sum, so alternating this with friction (sequentialSolver.ts) never
 * lets a patch hold more than its face can.
 */
export function applyPatchTorque(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number, jn: number, extent: Float64Array, mu: number, acc: Float64Array): void {
  const w = s.angVel, I = s.invInertiaW;
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const wx = w[3 * b1]! - w[3 * b2]!, wy = w[3 * b1 + 1]! - w[3 * b2 + 1]!, wz = w[3 * b1 + 2]! - w[3 * b2 + 2]!;
  L.fill(0);
  if (s.invMass[b1] !== 0) for (let k = 0; k < 9; k++) L[k] += I[9 * b1 + k]!;
  if (s.invMass[b2] !== 0) for (let k = 0; k < 9; k++) L[k] += I[9 * b2 + k]!;
  if (!invert3(L, Linv)) return;
  // Angular impulse that would stop the relative rotation.
  const Lx = -(Linv[0]! * wx + Linv[1]! * wy + Linv[2]! * wz);
  const Ly = -(Linv[3]! * wx + Linv[4]! * wy + Linv[5]! * wz);
  const Lz = -(Linv[6]! * wx + Linv[7]! * wy + Linv[8]! * wz);
  const lo1 = extent[0]!, hi1 = extent[1]!, lo2 = extent[2]!, hi2 = extent[3]!;
  const e1x = extent[4]!, e1y = extent[5]!, e1z = extent[6]!;
  const e2x = extent[7]!, e2y = extent[8]!, e2z = extent[9]!;
  const spin = spinLimit(mu, jn, extent);
  let t1 = clamp(acc[0]! + Lx * e1x + Ly * e1y + Lz * e1z, jn * lo2, jn * hi2);
  let t2 = clamp(acc[1]! + Lx * e2x + Ly * e2y + Lz * e2z, -jn * hi1, -jn * lo1);
  // Within the octagon too: the offset of the normal force is s = (-t2, t1) / j_n.
  if (jn > 0) {
    const f = octagonScale(-t2 / jn, t1 / jn, extent);
    t1 *= f;
    t2 *= f;
  }
  const tn = clamp(acc[2]! + Lx * nx + Ly * ny + Lz * nz, -spin, spin);
  const c1 = t1 - acc[0]!, c2 = t2 - acc[1]!, cn = tn - acc[2]!;
  acc[0] = t1; acc[1] = t2; acc[2] = tn;
  J3[0] = c1 * e1x + c2 * e2x + cn * nx; J3[1] = c1 * e1y + c2 * e2y + cn * ny; J3[2] = c1 * e1z + c2 * e2z + cn * nz;
  applyAngularImpulsePair(s, b1, b2, J3, 1);
}

/**
 * The normal row of an accumulated (projected Gauss-Seidel) impulse at point
 * p: the change of the normal impulse that brings the relative normal
 * velocity to 0, with the patch's running total `acc[0]` kept >= 0. Unlike
 * applyContactImpulse it can take back part of what it gave earlier in the
 * same sweep series, so a body resting on several patches is never stopped
 * harder at one than the rest of them need (which lifts the other side and
 * rocks the body). Returns the change applied.
 */
export function applyNormalAccumulated(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number, acc: Float64Array, o: number, close = 0,
): number {
  const im = s.invMass;
  if (im[b1] === 0 && im[b2] === 0) return 0;
  pointKinematics(s, b1, b2, at, ao);
  const nx = at[ao + 3]!, ny = at[ao + 4]!, nz = at[ao + 5]!;
  const un = kin[6]! * nx + kin[7]! * ny + kin[8]! * nz;
  collisionMatrix(s, b1, b2);
  const nKn = nx * (K[0]! * nx + K[1]! * ny + K[2]! * nz) + ny * (K[3]! * nx + K[4]! * ny + K[5]! * nz) + nz * (K[6]! * nx + K[7]! * ny + K[8]! * nz);
  if (!(nKn > 0)) return 0;
  const old = acc[o]!;
  // Target normal velocity -close (the approach that just closes the gap).
  const total = Math.max(old - (un + close) / nKn, 0);
  const dj = total - old;
  if (dj === 0) return 0;
  acc[o] = total;
  J3[0] = dj * nx; J3[1] = dj * ny; J3[2] = dj * nz;
  applyImpulsePair(s, b1, b2);
  return dj;
}

/** The tangential impulse of stickingTangent, in the basis tb: [along tb[0..3), along tb[3..6)]. */
const stick = new Float64Array(2);

/**
 * The tangential impulse that stops the tangential relative velocity at
 * point p (normal N), solved in the tangent plane (P K P^T j = -P u), into
 * `stick`; leaves the lever arms in `kin` and the tangent basis in `tb`.
 * False when neither body can move or the tangent block is singular.
 */
function stickingTangent(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number): boolean {
  const im = s.invMass;
  if (im[b1] === 0 && im[b2] === 0) return false;
  pointKinematics(s, b1, b2, at, o);
  const ux = kin[6]!, uy = kin[7]!, uz = kin[8]!;
  tangentBasis(at[o + 3]!, at[o + 4]!, at[o + 5]!, tb);
  const ax = tb[0]!, ay = tb[1]!, az = tb[2]!, bx = tb[3]!, by = tb[4]!, bz = tb[5]!;
  collisionMatrix(s, b1, b2);
  const Kax = K[0]! * ax + K[1]! * ay + K[2]! * az, Kay = K[3]! * ax + K[4]! * ay + K[5]! * az, Kaz = K[6]! * ax + K[7]! * ay + K[8]! * az;
  const Kbx = K[0]! * bx + K[1]! * by + K[2]! * bz, Kby = K[3]! * bx + K[4]! * by + K[5]! * bz, Kbz = K[6]! * bx + K[7]! * by + K[8]! * bz;
  const a11 = ax * Kax + ay * Kay + az * Kaz, a12 = ax * Kbx + ay * Kby + az * Kbz, a22 = bx * Kbx + by * Kby + bz * Kbz;
  const det = a11 * a22 - a12 * a12;
  if (!(det > 1e-30 * (a11 + a22) * (a11 + a22))) return false;
  const ra = -(ux * ax + uy * ay + uz * az), rb = -(ux * bx + uy * by + uz * bz);
  stick[0] = (a22 * ra - a12 * rb) / det;
  stick[1] = (a11 * rb - a12 * ra) / det;
  return true;
}

/**
 * The friction rows of an accumulated impulse at point p: the tangential
 * impulse that stops the tangential relative velocity there (solved in the
 * tangent plane, as applyTangentialStick), added to the patch's running
 * total acc[o .. o+3) and the total kept within |J_t| <= maxJt (the friction
 * cone of the current normal total). Returns the size of the change.
 */
export function applyTangentialAccumulated(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number, maxJt: number, acc: Float64Array, o: number,
): number {
  if (!stickingTangent(s, b1, b2, at, ao)) return 0;
  const ax = tb[0]!, ay = tb[1]!, az = tb[2]!, bx = tb[3]!, by = tb[4]!, bz = tb[5]!;
  const da = stick[0]!, db = stick[1]!;
  // The running total in world coordinates, projected on this tangent plane.
  const ox = acc[o]!, oy = acc[o + 1]!, oz = acc[o + 2]!;
  let ja = ox * ax + oy * ay + oz * az + da, jb = ox * bx + oy * by + oz * bz + db;
  const jl = norm2(ja, jb);
  const lim = Math.max(maxJt, 0);
  lastImpulse.sticking = jl <= lim;
  if (jl > lim) {
    const f = jl > 0 ? lim / jl : 0;
    ja *= f;
    jb *= f;
  }
  const tx = ja * ax + jb * bx, ty = ja * ay + jb * by, tz = ja * az + jb * bz;
  const Jx = tx - ox, Jy = ty - oy, Jz = tz - oz;
  acc[o] = tx; acc[o + 1] = ty; acc[o + 2] = tz;
  if (Jx === 0 && Jy === 0 && Jz === 0) return 0;
  J3[0] = Jx; J3[1] = Jy; J3[2] = Jz;
  applyImpulsePair(s, b1, b2);
  return norm3(Jx, Jy, Jz);
}

/**
 * Static friction alone at point p: the tangential impulse (in the plane
 * normal to N) that stops the tangential relative velocity there, solved in
 * the tangent plane (P K P^T j = -P u), limited to |J| <= maxJt. Used after a
 * patch torque, which moves the patch centroid's velocity a little.
 */
export function applyTangentialStick(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number, maxJt: number): number {
  if (!(maxJt > 0) || !stickingTangent(s, b1, b2, at, o)) return 0;
  const ax = tb[0]!, ay = tb[1]!, az = tb[2]!, bx = tb[3]!, by = tb[4]!, bz = tb[5]!;
  let ja = stick[0]!, jb = stick[1]!;
  const jl = norm2(ja, jb);
  if (jl > maxJt) {
    ja *= maxJt / jl;
    jb *= maxJt / jl;
  }
  J3[0] = ja * ax + jb * bx; J3[1] = ja * ay + jb * by; J3[2] = ja * az + jb * bz;
  applyImpulsePair(s, b1, b2);
  return norm2(ja, jb);
}

/** Scratch of applyFlatStick: the 6x6 system (row-major) and its right-hand side / solution. */
const M6 = new Float64Array(36);
const x6 = new Float64Array(6);
/** Scratch of rowAlong: the axis, and the row it takes off. */
const axis3 = new Float64Array(3);
const along6 = new Float64Array(6);
/** applyFlatAccumulated's copy of the system, for its second solve. */
const M6b = new Float64Array(36);
const x6b = new Float64Array(6);

/**
 * A flat patch that sticks, in one solve: the impulse J at the patch centre
 * p and the angular impulse T (equal and opposite on the two bodies) that
 * together bring the relative velocity at p to `target` along N (0 across
 * it) and stop the relative rotation, the 6x6 system
 *
 *   [ K    -B ] [J]   [target N - u]        B = [r1]x I1^-1 + [r2]x I2^-1
 *   [ -B^T  L ] [T] = [ -Omega     ]        L = I1^-1 + I2^-1
 *
 * (K the collision matrix at p). Applied only when the answer is one a flat
 * face can give: j_n = J.N > 0, J inside the friction cone, T within what
 * the face carries (applyPatchTorque's limits). Returns j_n, or -1 when it is
 * not (the caller falls back to the point impulse and the alternation of
 * torque and friction). Solving the coupled rows at once matters for a tall
 * body on a slope: friction at its foot tips it, the torque that rights it
 * shifts the foot's velocity, and alternating the two (three rounds) left a
 * little rotation every step that tilted a 1 m box on a 20 degree incline by
 * half a degree until its uphill edge lifted.
 */
export function applyFlatStick(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number,
  target: number, mu: number, extent: Float64Array,
): number {
  if (!flatSystem(s, b1, b2, at, o, target, extent) || !solveFlat(extent)) return -1;
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const Jx = x6[0]!, Jy = x6[1]!, Jz = x6[2]!, Tx = x6[3]!, Ty = x6[4]!, Tz = x6[5]!;
  const jn = Jx * nx + Jy * ny + Jz * nz;
  if (!(jn > 0)) return -1;
  const jt = norm3(Jx - jn * nx, Jy - jn * ny, Jz - jn * nz);
  if (jt > mu * jn) return -1;
  const t1 = Tx * extent[4]! + Ty * extent[5]! + Tz * extent[6]!, t2 = Tx * extent[7]! + Ty * extent[8]! + Tz * extent[9]!;
  if (octagonScale(-t2 / jn, t1 / jn, extent) < 1) return -1;
  if (Math.abs(Tx * nx + Ty * ny + Tz * nz) > spinLimit(mu, jn, extent)) return -1;
  applyFlatImpulse(s, b1, b2);
  lastImpulse.sticking = true;
  lastImpulse.jt = jt;
  lastImpulse.torqueLoad = torqueLoad(t1, t2, extent);
  return jn;
}

/**
 * applyFlatStick's solve with accumulated totals (shock propagation): the
 * change (J, T) that brings a flat patch to rest (no relative velocity
 * across N at p, no relative rotation) and either presses it (relative
 * normal velocity `-close`, j_n = acc[o] + J.N > 0) or, where that would
 * pull, lets it go (j_n = 0, the normal velocity at least `-close`). It is
 * applied when the patch's running totals with it added stay what a flat
 * face can give: the tangential total (acc[o+1..o+4), world) within
 * mu j_n + spareF, the torque total about e1, e2, N (acc[o+4..o+7)) within
 * the octagon and spin limit of j_n + spareT (applyPatchTorque's bounds).
 * Returns -1 when neither is (the caller falls back to the rows one by
 * one), 1 when applied, 0 when there was nothing to do (the patch at rest
 * to within `tol`, m/s and rad/s: round-off). Solving the rows together brings a
 * face patch to rest in one sweep; the rows one by one converge
 * geometrically, and a box resting on another used every one of shock
 * propagation's sweeps.
 */
export function applyFlatAccumulated(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number,
  close: number, mu: number, extent: Float64Array, acc: Float64Array, o: number, spareF: number, spareT: number, tol: number,
): number {
  if (!flatSystem(s, b1, b2, at, ao, -close, extent)) return -1;
  const nx = at[ao + 3]!, ny = at[ao + 4]!, nz = at[ao + 5]!;
  const jn0 = acc[o]!;
  // un + close, and what is left across N and of the relative rotation.
  const rn = -(x6[0]! * nx + x6[1]! * ny + x6[2]! * nz);
  const residual = Math.max(
    norm3(x6[0]! + rn * nx, x6[1]! + rn * ny, x6[2]! + rn * nz),
    Math.abs(x6[3]!), Math.abs(x6[4]!), Math.abs(x6[5]!),
    jn0 > 0 ? Math.abs(rn) : -rn,
  );
  if (residual <= tol) return 0;
  M6b.set(M6);
  x6b.set(x6);
  if (solveFlat(extent) && acc[o]! + x6[0]! * nx + x6[1]! * ny + x6[2]! * nz > 0) return applyFlatTotals(s, b1, b2, at, ao, mu, extent, acc, o, spareF, spareT);
  // Pressing would pull: let the normal total go to 0 instead.
  M6.set(M6b);
  x6.set(x6b);
  // rowAlong returns -(un + close); the solve changes un by along6 . x6.
  const behind = rowAlong(0, at, ao + 3, -jn0);
  if (!solveFlat(extent)) return -1;
  let after = -behind;
  for (let c = 0; c < 6; c++) after += along6[c]! * x6[c]!;
  if (after < -tol) return -1;
  return applyFlatTotals(s, b1, b2, at, ao, mu, extent, acc, o, spareF, spareT);
}

/** applyFlatAccumulated's bounds on the totals with x6 = (J, T) added; applies it and returns 1 when they hold, else -1. */
function applyFlatTotals(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number,
  mu: number, extent: Float64Array, acc: Float64Array, o: number, spareF: number, spareT: number,
): number {
  const nx = at[ao + 3]!, ny = at[ao + 4]!, nz = at[ao + 5]!;
  const Jx = x6[0]!, Jy = x6[1]!, Jz = x6[2]!, Tx = x6[3]!, Ty = x6[4]!, Tz = x6[5]!;
  const dn = Jx * nx + Jy * ny + Jz * nz;
  const jn = Math.max(acc[o]! + dn, 0);
  const t1 = acc[o + 4]! + Tx * extent[4]! + Ty * extent[5]! + Tz * extent[6]!;
  const t2 = acc[o + 5]! + Tx * extent[7]! + Ty * extent[8]! + Tz * extent[9]!;
  const tn = acc[o + 6]! + Tx * nx + Ty * ny + Tz * nz;
  const tx = acc[o + 1]! + Jx - dn * nx, ty = acc[o + 2]! + Jy - dn * ny, tz = acc[o + 3]! + Jz - dn * nz;
  if (norm3(tx, ty, tz) > mu * jn + spareF) return -1;
  const jl = jn + spareT;
  if (jl > 0 ? octagonScale(-t2 / jl, t1 / jl, extent) < 1 : t1 !== 0 || t2 !== 0) return -1;
  if (Math.abs(tn) > spinLimit(mu, jl, extent)) return -1;
  applyFlatImpulse(s, b1, b2);
  acc[o] = jn;
  acc[o + 1] = tx; acc[o + 2] = ty; acc[o + 3] = tz;
  acc[o + 4] = t1; acc[o + 5] = t2; acc[o + 6] = tn;
  lastImpulse.sticking = true;
  return 1;
}

/** The solved (J, T) = x6 of a flat patch: J at the lever arms in `kin`, T equal and opposite. */
function applyFlatImpulse(s: ImpulseState, b1: number, b2: number): void {
  applyImpulseAt(s, b1, kin, 0, x6, 1);
  applyImpulseAt(s, b2, kin, 3, x6, -1);
  J3[0] = x6[3]!; J3[1] = x6[4]!; J3[2] = x6[5]!;
  applyAngularImpulsePair(s, b1, b2, J3, 1);
}

/**
 * Fills M6 and x6 with applyFlatStick's system at the site at[o..o+6) for
 * relative normal velocity `target`, the rotation rows about a free axis of
 * the face replaced (freeRotationRow). Leaves the lever arms in `kin`.
 * False when neither body can move.
 */
function flatSystem(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number, target: number, extent: Float64Array): boolean {
  const im = s.invMass, I = s.invInertiaW, w = s.angVel;
  const im1 = im[b1]!, im2 = im[b2]!;
  if (im1 === 0 && im2 === 0) return false;
  pointKinematics(s, b1, b2, at, o);
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const r1x = kin[0]!, r1y = kin[1]!, r1z = kin[2]!, r2x = kin[3]!, r2y = kin[4]!, r2z = kin[5]!;
  const ux = kin[6]!, uy = kin[7]!, uz = kin[8]!;
  const o1 = 9 * b1, o2 = 9 * b2;
  // Columns: the change of (u, Omega) per unit J along x, y, z, then per unit T.
  for (let c = 0; c < 6; c++) {
    const lin = c < 3;
    const ex = c % 3 === 0 ? 1 : 0, ey = c % 3 === 1 ? 1 : 0, ez = c % 3 === 2 ? 1 : 0;
    // Angular impulse on body 1 (body 2 gets the opposite of its own).
    const a1x = lin ? r1y * ez - r1z * ey : ex, a1y = lin ? r1z * ex - r1x * ez : ey, a1z = lin ? r1x * ey - r1y * ex : ez;
    const a2x = lin ? r2y * ez - r2z * ey : ex, a2y = lin ? r2z * ex - r2x * ez : ey, a2z = lin ? r2x * ey - r2y * ex : ez;
    const w1x = I[o1]! * a1x + I[o1 + 1]! * a1y + I[o1 + 2]! * a1z;
    const w1y = I[o1 + 3]! * a1x + I[o1 + 4]! * a1y + I[o1 + 5]! * a1z;
    const w1z = I[o1 + 6]! * a1x + I[o1 + 7]! * a1y + I[o1 + 8]! * a1z;
    const w2x = -(I[o2]! * a2x + I[o2 + 1]! * a2y + I[o2 + 2]! * a2z);
    const w2y = -(I[o2 + 3]! * a2x + I[o2 + 4]! * a2y + I[o2 + 5]! * a2z);
    const w2z = -(I[o2 + 6]! * a2x + I[o2 + 7]! * a2y + I[o2 + 8]! * a2z);
    const lm = lin ? im1 + im2 : 0;
    // du = dv1 + dw1 x r1 - dv2 - dw2 x r2
    M6[c] = lm * ex + (w1y * r1z - w1z * r1y) - (w2y * r2z - w2z * r2y);
    M6[6 + c] = lm * ey + (w1z * r1x - w1x * r1z) - (w2z * r2x - w2x * r2z);
    M6[12 + c] = lm * ez + (w1x * r1y - w1y * r1x) - (w2x * r2y - w2y * r2x);
    M6[18 + c] = w1x - w2x;
    M6[24 + c] = w1y - w2y;
    M6[30 + c] = w1z - w2z;
  }
  x6[0] = target * nx - ux; x6[1] = target * ny - uy; x6[2] = target * nz - uz;
  x6[3] = -(w[3 * b1]! - w[3 * b2]!); x6[4] = -(w[3 * b1 + 1]! - w[3 * b2 + 1]!); x6[5] = -(w[3 * b1 + 2]! - w[3 * b2 + 2]!);
  // A face with no extent along e2 (a facet of a lying cylinder, curved
  // across e2) holds no torque about e1: it rolls that way. Its rotation
  // row about e1 gives way to T.e1 = 0, and likewise about e2 for no extent
  // along e1. (Stopping all three rotations would ask a rolling cylinder's
  // line of contact to stop its roll: the solve failed, and the fallback
  // alternation of torque and friction ended on friction, which left the
  // cylinder rocking about the fall line at a tenth of its sideways slip.)
  if (extent[2] === 0 && extent[3] === 0) rowAlong(3, extent, 4, 0);
  if (extent[0] === 0 && extent[1] === 0) rowAlong(3, extent, 7, 0);
  return true;
}

/** Solves flatSystem's system in place (x6 = (J, T)); what it leaves about a free axis is round-off, taken off. */
function solveFlat(extent: Float64Array): boolean {
  if (!solveDense(M6, x6, 6)) return false;
  if (extent[2] === 0 && extent[3] === 0) dropAxis(extent, 4);
  if (extent[0] === 0 && extent[1] === 0) dropAxis(extent, 7);
  return true;
}

/** Takes T's component along the unit axis a[o..o+3) off x6. */
function dropAxis(a: Float64Array, o: number): void {
  const ax = a[o]!, ay = a[o + 1]!, az = a[o + 2]!;
  const f = x6[3]! * ax + x6[4]! * ay + x6[5]! * az;
  x6[3] -= f * ax; x6[4] -= f * ay; x6[5] -= f * az;
}

/**
 * In flatSystem's system, replaces the row along the unit axis a =
 * v[vo..vo+3) of the three rows from `base` (0: the velocity at p, 3: the
 * rotation) by "the impulse's component along a (J for base 0, T for base
 * 3) is `value`": the three rows are projected off a (they become those of
 * the plane normal to a, one of them dependent, which the new row replaces:
 * the one with the largest component of a). The row taken off (the velocity
 * change along a per unit of each unknown) is left in along6; returns its
 * right-hand side. With base 3 and value 0 it frees the rotation about a
 * (a face with no extent across a rolls that way).
 */
function rowAlong(base: number, v: Float64Array, vo: number, value: number): number {
  const a = axis3;
  const ax = v[vo]!, ay = v[vo + 1]!, az = v[vo + 2]!;
  a[0] = ax; a[1] = ay; a[2] = az;
  let r = 0;
  for (let k = 1; k < 3; k++) if (Math.abs(a[k]!) > Math.abs(a[r]!)) r = k;
  // Project each row (base + k) off a: row -= a_k (sum_j a_j row_j).
  for (let c = 0; c < 6; c++) {
    const along = ax * M6[6 * base + c]! + ay * M6[6 * (base + 1) + c]! + az * M6[6 * (base + 2) + c]!;
    along6[c] = along;
    for (let k = 0; k < 3; k++) M6[6 * (base + k) + c] -= a[k]! * along;
  }
  const along = ax * x6[base]! + ay * x6[base + 1]! + az * x6[base + 2]!;
  for (let k = 0; k < 3; k++) x6[base + k] -= a[k]! * along;
  for (let c = 0; c < 6; c++) M6[6 * (base + r) + c] = c === base ? ax : c === base + 1 ? ay : c === base + 2 ? az : 0;
  x6[base + r] = value;
  return along;
}

