/**
 * Stages "velocityUpdate" and "integrate" (docs/ALGORITHM.md 3, 4.2): the forces
 * of the step (gravity, external forces, motors) as velocity changes, and the advance of
 * positions and orientations with the final velocities.
 */
import type { ConstraintSystem } from './constraints.ts';
import { integrateQuat, invert3, mulMat3Vec, quatToMat3, worldInverseInertia } from './math.ts';
import type { ContactSet } from './contacts.ts';
import type { StepContext } from './stepContext.ts';
import * as det from '../util/detmath.ts';

/**
 * v += dt (g + a) for every dynamic body (a: the external forces'
 * acceleration, ctx.extAcc; omega += dt alpha likewise), the gyroscopic change of omega, then the
 * motors' torques (constraints).
 *
 * Gyroscopic term (docs/ALGORITHM.md 3; Guendelman 2003 evolves L): with no
 * torque the angular momentum L = I_w(q) omega is constant while I_w = R I0 R^T
 * turns with the body, so omega is not. The step turns the body by the
 * implicit midpoint rule of the body-frame motion dL_b/dt = L_b x I0^-1 L_b:
 * the rate it turns at over the step is omega_m = R I0^-1 (L_b + L_b') / 2,
 * with L_b = R^T L and L_b' = R'^T L the body-frame momentum at the start and
 * the end (R' the orientation omega_m leads to). The orientation map
 * (math.ts integrateQuat, the exact rotation by |omega| dt) is a Cayley
 * rotation of a multiple of omega dt, and with it the midpoint rule keeps
 * |L|, L itself (world) and the kinetic energy L_b . I0^-1 L_b exactly
 * (quadratic invariants), at any spin rate: no energy is gained or lost by
 * turning. (Taking the end-of-step rate I_w(q')^-1 L
 * instead, the scheme before, is a backward rule: it damps nutation, and a
 * gyroscope on a pivot, whose joint keeps exciting it, sank.)
 *
 * omega_m is what the step's contacts and joints see and what positions
 * advance with; the state between steps stays the end-of-step rate
 * I_w(q')^-1 L: integratePositions converts back, with L changed by exactly
 * the angular impulses the step applied (carried in ctx.gyroCarry). A body
 * whose inertia is the same about every axis keeps omega unchanged.
 */
export function velocityUpdate(ctx: StepContext, c: ConstraintSystem | null): void {
  const B = ctx.bodies;
  const g = ctx.gravity;
  const dt = ctx.dt;
  const free = ctx.freeVel;
  const a = ctx.extAcc, alpha = ctx.extAngAcc;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i] || B.asleep[i]) {
      free[3 * i] = NaN; free[3 * i + 1] = NaN; free[3 * i + 2] = NaN;
      continue;
    }
    // Gravity plus the external forces' acceleration (forces.ts; 0 for
    // most bodies, and g + 0 is g bit for bit).
    const ax = g[0] + a[3 * i]!, ay = g[1] + a[3 * i + 1]!, az = g[2] + a[3 * i + 2]!;
    B.vel[3 * i] += dt * ax;
    B.vel[3 * i + 1] += dt * ay;
    B.vel[3 * i + 2] += dt * az;
    // The same arithmetic on the start's velocity: equal bit for bit while
    // nothing else has touched the body (see integratePositions).
    free[3 * i] += dt * ax;
    free[3 * i + 1] += dt * ay;
    free[3 * i + 2] += dt * az;
    // External torques change L by dt tau: omega by dt I_w^-1 tau, before
    // the gyroscopic term evolves L.
    B.angVel[3 * i] += dt * alpha[3 * i]!;
    B.angVel[3 * i + 1] += dt * alpha[3 * i + 1]!;
    B.angVel[3 * i + 2] += dt * alpha[3 * i + 2]!;
    gyroscopic(B, i, dt, ctx.gyroCarry);
  }
  if (c && c.applyForces(ctx, dt)) {
    // Motors changed angular velocities: every cached prediction is stale.
    for (let i = 0; i < B.count; i++) ctx.version[i]++;
  }
}

