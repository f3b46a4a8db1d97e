/**
 * The torque a flat contact patch holds (not in the seed; patches.ts): the
 * bounds of a face's extent (the octagon of four slabs an offset of the
 * normal force must lie in, the spin limit), the normal impulse a torque
 * needs (torqueLoad), and the angular impulse that stops a pair's relative
 * rotation within them (applyPatchTorque). flatPatch.ts applies the same
 * bounds to its coupled solve. The conventions are impulse.ts's.
 */
import { J3, applyAngularImpulsePair, type ImpulseState } from './impulse.ts';
import { invert3 } from './math.ts';

const L = new Float64Array(9);
const Linv = new Float64Array(9);

/**
 * The factor (0..1) that brings the offset (s1, s2) of a patch's normal force
 * from its centre (along e1, e2) inside the octagon of the extent's four
 * slabs (the centre is inside it: every bound has lo <= 0 <= hi).
 */
export function octagonScale(s1: number, s2: number, ext: Float64Array): number {
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

/**
 * The spin (angular impulse about N) a patch holds with the friction impulse
 * `friction` (N s; mu j_n, or what is left of it): that times its spin
 * radius (ext[14]: the flat points' mean distance from the centre).
 */
export function spinLimit(friction: number, ext: Float64Array): number {
  return friction * ext[14]!;
}

/** The friction impulse (N s) a spin of angular impulse `tn` about N used (spinLimit's inverse; 0 for a patch without a spin radius). */
export function spinFriction(tn: number, ext: Float64Array): number {
  const r = ext[14]!;
  return r > 0 ? Math.abs(tn) / r : 0;
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
 * the friction impulse `friction` (mu j_n, in shock propagation with the
 * contact passes' spare) times the spin radius r_s. A face whose extent is nil along a
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
export function applyPatchTorque(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number, jn: number, extent: Float64Array, friction: number, acc: Float64Array): void {
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
  const spin = spinLimit(friction, extent);
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
