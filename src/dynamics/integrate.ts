/**
 * Stages "velocityUpdate" and "integrate" (docs/ALGORITHM.md 3, 4.2): the forces
 * of the step (gravity, motors) as velocity changes, and the advance of
 * positions and orientations with the final velocities.
 */
import type { ConstraintSystem } from './constraints.ts';
import { integrateQuat, invert3, mulMat3Vec, quatToMat3, worldInverseInertia } from './math.ts';
import type { StepContext } from './stepContext.ts';

/**
 * v += dt g for every dynamic body, the gyroscopic change of omega, then the
 * motors' torques (constraints).
 *
 * Gyroscopic term (docs/ALGORITHM.md 3; Guendelman 2003 evolves L): with no torque
 * the angular momentum L = I_w(q) omega is constant while I_w = R I0 R^T
 * turns with the body, so omega is not. The update solves, in the body
 * frame, omega' = I_w(q')^-1 L with q' the orientation omega' itself leads to
 * at the end of the step (two fixed-point passes: L changes per step by
 * about 3e-7 of itself at omega dt = 0.01, 3e-4 at 0.1, third order in
 * omega dt), so the positions advance with the end-of-step rate:
 * implicit in omega x I omega, stable at any spin rate (|omega| stays below
 * |L| / I_min), and L is kept to second order per step. A free asymmetric
 * body therefore precesses, and a spin about its intermediate axis flips
 * (the Dzhanibekov effect). A body whose inertia is the same about every
 * axis keeps omega exactly. Contacts and joints then see the rate the body
 * really turns at.
 */
export function velocityUpdate(ctx: StepContext, c: ConstraintSystem | null): void {
  const B = ctx.bodies;
  const g = ctx.gravity;
  const dt = ctx.dt;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i] || B.asleep[i]) continue;
    B.vel[3 * i] += dt * g[0];
    B.vel[3 * i + 1] += dt * g[1];
    B.vel[3 * i + 2] += dt * g[2];
    gyroscopic(B, i, dt);
  }
  if (c && c.applyForces(ctx, dt)) {
    // Motors changed angular velocities: every cached prediction is stale.
    for (let i = 0; i < B.count; i++) ctx.version[i]++;
  }
}

/** omega' = I_w(q')^-1 I_w(q) omega with q' = q advanced by omega' dt (see velocityUpdate). */
function gyroscopic(B: StepContext['bodies'], i: number, dt: number): void {
  const wx = B.angVel[3 * i]!, wy = B.angVel[3 * i + 1]!, wz = B.angVel[3 * i + 2]!;
  if (wx === 0 && wy === 0 && wz === 0) return;
  const I0 = B.invInertia;
  if (isotropic(I0, 9 * i)) return;
  const R = rot, Iw = inertiaW, L = mom, w = omega, q = nextQuat;
  quatToMat3(B.quat, 4 * i, R);
  bodyInertiaTimes(R, I0, 9 * i, wx, wy, wz, L);
  w[0] = wx; w[1] = wy; w[2] = wz;
  for (let it = 0; it < 2; it++) {
    integrateQuat(B.quat, 4 * i, w[0]!, w[1]!, w[2]!, dt, q, 0);
    quatToMat3(q, 0, R);
    worldInverseInertia(R, 0, I0, 9 * i, Iw, 0);
    mulMat3Vec(Iw, 0, L[0]!, L[1]!, L[2]!, w);
  }
  B.angVel[3 * i] = w[0]!;
  B.angVel[3 * i + 1] = w[1]!;
  B.angVel[3 * i + 2] = w[2]!;
}

/**
 * x += dt v, q += dt/2 (omega, 0) q (renormalised), plus the position
 * correction's pseudo velocities (split impulse), which are then dropped.
 * The map is the same first-order one the predictions use (predict.ts,
 * joints), so a joint closed for the predicted pose stays closed.
 */
export function integratePositions(ctx: StepContext): void {
  const B = ctx.bodies;
  const dt = ctx.dt;
  const pv = ctx.pseudoVel, pw = ctx.pseudoAngVel;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i] || B.asleep[i]) continue;
    B.pos[3 * i] += dt * (B.vel[3 * i]! + pv[3 * i]!);
    B.pos[3 * i + 1] += dt * (B.vel[3 * i + 1]! + pv[3 * i + 1]!);
    B.pos[3 * i + 2] += dt * (B.vel[3 * i + 2]! + pv[3 * i + 2]!);
    integrateQuat(B.quat, 4 * i, B.angVel[3 * i]! + pw[3 * i]!, B.angVel[3 * i + 1]! + pw[3 * i + 1]!, B.angVel[3 * i + 2]! + pw[3 * i + 2]!, dt, B.quat, 4 * i);
    pv[3 * i] = 0; pv[3 * i + 1] = 0; pv[3 * i + 2] = 0;
    pw[3 * i] = 0; pw[3 * i + 1] = 0; pw[3 * i + 2] = 0;
  }
}

const rot = new Float64Array(9);
const inertiaW = new Float64Array(9);
const mom = new Float64Array(3);
const omega = new Float64Array(3);
const nextQuat = new Float64Array(4);
const body = new Float64Array(3);
const inv = new Float64Array(9);
const inv2 = new Float64Array(9);

/** Whether the body-frame inverse inertia at o is a multiple of the identity (to rounding). */
function isotropic(I0: Float64Array, o: number): boolean {
  const d = I0[o]!;
  const tol = 1e-12 * Math.abs(d);
  return Math.abs(I0[o + 4]! - d) <= tol && Math.abs(I0[o + 8]! - d) <= tol &&
    Math.abs(I0[o + 1]!) <= tol && Math.abs(I0[o + 2]!) <= tol && Math.abs(I0[o + 3]!) <= tol &&
    Math.abs(I0[o + 5]!) <= tol && Math.abs(I0[o + 6]!) <= tol && Math.abs(I0[o + 7]!) <= tol;
}

/** out = R I0 R^T w, where I0 is the inverse of the body-frame inverse inertia invI0 at o. */
function bodyInertiaTimes(R: Float64Array, invI0: Float64Array, o: number, wx: number, wy: number, wz: number, out: Float64Array): void {
  // Body-frame omega = R^T w.
  const bx = R[0]! * wx + R[3]! * wy + R[6]! * wz;
  const by = R[1]! * wx + R[4]! * wy + R[7]! * wz;
  const bz = R[2]! * wx + R[5]! * wy + R[8]! * wz;
  for (let k = 0; k < 9; k++) inv[k] = invI0[o + k]!;
  invert3(inv, inv2);
  mulMat3Vec(inv2, 0, bx, by, bz, body);
  mulMat3Vec(R, 0, body[0]!, body[1]!, body[2]!, out);
}

/** Moves positions by dt times the pseudo velocities of the position correction and clears them (standard scheme). */
export function applyPseudoVelocities(ctx: StepContext): void {
  const B = ctx.bodies;
  const dt = ctx.dt;
  const pv = ctx.pseudoVel, pw = ctx.pseudoAngVel;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    for (let k = 0; k < 3; k++) B.pos[3 * i + k] += dt * pv[3 * i + k]!;
    const px = pw[3 * i]!, py = pw[3 * i + 1]!, pz = pw[3 * i + 2]!;
    if (px !== 0 || py !== 0 || pz !== 0) integrateQuat(B.quat, 4 * i, px, py, pz, dt, B.quat, 4 * i);
  }
  pv.fill(0);
  pw.fill(0);
}