/**
 * Start of a separated step: remembers every body's linear velocity, which
 * the velocity update then advances by dt g like the body's own (see
 * integratePositions). The standard scheme does not call it (its impulses
 * come after the positions advance), so there nothing counts as free.
 */
export function recordFreeVelocities(ctx: StepContext): void {
  const free = ctx.freeVel, v = ctx.bodies.vel, edited = ctx.edited;
  for (let i = 0; i < ctx.count; i++) {
    const e = edited[i] === 1;
    free[3 * i] = e ? NaN : v[3 * i]!;
    free[3 * i + 1] = e ? NaN : v[3 * i + 1]!;
    free[3 * i + 2] = e ? NaN : v[3 * i + 2]!;
    edited[i] = 0;
  }
}

/** Marks every body's free flight as unknown (the standard scheme). */
export function forgetFreeVelocities(ctx: StepContext): void {
  ctx.freeVel.fill(NaN);
  ctx.edited.fill(0);
}

/**
 * Fixed-point passes of the midpoint rate at most. Each shrinks the error by
 * a factor of order |omega| dt / 2 (times the anisotropy), so a body turning
 * slowly needs 2-4 and one turning half a radian per step ~30 (a gyroscope at
 * 100 rad/s and dt 0.01 precessed 8 % fast and sank 0.12 m where it nutates
 * 3 cm with 6 passes; 0.7 % and 4 cm converged). Every pass's rate is an
 * average of two I0^-1 L_b, so bounded by |L| / I_min even unconverged.
 */
const MIDPOINT_PASSES = 40;
/** Relative change of the rate at which the passes stop. */
const MIDPOINT_TOLERANCE = 1e-11;
/**
 * Most substeps the midpoint rule is split into when it does not converge
 * over the whole step (a body turning about a radian a step or more, where
 * the passes' factor nears 1 and they wander: a box at 1.1 rad a step gained
 * 22 % of its energy in 5 s, at 2.7 rad 195 %).
 */
const MAX_GYRO_SUBSTEPS = 64;

/**
 * omega_m = (I_w(q)^-1 L + R I0^-1 R'^T L) / 2 with R' = R advanced by
 * omega_m dt (see velocityUpdate); stores L - I_w(q) omega_m in carry, so
 * integratePositions can recover L plus the step's angular impulses.
 *
 * Where the passes do not converge over the whole step, the rule runs over
 * 2, 4, ... equal substeps (each conserving L and the energy exactly), and
 * omega_m is the constant rate that takes the start's orientation to the
 * last substep's end in dt (the rotation vector of q' q^-1, over dt).
 */
