/**
 * Impulses along one row at a contact point, alone: the normal row and the
 * tangential rows of an accumulated impulse (running totals per patch,
 * clamped: shock propagation, sequentialSolver.ts), and static friction
 * alone (applyTangentialStick: after a patch torque, and for pseudo
 * impulses). The conventions are impulse.ts's.
 */
import { J3, K, applyImpulsePair, collisionMatrix, kin, pointKinematics, type ImpulseResult, type ImpulseState } from './impulse.ts';
import { norm2, norm3, tangentBasis } from './math.ts';

const tb = new Float64Array(6);

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
 * total acc[o .. o+3) and the total kept within |J_t| <= maxJt (the static
 * friction cone of the current normal total); a total that needs more slides
 * and is cut to |J_t| = slideJt (the dynamic cone, at most maxJt). Returns the size of the change, and
 * into `out.sticking` whether the total stayed inside the cone (left as it
 * was when neither body can move or the tangent block is singular).
 */
export function applyTangentialAccumulated(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number, maxJt: number, acc: Float64Array, o: number,
  out: ImpulseResult, slideJt = maxJt,
): number {
  if (!stickingTangent(s, b1, b2, at, ao)) return 0;
  const ax = tb[0]!, ay = tb[1]!, az = tb[2]!, bx = tb[3]!, by = tb[4]!, bz = tb[5]!;
  const da = stick[0]!, db = stick[1]!;
  // The running total in world coordinates, projected on this tangent plane.
  const ox = acc[o]!, oy = acc[o + 1]!, oz = acc[o + 2]!;
  let ja = ox * ax + oy * ay + oz * az + da, jb = ox * bx + oy * by + oz * bz + db;
  const jl = norm2(ja, jb);
  const lim = Math.max(maxJt, 0);
  out.sticking = jl <= lim;
  if (jl > lim) {
    // Sliding: the total on the dynamic cone.
    const slide = Math.max(Math.min(slideJt, lim), 0);
    const f = jl > 0 ? slide / jl : 0;
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
