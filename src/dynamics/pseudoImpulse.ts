/**
 * The pseudo impulse of position correction (split impulse): a push along
 * the normal applied to pseudo velocities, which move positions only
 * (integrate.ts), with the tangential pseudo velocity it caused stopped
 * within the friction cone. The conventions are impulse.ts's.
 */
import { J3, K, applyImpulsePair, kin, type ImpulseState } from './impulse.ts';
import { addCollisionMatrix, relativePointVelocity } from './math.ts';
import { applyTangentialStick } from './rowImpulse.ts';

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