function gyroscopic(B: StepContext['bodies'], i: number, dt: number, carry: Float64Array): void {
  carry[3 * i] = 0; carry[3 * i + 1] = 0; carry[3 * i + 2] = 0;
  const wx = B.angVel[3 * i]!, wy = B.angVel[3 * i + 1]!, wz = B.angVel[3 * i + 2]!;
  if (wx === 0 && wy === 0 && wz === 0) return;
  const I0 = B.invInertia;
  if (isotropic(I0, 9 * i)) return;
  const R = rot, L = mom, w = omega;
  quatToMat3(B.quat, 4 * i, R);
  bodyInertiaTimes(R, I0, 9 * i, wx, wy, wz, L);
  const o = 9 * i;
  let converged = midpointRate(B.quat, 4 * i, R, I0, o, wx, wy, wz, L, dt, w);
  for (let k = 2; !converged && k <= MAX_GYRO_SUBSTEPS; k *= 2) {
    // k substeps of dt / k from the start's orientation, each from the
    // end-of-substep rate I_w^-1 L of the one before.
    const q = subQuat, h = dt / k;
    q[0] = B.quat[4 * i]!; q[1] = B.quat[4 * i + 1]!; q[2] = B.quat[4 * i + 2]!; q[3] = B.quat[4 * i + 3]!;
    let sx = wx, sy = wy, sz = wz;
    converged = true;
    for (let j = 0; j < k; j++) {
      quatToMat3(q, 0, rotSub);
      if (j > 0) {
        worldInverseInertia(rotSub, 0, I0, o, inertiaW, 0);
        mulMat3Vec(inertiaW, 0, L[0]!, L[1]!, L[2]!, w);
        sx = w[0]!; sy = w[1]!; sz = w[2]!;
      }
      if (!midpointRate(q, 0, rotSub, I0, o, sx, sy, sz, L, h, w)) converged = false;
      integrateQuat(q, 0, w[0]!, w[1]!, w[2]!, h, q, 0);
    }
    // The rotation q q0^-1 as a rate over dt (the short way round).
    const q0 = B.quat;
    const ax = q0[4 * i]!, ay = q0[4 * i + 1]!, az = q0[4 * i + 2]!, aw = q0[4 * i + 3]!;
    let dx = aw * q[0]! - ax * q[3]! - (q[1]! * az - q[2]! * ay);
    let dy = aw * q[1]! - ay * q[3]! - (q[2]! * ax - q[0]! * az);
    let dz = aw * q[2]! - az * q[3]! - (q[0]! * ay - q[1]! * ax);
    let dw = aw * q[3]! + ax * q[0]! + ay * q[1]! + az * q[2]!;
    if (dw < 0) { dx = -dx; dy = -dy; dz = -dz; dw = -dw; }
    const sn = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const f = sn > 0 ? (2 * det.atan2(sn, dw)) / (sn * dt) : 0;
    w[0] = f * dx; w[1] = f * dy; w[2] = f * dz;
  }
  // Passes that wander still at MAX_GYRO_SUBSTEPS (a long thin body: each
  // pass multiplies an error by its turn per substep times the ratio of its
  // moments of inertia, 4 400 for a rod 2 m by 3 cm, which at 469 rad/s
  // no substep count brings under 1) give no rate worth taking: the body
  // turns at omega itself, and integratePositions keeps the energy.
  if (!converged) return;
  B.angVel[3 * i] = w[0]!;
  B.angVel[3 * i + 1] = w[1]!;
  B.angVel[3 * i + 2] = w[2]!;
  // carry = L - I_w(q) omega_m
  bodyInertiaTimes(R, I0, o, w[0]!, w[1]!, w[2]!, body);
  carry[3 * i] = L[0]! - body[0]!;
  carry[3 * i + 1] = L[1]! - body[1]!;
  carry[3 * i + 2] = L[2]! - body[2]!;
}

/**
 * The implicit midpoint rate over `dt` of a body at orientation q (quat at
 * qo, rotation matrix R) turning at (wx, wy, wz) with world momentum L (the
 * same: L = I_w(q) omega), by fixed-point passes from omega, into out
 * (world). False if the passes did not converge.
 */
function midpointRate(quat: Float64Array, qo: number, R: Float64Array, I0: Float64Array, o: number, wx: number, wy: number, wz: number, L: Float64Array, dt: number, out: Float64Array): boolean {
  const Rn = rotNext, q = nextQuat, lb = body;
  const Lx = L[0]!, Ly = L[1]!, Lz = L[2]!;
  // The start's half: I0^-1 L_b with L_b = R^T L is omega itself (body frame).
  const b0x = R[0]! * wx + R[3]! * wy + R[6]! * wz;
  const b0y = R[1]! * wx + R[4]! * wy + R[7]! * wz;
  const b0z = R[2]! * wx + R[5]! * wy + R[8]! * wz;
  let mx0 = wx, my0 = wy, mz0 = wz;
  for (let it = 0; it < MIDPOINT_PASSES; it++) {
    integrateQuat(quat, qo, mx0, my0, mz0, dt, q, 0);
    quatToMat3(q, 0, Rn);
    // L_b' = R'^T L, then omega_m (body) = (b0 + I0^-1 L_b') / 2, then world.
    const lx = Rn[0]! * Lx + Rn[3]! * Ly + Rn[6]! * Lz;
    const ly = Rn[1]! * Lx + Rn[4]! * Ly + Rn[7]! * Lz;
    const lz = Rn[2]! * Lx + Rn[5]! * Ly + Rn[8]! * Lz;
    mulMat3Vec(I0, o, lx, ly, lz, lb);
    const mx = 0.5 * (b0x + lb[0]!), my = 0.5 * (b0y + lb[1]!), mz = 0.5 * (b0z + lb[2]!);
    const nx = R[0]! * mx + R[1]! * my + R[2]! * mz;
    const ny = R[3]! * mx + R[4]! * my + R[5]! * mz;
    const nz = R[6]! * mx + R[7]! * my + R[8]! * mz;
    const change = Math.abs(nx - mx0) + Math.abs(ny - my0) + Math.abs(nz - mz0);
    mx0 = nx; my0 = ny; mz0 = nz;
    if (!(change > MIDPOINT_TOLERANCE * (Math.abs(nx) + Math.abs(ny) + Math.abs(nz)))) {
      out[0] = mx0; out[1] = my0; out[2] = mz0;
      return true;
    }
  }
  out[0] = mx0; out[1] = my0; out[2] = mz0;
  return false;
}

