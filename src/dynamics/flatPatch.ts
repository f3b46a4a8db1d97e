/**
 * A flat patch's rows solved together: the impulse at the patch centre and
 * the angular impulse that bring the patch to rest in one 6x6 solve, applied
 * when the answer stays within what the face can give (the friction cone,
 * patchTorque.ts's octagon and spin limit): one-shot (applyFlatStick, the
 * contact passes) or with accumulated totals (applyFlatAccumulated, shock
 * propagation). The conventions are impulse.ts's.
 */
import { J3, applyAngularImpulsePair, applyImpulseAt, kin, pointKinematics, type ImpulseResult, type ImpulseState } from './impulse.ts';
import { norm3, solveDense } from './math.ts';
import { octagonScale, spinFriction, spinLimit, torqueLoad } from './patchTorque.ts';

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
 * the face carries (applyPatchTorque's limits). Returns j_n (and into `out`:
 * sticking, the tangential impulse jt, the torqueLoad of T), or -1 when it is
 * not (the caller falls back to the point impulse and the alternation of
 * torque and friction), FACE_SLIDES when the rest it asks for lies outside
 * the friction cone: the face as a whole slides. Solving the coupled rows at once matters for a tall
 * body on a slope: friction at its foot tips it, the torque that rights it
 * shifts the foot's velocity, and alternating the two (three rounds) left a
 * little rotation every step that tilted a 1 m box on a 20 degree incline by
 * half a degree until its uphill edge lifted.
 */
/**
 * applyFlatStick's answer for a face whose rest would need more friction
 * than mu j_n: it slides, and its friction is the dynamic one (a point of
 * it may still stop where the face's rotation carries it, but the face's
 * total is bounded by mu_d j_n, not mu_s j_n).
 */
export const FACE_SLIDES = -2;

/** With FACE_SLIDES: the normal and tangential impulse (magnitudes) the face's rest asked for. */
export const faceNeed = new Float64Array(2);

export function applyFlatStick(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number,
  target: number, mu: number, extent: Float64Array, out: ImpulseResult,
): number {
  if (!flatSystem(s, b1, b2, at, o, target, extent) || !solveFlat(extent)) return -1;
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const Jx = x6[0]!, Jy = x6[1]!, Jz = x6[2]!, Tx = x6[3]!, Ty = x6[4]!, Tz = x6[5]!;
  const jn = Jx * nx + Jy * ny + Jz * nz;
  if (!(jn > 0)) return -1;
  const jt = norm3(Jx - jn * nx, Jy - jn * ny, Jz - jn * nz);
  if (jt > mu * jn) {
    faceNeed[0] = jn;
    faceNeed[1] = jt;
    return FACE_SLIDES;
  }
  const t1 = Tx * extent[4]! + Ty * extent[5]! + Tz * extent[6]!, t2 = Tx * extent[7]! + Ty * extent[8]! + Tz * extent[9]!;
  if (octagonScale(-t2 / jn, t1 / jn, extent) < 1) return -1;
  const tn = Tx * nx + Ty * ny + Tz * nz;
  if (Math.abs(tn) > spinLimit(mu * jn, extent)) return -1;
  applyFlatImpulse(s, b1, b2);
  out.sticking = true;
  out.jt = jt;
  out.spin = spinFriction(tn, extent);
  out.torqueLoad = torqueLoad(t1, t2, extent);
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
 * the octagon of j_n + spareT and the spin limit of mu j_n + spareS
 * (applyPatchTorque's bounds).
 * Returns -1 when neither is (the caller falls back to the rows one by
 * one), FACE_SLIDES when it is the friction total that is out of bounds
 * (the rows then take the dynamic cone), 1 when applied (`out.sticking` set), 0 when there was nothing to
 * do (the patch at rest to within `tol`, m/s and rad/s: round-off).
 * Solving the rows together brings a face patch to rest in one sweep; the
 * rows one by one converge geometrically, and a box resting on another
 * used every one of shock propagation's sweeps.
 */
export function applyFlatAccumulated(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number,
  close: number, mu: number, extent: Float64Array, acc: Float64Array, o: number, spareF: number, spareT: number, spareS: number, tol: number,
  out: ImpulseResult,
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
  if (solveFlat(extent) && acc[o]! + x6[0]! * nx + x6[1]! * ny + x6[2]! * nz > 0) return applyFlatTotals(s, b1, b2, at, ao, mu, extent, acc, o, spareF, spareT, spareS, out);
  // Pressing would pull: let the normal total go to 0 instead.
  M6.set(M6b);
  x6.set(x6b);
  // rowAlong returns -(un + close); the solve changes un by along6 . x6.
  const behind = rowAlong(0, at, ao + 3, -jn0);
  if (!solveFlat(extent)) return -1;
  let after = -behind;
  for (let c = 0; c < 6; c++) after += along6[c]! * x6[c]!;
  if (after < -tol) return -1;
  return applyFlatTotals(s, b1, b2, at, ao, mu, extent, acc, o, spareF, spareT, spareS, out);
}

/** applyFlatAccumulated's bounds on the totals with x6 = (J, T) added; applies it and returns 1 when they hold, else -1. */
function applyFlatTotals(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, ao: number,
  mu: number, extent: Float64Array, acc: Float64Array, o: number, spareF: number, spareT: number, spareS: number, out: ImpulseResult,
): number {
  const nx = at[ao + 3]!, ny = at[ao + 4]!, nz = at[ao + 5]!;
  const Jx = x6[0]!, Jy = x6[1]!, Jz = x6[2]!, Tx = x6[3]!, Ty = x6[4]!, Tz = x6[5]!;
  const dn = Jx * nx + Jy * ny + Jz * nz;
  const jn = Math.max(acc[o]! + dn, 0);
  const t1 = acc[o + 4]! + Tx * extent[4]! + Ty * extent[5]! + Tz * extent[6]!;
  const t2 = acc[o + 5]! + Tx * extent[7]! + Ty * extent[8]! + Tz * extent[9]!;
  const tn = acc[o + 6]! + Tx * nx + Ty * ny + Tz * nz;
  const tx = acc[o + 1]! + Jx - dn * nx, ty = acc[o + 2]! + Jy - dn * ny, tz = acc[o + 3]! + Jz - dn * nz;
  if (norm3(tx, ty, tz) > mu * jn + spareF) return FACE_SLIDES;
  const jl = jn + spareT;
  if (jl > 0 ? octagonScale(-t2 / jl, t1 / jl, extent) < 1 : t1 !== 0 || t2 !== 0) return -1;
  // A spin is held by friction (of the cone, and what the passes left of it for spin), not by the normal's offset.
  if (Math.abs(tn) > spinLimit(mu * jn + spareS, extent)) return -1;
  applyFlatImpulse(s, b1, b2);
  acc[o] = jn;
  acc[o + 1] = tx; acc[o + 2] = ty; acc[o + 3] = tz;
  acc[o + 4] = t1; acc[o + 5] = t2; acc[o + 6] = tn;
  out.sticking = true;
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