/**
 * x += dt v, q += dt/2 (omega, 0) q (renormalised), plus the position
 * correction's pseudo velocities (split impulse), which are then dropped.
 * The map is the same first-order one the predictions use (predict.ts,
 * joints), so a joint closed for the predicted pose stays closed.
 *
 * A body in free flight, whose linear velocity nothing but gravity (and the
 * external forces' acceleration a, which counts with g below) changed in
 * the step (no collision, contact, joint, soft-body or motor impulse, no
 * pseudo velocity: ctx.freeVel still equals it bit for bit), moves by
 * dt (v + v') / 2 = dt v' - dt^2 g / 2 instead, the exact parabola: x += dt v'
 * alone (semi-implicit Euler) puts it g dt t / 2 below the parabola after t
 * and loses g^2 dt^2 / 2 of energy per unit mass every step, so a ball of
 * restitution 1 came back to 0.93 of its drop at 60 Hz (0.99 now). A body
 * an impulse touched keeps x += dt v', the pose its contacts and joints were
 * solved for; free bodies end dt^2 g / 2 above the pose the step predicted
 * for them, which only makes the prediction conservative. omega,
 * the midpoint rate of the step plus its impulses, then becomes the
 * end-of-step rate I_w(q')^-1 L (see velocityUpdate).
 */
export function integratePositions(ctx: StepContext): void {
  const B = ctx.bodies;
  const dt = ctx.dt;
  const pv = ctx.pseudoVel, pw = ctx.pseudoAngVel;
  const carry = ctx.gyroCarry;
  const I0 = B.invInertia;
  const free = ctx.freeVel, g = ctx.gravity, a = ctx.extAcc, half = 0.5 * dt * dt;
  const shift = ctx.touchShift;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i] || B.asleep[i]) continue;
    B.pos[3 * i] += dt * (B.vel[3 * i]! + pv[3 * i]!);
    B.pos[3 * i + 1] += dt * (B.vel[3 * i + 1]! + pv[3 * i + 1]!);
    B.pos[3 * i + 2] += dt * (B.vel[3 * i + 2]! + pv[3 * i + 2]!);
    if (B.vel[3 * i] === free[3 * i] && B.vel[3 * i + 1] === free[3 * i + 1] && B.vel[3 * i + 2] === free[3 * i + 2] &&
      pv[3 * i] === 0 && pv[3 * i + 1] === 0 && pv[3 * i + 2] === 0) {
      // In free flight (from the step's start, or from a blow: markImpacts),
      // and from the moment of a blow where two balls touched (ctx.touchShift).
      // A body the contacts acted on after the blow ends where they solved it.
      B.pos[3 * i] -= half * (g[0] + a[3 * i]!) - shift[3 * i]!;
      B.pos[3 * i + 1] -= half * (g[1] + a[3 * i + 1]!) - shift[3 * i + 1]!;
      B.pos[3 * i + 2] -= half * (g[2] + a[3 * i + 2]!) - shift[3 * i + 2]!;
    }
    const wx = B.angVel[3 * i]!, wy = B.angVel[3 * i + 1]!, wz = B.angVel[3 * i + 2]!;
    const turns = (wx !== 0 || wy !== 0 || wz !== 0) && !isotropic(I0, 9 * i);
    if (turns) {
      // L after the step's impulses: I_w(q) omega + (L - I_w(q) omega_m).
      quatToMat3(B.quat, 4 * i, rot);
      bodyInertiaTimes(rot, I0, 9 * i, wx, wy, wz, mom);
      mom[0] += carry[3 * i]!;
      mom[1] += carry[3 * i + 1]!;
      mom[2] += carry[3 * i + 2]!;
    }
    integrateQuat(B.quat, 4 * i, wx + pw[3 * i]!, wy + pw[3 * i + 1]!, wz + pw[3 * i + 2]!, dt, B.quat, 4 * i);
    if (turns && !endRate(B, i, I0)) {
      // The momentum read at the new orientation carries more energy than
      // it had (GYRO_SLACK): the body keeps the rate it turned at, in its
      // own frame (omega' = R' R^T omega), which keeps the energy exactly.
      const bx = rot[0]! * wx + rot[3]! * wy + rot[6]! * wz;
      const by = rot[1]! * wx + rot[4]! * wy + rot[7]! * wz;
      const bz = rot[2]! * wx + rot[5]! * wy + rot[8]! * wz;
      B.angVel[3 * i] = rotEnd[0]! * bx + rotEnd[1]! * by + rotEnd[2]! * bz;
      B.angVel[3 * i + 1] = rotEnd[3]! * bx + rotEnd[4]! * by + rotEnd[5]! * bz;
      B.angVel[3 * i + 2] = rotEnd[6]! * bx + rotEnd[7]! * by + rotEnd[8]! * bz;
    }
    carry[3 * i] = 0; carry[3 * i + 1] = 0; carry[3 * i + 2] = 0;
    pv[3 * i] = 0; pv[3 * i + 1] = 0; pv[3 * i + 2] = 0;
    pw[3 * i] = 0; pw[3 * i + 1] = 0; pw[3 * i + 2] = 0;
    // (Set only for moving bodies struck in this step: a static or sleeping one has none to clear.)
    shift[3 * i] = 0; shift[3 * i + 1] = 0; shift[3 * i + 2] = 0;
  }
}

/**
 * Sets body i's end-of-step rate I_w(q')^-1 L from L in `mom`, its
 * orientation now (into rotEnd) and rot, the step's start orientation;
 * false (the rate left as it was) where that rate carries more than
 * 1 + GYRO_SLACK times the energy the momentum had at the start,
 * L_b . I0^-1 L_b with L_b = R^T L (torque-free motion keeps it).
 */
function endRate(B: StepContext['bodies'], i: number, I0: Float64Array): boolean {
  const Lx = mom[0]!, Ly = mom[1]!, Lz = mom[2]!;
  quatToMat3(B.quat, 4 * i, rotEnd);
  worldInverseInertia(rotEnd, 0, I0, 9 * i, inertiaW, 0);
  mulMat3Vec(inertiaW, 0, Lx, Ly, Lz, omega);
  const e1 = Lx * omega[0]! + Ly * omega[1]! + Lz * omega[2]!;
  const bx = rot[0]! * Lx + rot[3]! * Ly + rot[6]! * Lz;
  const by = rot[1]! * Lx + rot[4]! * Ly + rot[7]! * Lz;
  const bz = rot[2]! * Lx + rot[5]! * Ly + rot[8]! * Lz;
  mulMat3Vec(I0, 9 * i, bx, by, bz, body);
  if (e1 > (1 + GYRO_SLACK) * (bx * body[0]! + by * body[1]! + bz * body[2]!)) return false;
  B.angVel[3 * i] = omega[0]!;
  B.angVel[3 * i + 1] = omega[1]!;
  B.angVel[3 * i + 2] = omega[2]!;
  return true;
}

/**
 * How much more energy than its momentum had at the start (a share) a
 * body's end-of-step rate may carry before integratePositions keeps the
 * body-frame rate the step turned it at instead. The body turns at the
 * midpoint rate plus the step's impulses; where they changed a
 * fast turn a lot, turning by it and then reading the rate off the momentum
 * at the new orientation breaks the midpoint rule's balance: a 2 m rod
 * 3 cm thick, tumbling end over end at 100 rad/s into a wall, was turned a
 * radian about an axis its impulses had tilted by 2 degrees, which left a
 * part of its momentum along its own axis, where its inertia is 4400 times
 * smaller: it spun about that axis at 50 000 rad/s, 316 kJ out of 36.
 * A tenth, not round-off: a body the step's impulses turn slowly drifts a
 * few thousandths either way in a step (at 1e-3 ring piles took the body
 * frame's rate often enough to land otherwise), and the faults it is for
 * gain tenfold.
 */
const GYRO_SLACK = 0.1;

const rot = new Float64Array(9);
const rotEnd = new Float64Array(9);
const rotNext = new Float64Array(9);
const inertiaW = new Float64Array(9);
const mom = new Float64Array(3);
const omega = new Float64Array(3);
const nextQuat = new Float64Array(4);
const subQuat = new Float64Array(4);
const rotSub = new Float64Array(9);
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

/** A velocity change in the collision phase beyond this many |a| dt is an impact (markImpacts). */
const IMPACT_STEPS = 2;

/**
 * After the collision phase of a separated step: a body whose linear
 * velocity the phase changed by more than IMPACT_STEPS |a| dt (a bounce, a
 * blow) was struck, and an impact takes effect at the step's start
 * (ALGORITHM.md 4.2). From there it flies freely: the velocity the blow left
 * it becomes its free velocity (ctx.freeVel), which the velocity update
 * advances and integratePositions compares with, so a body nothing else
 * touches in the step follows the parabola from the blow. (It moved by
 * dt v' before, g dt^2 / 2 short of it at every bounce: at 60 Hz a ball's
 * second apex at restitution 0.5 came 2.7 % low, its third 11 %.) With
 * `smooth` (the trapezoid's solvers) its smooth start (ctx.smoothVel) is
 * forgotten, so trapezoidCorrection leaves its step alone. A resting or
 * sliding body's collision impulses only hold it up, at most about |g| dt a
 * step, and its step stays as its contacts solve it: an elastic box resting
 * on a slope, bounced at the step's start by the approach the last step's
 * gravity left it, ends where dt v' puts it, on the slope (seed fig. 27); as
 * a free flight it would hop. A body pushed from outside since the last step
 * (free velocity NaN) keeps an unknown free flight.
 */
export function markImpacts(ctx: StepContext, gravity: readonly number[], smooth: boolean): void {
  const B = ctx.bodies, sv = ctx.smoothVel, free = ctx.freeVel, a = ctx.extAcc, dt = ctx.dt;
  const g = Math.hypot(gravity[0]!, gravity[1]!, gravity[2]!);
  for (let i = 0; i < B.count; i++) {
    const o = 3 * i;
    // The velocity at the step's start: both hold it, bar a pushed body's free one.
    const known = free[o] === free[o];
    const start = known ? free : sv;
    const limit = IMPACT_STEPS * dt * (g + Math.hypot(a[o]!, a[o + 1]!, a[o + 2]!));
    const dx = B.vel[o]! - start[o]!, dy = B.vel[o + 1]! - start[o + 1]!, dz = B.vel[o + 2]! - start[o + 2]!;
    if (dx * dx + dy * dy + dz * dz <= limit * limit) continue;
    if (smooth) sv[o] = NaN;
    if (known) {
      free[o] = B.vel[o]!;
      free[o + 1] = B.vel[o + 1]!;
      free[o + 2] = B.vel[o + 2]!;
    }
  }
}

/** A correction still moving along a contact's normal by more than this fraction of its length after the projections is dropped (normals that leave it no direction). */
const TRAPEZOID_NORMAL_TOLERANCE = 1e-6;

/**
 * The seed's scheme moves a body its contacts touched by x += dt v', the
 * velocity its contacts were solved for. Under forces that change the
 * velocity smoothly (gravity, the forces of a lasting contact) that is
 * semi-implicit Euler, first order in dt: a box sliding or a ball rolling
 * down an incline ends a t dt / 2 ahead of its path after t (1 % of the
 * distance at 1 s with dt = 0.01), though its speed is exact. The exact path
 * of a constant acceleration is the trapezoid, x += dt (v_s + v') / 2 with
 * v_s the velocity at the step's start. This adds (v_s - v') / 2 to the
 * pseudo velocity of each body an impulse touched, projected onto the
 * tangent planes of its contact points (a correction along a normal would
 * lift a body off its support or press it in, and a rocking body lifted
 * while pressing in is refused gains energy). Left alone: bodies after an
 * impact (markImpacts), free bodies (integratePositions already moves them
 * along their parabola), bodies pushed from outside since the last step
 * (World.bodyEdited: the app's drag), jointed bodies (the joints' position
 * pass holds their poses), and the turn (a rolling body's angle does not carry its
 * position; its velocities are unchanged either way). With `minSpeed`
 * (ContactSolver.trapezoidSpeed; PGS's 0.05 m/s), also every body slower
 * than that at the step's start or end.
 */
export function trapezoidCorrection(ctx: StepContext, contacts: ContactSet, pairCount: number, jointed: Uint8Array | null, minSpeed = 0): void {
  const B = ctx.bodies, n = B.count;
  const sv = ctx.smoothVel, free = ctx.freeVel, v = B.vel;
  const c = correction.length >= 3 * n ? correction : (correction = new Float64Array(3 * n));
  const take = keep.length >= n ? keep : (keep = new Uint8Array(n));
  for (let i = 0; i < n; i++) {
    const o = 3 * i;
    take[i] = 0;
    if (B.isStatic[i] || B.asleep[i] || (jointed !== null && jointed[i]) || !(sv[o] === sv[o])) continue;
    // Untouched: integratePositions gives it the exact parabola. Pushed from
    // outside since the last step (free is NaN: the app's drag, whose spring
    // is tuned to dt v'): left as it was.
    if (v[o] === free[o] && v[o + 1] === free[o + 1] && v[o + 2] === free[o + 2]) continue;
    if (free[o] !== free[o]) continue;
    if (minSpeed > 0 && !(v[o]! * v[o]! + v[o + 1]! * v[o + 1]! + v[o + 2]! * v[o + 2]! > minSpeed * minSpeed &&
      sv[o]! * sv[o]! + sv[o + 1]! * sv[o + 1]! + sv[o + 2]! * sv[o + 2]! > minSpeed * minSpeed)) continue;
    for (let k = 0; k < 3; k++) c[o + k] = 0.5 * (sv[o + k]! - v[o + k]!);
    take[i] = 1;
  }
  // Two sweeps of projections onto the contacts' tangent planes (two normals
  // at an angle need more than one), then a check that none is left.
  const N = contacts.n;
  for (let sweep = 0; sweep < 3; sweep++) {
    for (let k = 0; k < pairCount; k++) {
      for (let j = contacts.start[k]!; j < contacts.end[k]!; j++) {
        const nx = N[3 * j]!, ny = N[3 * j + 1]!, nz = N[3 * j + 2]!;
        for (let side = 0; side < 2; side++) {
          const i = side === 0 ? contacts.b1[j]! : contacts.b2[j]!;
          if (i < 0 || i >= n || !take[i]) continue;
          const o = 3 * i;
          const along = c[o]! * nx + c[o + 1]! * ny + c[o + 2]! * nz;
          if (sweep < 2) {
            c[o] -= along * nx;
            c[o + 1] -= along * ny;
            c[o + 2] -= along * nz;
          } else if (Math.abs(along) > TRAPEZOID_NORMAL_TOLERANCE * Math.hypot(c[o]!, c[o + 1]!, c[o + 2]!)) {
            take[i] = 0;
          }
        }
      }
    }
  }
  const pv = ctx.pseudoVel;
  for (let i = 0; i < n; i++) {
    if (!take[i]) continue;
    for (let k = 0; k < 3; k++) pv[3 * i + k] += c[3 * i + k]!;
  }
}

let correction = new Float64Array(0);
let keep = new Uint8Array(0);
