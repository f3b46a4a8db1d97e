/**
 * Error and impulse of one joint part (seed ch. 9, docs/ALGORITHM.md 6).
 *
 * Every part is a set of `rows` unit vectors E (world) along which the
 * relative motion of its bodies is forbidden, and an error vector:
 *   translational (BALL, LINE, PLANE): the anchor gap g = pA - pB, projected on
 *     E; the impulse J = E^T j on A at its anchor (-J on B) solves
 *     E K_T E^T j = E du with K_T = K_A + K_B (7.8, 7.12) the collision matrices
 *     at the anchors, and du = -g / dt (position) or -u_rel (velocity);
 *   rotational (LOCK, AXIS, ANGLE): the rotation A must make relative to B,
 *     err; the angular impulse L = E^T j (+L on A, -L on B) solves
 *     E L_T E^T j = E dw with L_T = I_A^-1 + I_B^-1 (9.9), dw = err / dt
 *     (position) or -w_rel (velocity).
 * E is the identity for BALL and LOCK, two vectors perpendicular to the
 * axis for LINE and AXIS (9.5, 9.14), one vector for PLANE and ANGLE, and
 * the anchors' direction n = g / |g| for DIST, whose error is (|g| - L) n
 * (a rope: only while longer than L; evaluateDistance, distanceVelocity,
 * ropeImpact); DIST's position impulse acts along the rod's direction now,
 * sized to set the predicted length (alongRod), or where that direction
 * does not move the anchors along itself, along the direction at the end of
 * the step (distanceImpulse, rod.ts).
 *
 * Position pre-stabilisation measures the error at the end of the step,
 * x' = x + dt v and q' = q + dt/2 (omega, 0) q with the current velocities
 * (9.1, 9.3), and changes the current velocities so that it closes; the
 * mapping is nonlinear in the angular part, so the caller iterates until the
 * error is below a tolerance (the seed's simplification after its ref. [13]).
 * The impulses act at the anchors at the current pose (with the joint closed
 * the two arms meet at one point, which keeps angular momentum); the position
 * pass's K maps them to the motion of the anchors at the predicted pose (see
 * addPredictedMatrix), and a step that does not lower its part's predicted
 * error is halved or taken back (see stabilizePosition).
 *
 * Differences from the seed, both because errors must not accumulate:
 * LOCK holds the rest relative orientation (the seed removes only the change
 * of the relative orientation over the step, 9.10, so drift stays), and ANGLE
 * holds the rest angle phi0 (the seed: phi(t + dt) - phi(t), 9.16).
 *
 * Bodies with invMass 0 in the state (static, or frozen by shock propagation)
 * contribute nothing to K_T / L_T and are not changed.
 */
import { integrateQuat, invert3, quatMul, quatToMat3, relativePointVelocity } from '../math.ts';
import { applyAngularImpulsePair, applyImpulseAt, type ImpulseState } from '../impulse.ts';
import { ANGLE, AXIS, BALL, DIST, LINE, LOCK, isTranslational, type JointParts } from './parts.ts';
import { rodGap } from './rod.ts';
import * as det from '../../util/detmath.ts';

/** What a part's solve reads and writes: the impulse state plus the current orientations. */
export interface JointState extends ImpulseState {
  /** Current orientations [x, y, z, w] per body. */
  quat: Float64Array;
}

// ---- scratch (module level: no allocation per part) ----
/** The pose the error is evaluated at (current or predicted). */
const PA = new Float64Array(3);
const PB = new Float64Array(3);
const QA = new Float64Array(4);
const QB = new Float64Array(4);
const RA = new Float64Array(9);
const RB = new Float64Array(9);
/** Rotations at the current pose (lever arms). */
const CA = new Float64Array(9);
const CB = new Float64Array(9);
const QD = new Float64Array(4);
const QE = new Float64Array(4);
const QC = new Float64Array(4);
/** Constraint rows (unit vectors, world), `rows` of them. */
const E = new Float64Array(9);
/** Error vector (world): the gap pA - pB, or the rotation A must make relative to B. */
const ERR = new Float64Array(3);
/** Lever arms of A and B (world, from each centre of mass). */
const ARM = new Float64Array(6);
/** The same material points at the predicted pose (position pass). */
const PARM = new Float64Array(6);
/** The relative velocity of A's and B's points at the arms ARM. */
const UREL = new Float64Array(3);
const WANT = new Float64Array(3);
const M = new Float64Array(9);
const MI = new Float64Array(9);
const Kt = new Float64Array(9);
let rows = 0;
/** The last solved impulse (linear or angular, world). */
const IMP = new Float64Array(3);
/** Step halvings tried when a position impulse does not reduce its part's predicted error. */
const MAX_HALVINGS = 3;
/** DIST: the signed error d - L of the last evaluation (m). */
let distError = 0;
/** DIST: the gap pA - pB of the last evaluation (world, m). */
const GAP = new Float64Array(3);
/** DIST: the position impulse on A times -dt (rod.ts z). */
const Z = new Float64Array(3);
/**
 * A rope this much shorter than its length (m) is slack: it takes no
 * impulse. Within it the rope counts as taut, so its velocity pass removes
 * a separating speed; the position pass holds taut ropes to 1e-6 m.
 */
export const ROPE_SLACK = 1e-5;

/** Rows b, c perpendicular to the unit vector n (seed 9.1.2: b from n x (1,0,0), or n x (0,1,0) when nearly parallel). */
function perpRows(nx: number, ny: number, nz: number): void {
  let bx: number, by: number, bz: number;
  if (Math.abs(nx) < 0.9) {
    // n x (1, 0, 0)
    bx = 0;
    by = nz;
    bz = -ny;
  } else {
    // n x (0, 1, 0)
    bx = -nz;
    by = 0;
    bz = nx;
  }
  const l = Math.hypot(bx, by, bz);
  bx /= l;
  by /= l;
  bz /= l;
  E[0] = bx;
  E[1] = by;
  E[2] = bz;
  E[3] = ny * bz - nz * by;
  E[4] = nz * bx - nx * bz;
  E[5] = nx * by - ny * bx;
  rows = 2;
}

function identityRows(): void {
  E.fill(0);
  E[0] = E[4] = E[8] = 1;
  rows = 3;
}

/** v = R u for a row-major 3x3 at R[0..8] and u at u[o..o+2], into out[oo..]. */
function rot(R: Float64Array, u: Float64Array, o: number, out: Float64Array, oo: number): void {
  const x = u[o]!, y = u[o + 1]!, z = u[o + 2]!;
  out[oo] = R[0]! * x + R[1]! * y + R[2]! * z;
  out[oo + 1] = R[3]! * x + R[4]! * y + R[5]! * z;
  out[oo + 2] = R[6]! * x + R[7]! * y + R[8]! * z;
}

const V1 = new Float64Array(3);
const V2 = new Float64Array(3);

/**
 * Evaluates part p at the pose in PA/QA (body a) and PB/QB (body b): sets the
 * rows E and the error vector ERR; returns the error's size (m or rad).
 */
function evaluate(P: JointParts, p: number): number {
  quatToMat3(QA, 0, RA);
  quatToMat3(QB, 0, RB);
  const kind = P.kind[p]!;
  const o = 3 * p;
  if (isTranslational(kind)) {
    rot(RA, P.rA, o, V1, 0);
    rot(RB, P.rB, o, V2, 0);
    let gx = PA[0]! + V1[0]! - PB[0]! - V2[0]!;
    let gy = PA[1]! + V1[1]! - PB[1]! - V2[1]!;
    let gz = PA[2]! + V1[2]! - PB[2]! - V2[2]!;
    if (kind === DIST) return evaluateDistance(P, p, gx, gy, gz);
    if (kind === BALL) {
      identityRows();
    } else {
      rot(RA, P.axA, o, V1, 0);
      const nx = V1[0]!, ny = V1[1]!, nz = V1[2]!;
      const gn = gx * nx + gy * ny + gz * nz;
      if (kind === LINE) {
        // Only the part of the gap off the line counts (9.5).
        perpRows(nx, ny, nz);
        gx -= gn * nx;
        gy -= gn * ny;
        gz -= gn * nz;
      } else {
        // PLANE: only the part along the plane's normal.
        E[0] = nx;
        E[1] = ny;
        E[2] = nz;
        rows = 1;
        gx = gn * nx;
        gy = gn * ny;
        gz = gn * nz;
      }
    }
    ERR[0] = gx;
    ERR[1] = gy;
    ERR[2] = gz;
    return Math.hypot(gx, gy, gz);
  }
  if (kind === LOCK) {
    // B's orientation should be qA q_rel0; qe = qdes conj(qB) is the world
    // rotation B still has to make, so A has to make -qe relative to B.
    quatMul(QA, 0, P.ref, 4 * p, QD, 0);
    QC[0] = -QB[0]!;
    QC[1] = -QB[1]!;
    QC[2] = -QB[2]!;
    QC[3] = QB[3]!;
    quatMul(QD, 0, QC, 0, QE, 0);
    let x = QE[0]!, y = QE[1]!, z = QE[2]!, w = QE[3]!;
    if (w < 0) {
      // The shorter way round.
      x = -x;
      y = -y;
      z = -z;
      w = -w;
    }
    const s = Math.hypot(x, y, z);
    const f = s > 1e-12 ? (2 * det.atan2(s, w)) / s : 2;
    identityRows();
    ERR[0] = -f * x;
    ERR[1] = -f * y;
    ERR[2] = -f * z;
    return f * s;
  }
  rot(RA, P.axA, o, V1, 0);
  rot(RB, P.axB, o, V2, 0);
  const ax = V1[0]!, ay = V1[1]!, az = V1[2]!;
  const bx = V2[0]!, by = V2[1]!, bz = V2[2]!;
  const cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
  const s = Math.hypot(cx, cy, cz);
  const c = ax * bx + ay * by + az * bz;
  const angle = det.atan2(s, c);
  if (kind === AXIS) {
    // a1 x a2 (9.13), scaled to the angle between the axes: turning A by it about a1 x a2 aligns them.
    perpRows(ax, ay, az);
    if (s > 1e-12) {
      const f = angle / s;
      ERR[0] = f * cx;
      ERR[1] = f * cy;
      ERR[2] = f * cz;
    } else if (c < 0) {
      // Opposite axes: any perpendicular turn works.
      ERR[0] = Math.PI * E[0]!;
      ERR[1] = Math.PI * E[1]!;
      ERR[2] = Math.PI * E[2]!;
    } else {
      ERR.fill(0);
    }
    return angle;
  }
  // ANGLE: phi = angle(a, b) must stay phi0; turning A about c = a x b by +d lowers phi by d (9.16).
  if (s < 1e-9) {
    // a and b parallel: c is undefined, so the part has nothing to hold this step.
    rows = 0;
    ERR.fill(0);
    return 0;
  }
  const e = angle - P.ref[4 * p]!;
  E[0] = cx / s;
  E[1] = cy / s;
  E[2] = cz / s;
  rows = 1;
  ERR[0] = e * E[0]!;
  ERR[1] = e * E[1]!;
  ERR[2] = e * E[2]!;
  return Math.abs(e);
}

/**
 * DIST at the gap g = pA - pB: the one row n = g / |g| and the error
 * (|g| - L) n, the part of the gap the impulse along n must close. A rope
 * shorter than L has no error (distError still says by how much it is
 * slack). Coincident anchors give no direction: nothing to hold this step.
 */
function evaluateDistance(P: JointParts, p: number, gx: number, gy: number, gz: number): number {
  const d = Math.hypot(gx, gy, gz);
  const L = P.ref[4 * p]!;
  distError = d - L;
  GAP[0] = gx;
  GAP[1] = gy;
  GAP[2] = gz;
  if (!(d > 1e-12)) {
    rows = 0;
    ERR.fill(0);
    return 0;
  }
  E[0] = gx / d;
  E[1] = gy / d;
  E[2] = gz / d;
  rows = 1;
  const e = P.ref[4 * p + 1]! !== 0 ? Math.max(distError, 0) : distError;
  ERR[0] = e * E[0]!;
  ERR[1] = e * E[1]!;
  ERR[2] = e * E[2]!;
  return Math.abs(e);
}

function loadPose(X: Float64Array, Q: Float64Array, i: number, P3: Float64Array, Q4: Float64Array): void {
  P3[0] = X[3 * i]!;
  P3[1] = X[3 * i + 1]!;
  P3[2] = X[3 * i + 2]!;
  Q4[0] = Q[4 * i]!;
  Q4[1] = Q[4 * i + 1]!;
  Q4[2] = Q[4 * i + 2]!;
  Q4[3] = Q[4 * i + 3]!;
}

/** x' = x + h v, q' = q + h/2 (omega, 0) q (the world's prediction). */
function predictPose(st: JointState, i: number, h: number, P3: Float64Array, Q4: Float64Array): void {
  const x = st.centre, v = st.vel, w = st.angVel;
  P3[0] = x[3 * i]! + h * v[3 * i]!;
  P3[1] = x[3 * i + 1]! + h * v[3 * i + 1]!;
  P3[2] = x[3 * i + 2]! + h * v[3 * i + 2]!;
  integrateQuat(st.quat, 4 * i, w[3 * i]!, w[3 * i + 1]!, w[3 * i + 2]!, h, Q4, 0);
}

/**
 * Lever arms at the current pose into ARM. For LINE and PLANE, A's anchor is
 * first moved along its line / plane to the point nearest B's anchor (seed
 * 9.1.2): that material point of A is the one B's anchor is touching.
 */
function leverArms(P: JointParts, p: number, st: JointState): void {
  const a = P.a[p]!, b = P.b[p]!, o = 3 * p;
  const kind = P.kind[p]!;
  quatToMat3(st.quat, 4 * a, CA);
  quatToMat3(st.quat, 4 * b, CB);
  rot(CA, P.rA, o, ARM, 0);
  rot(CB, P.rB, o, ARM, 3);
  if (kind === BALL || kind === DIST) return;
  const x = st.centre;
  const dx = x[3 * b]! + ARM[3]! - x[3 * a]! - ARM[0]!;
  const dy = x[3 * b + 1]! + ARM[4]! - x[3 * a + 1]! - ARM[1]!;
  const dz = x[3 * b + 2]! + ARM[5]! - x[3 * a + 2]! - ARM[2]!;
  rot(CA, P.axA, o, V1, 0);
  const nx = V1[0]!, ny = V1[1]!, nz = V1[2]!;
  const dn = dx * nx + dy * ny + dz * nz;
  if (kind === LINE) {
    ARM[0] += dn * nx;
    ARM[1] += dn * ny;
    ARM[2] += dn * nz;
  } else {
    ARM[0] += dx - dn * nx;
    ARM[1] += dy - dn * ny;
    ARM[2] += dz - dn * nz;
  }
}

/** PARM = R' R^T ARM: the lever arms carried to the predicted pose (RA, RB predicted; CA, CB current). */
function predictedArms(): void {
  for (let side = 0; side < 2; side++) {
    const Rp = side === 0 ? RA : RB, Rc = side === 0 ? CA : CB;
    const o = 3 * side;
    const x = ARM[o]!, y = ARM[o + 1]!, z = ARM[o + 2]!;
    // local = Rc^T arm
    const lx = Rc[0]! * x + Rc[3]! * y + Rc[6]! * z;
    const ly = Rc[1]! * x + Rc[4]! * y + Rc[7]! * z;
    const lz = Rc[2]! * x + Rc[5]! * y + Rc[8]! * z;
    PARM[o] = Rp[0]! * lx + Rp[1]! * ly + Rp[2]! * lz;
    PARM[o + 1] = Rp[3]! * lx + Rp[4]! * ly + Rp[5]! * lz;
    PARM[o + 2] = Rp[6]! * lx + Rp[7]! * ly + Rp[8]! * lz;
  }
}

/**
 * K += m^-1 1 - p~ I^-1 r~: how an impulse J at the current arm r moves the
 * material point whose predicted arm is p, per unit of dt (dv + dw x p, with
 * dw = I^-1 (r x J)). With p = r it is the collision matrix (7.8); using the
 * predicted arm keeps the position pass converging when a body turns a large
 * angle within the step (a whipping chain end), where K at r overshoots.
 */
function addPredictedMatrix(im: number, I: Float64Array, io: number, r: Float64Array, ro: number, pa: Float64Array, po: number, K: Float64Array): void {
  const rx = r[ro]!, ry = r[ro + 1]!, rz = r[ro + 2]!;
  const px = pa[po]!, py = pa[po + 1]!, pz = pa[po + 2]!;
  for (let j = 0; j < 3; j++) {
    // t = r x e_j
    const tx = j === 0 ? 0 : j === 1 ? -rz : ry;
    const ty = j === 0 ? rz : j === 1 ? 0 : -rx;
    const tz = j === 0 ? -ry : j === 1 ? rx : 0;
    // u = I^-1 t
    const ux = I[io]! * tx + I[io + 1]! * ty + I[io + 2]! * tz;
    const uy = I[io + 3]! * tx + I[io + 4]! * ty + I[io + 5]! * tz;
    const uz = I[io + 6]! * tx + I[io + 7]! * ty + I[io + 8]! * tz;
    // column j: im e_j - p x u
    K[j] = K[j]! + (j === 0 ? im : 0) - (py * uz - pz * uy);
    K[3 + j] = K[3 + j]! + (j === 1 ? im : 0) - (pz * ux - px * uz);
    K[6 + j] = K[6 + j]! + (j === 2 ? im : 0) - (px * uy - py * ux);
  }
}

/**
 * Kt = K_T (translational: the anchors' collision matrices, mapping an impulse
 * at the current arms to the motion of the anchors at the predicted arms when
 * `predicted`) or L_T (rotational) of part p; false when neither body can move.
 */
function partMatrix(P: JointParts, p: number, st: JointState, translational: boolean, predicted: boolean): boolean {
  const a = P.a[p]!, b = P.b[p]!;
  const ima = st.invMass[a]!, imb = st.invMass[b]!;
  if (ima === 0 && imb === 0) return false;
  const I = st.invInertiaW;
  Kt.fill(0);
  if (translational) {
    const pa = predicted ? PARM : ARM;
    if (ima !== 0) addPredictedMatrix(ima, I, 9 * a, ARM, 0, pa, 0, Kt);
    if (imb !== 0) addPredictedMatrix(imb, I, 9 * b, ARM, 3, pa, 3, Kt);
  } else {
    if (ima !== 0) for (let k = 0; k < 9; k++) Kt[k] += I[9 * a + k]!;
    if (imb !== 0) for (let k = 0; k < 9; k++) Kt[k] += I[9 * b + k]!;
  }
  return true;
}

/**
 * Below this cosine between the rod's direction now and the motion an
 * impulse along it gives the anchors' gap, a DIST part's position impulse
 * takes the direction at the end of the step (rod.ts) instead (alongRod).
 */
const ALONG_ROD_COS = 0.99;

/**
 * The position impulse of a DIST part along the rod's direction now, n =
 * g / |g| at the current pose, of the size that leaves the predicted gap at
 * the length L: |GAP + h j K n| = L, the root of least |j| (SHAKE's rule).
 * A pendulum so keeps its energy to the square of its turn per step: an
 * impulse along the end direction (rod.ts) leans against the swing by the
 * angle the rod turns in the step, and a 1 m pendulum at 60 degrees lost 5 %
 * of its energy in 10 s at dt 0.01 (0.29 % now; on a ball joint 0.27 %). Taken only where
 * K n stays along n (within ALONG_ROD_COS: a body's centre, or an anchor on
 * the rod's line through it); across a light body's arm the end direction
 * is what sets the length (rod.ts), and it is used there. A taut rope
 * takes it too (its error is only the stretch past L): the 60-degree
 * pendulum on a rope lost the same 5 % before, and a rope let go 30 degrees
 * above level, caught after a free fall, loses g L / 4 per unit mass to
 * 1.4 % (13 % before). False where nothing was applied.
 */
function alongRod(P: JointParts, p: number, st: JointState, h: number): boolean {
  const a = P.a[p]!, b = P.b[p]!, x = st.centre;
  const gx = x[3 * a]! + ARM[0]! - x[3 * b]! - ARM[3]!;
  const gy = x[3 * a + 1]! + ARM[1]! - x[3 * b + 1]! - ARM[4]!;
  const gz = x[3 * a + 2]! + ARM[2]! - x[3 * b + 2]! - ARM[5]!;
  const d = Math.sqrt(gx * gx + gy * gy + gz * gz);
  if (!(d > 0)) return false;
  const nx = gx / d, ny = gy / d, nz = gz / d;
  const kx = Kt[0]! * nx + Kt[1]! * ny + Kt[2]! * nz;
  const ky = Kt[3]! * nx + Kt[4]! * ny + Kt[5]! * nz;
  const kz = Kt[6]! * nx + Kt[7]! * ny + Kt[8]! * nz;
  const kk = kx * kx + ky * ky + kz * kz, kn = kx * nx + ky * ny + kz * nz;
  if (!(kn > 0) || kn * kn < ALONG_ROD_COS * ALONG_ROD_COS * kk) return false;
  const L = P.ref[4 * p]!;
  // h^2 kk j^2 + 2 h (GAP . K n) j + |GAP|^2 - L^2 = 0, by the stable form of the roots.
  const qa = h * h * kk, qb = 2 * h * (GAP[0]! * kx + GAP[1]! * ky + GAP[2]! * kz);
  const qc = GAP[0]! * GAP[0]! + GAP[1]! * GAP[1]! + GAP[2]! * GAP[2]! - L * L;
  const disc = qb * qb - 4 * qa * qc;
  if (!(disc >= 0) || !(qa > 0)) return false;
  const q = -0.5 * (qb + (qb >= 0 ? Math.sqrt(disc) : -Math.sqrt(disc)));
  if (q === 0) return false;
  const j = qc / q;
  IMP[0] = j * nx;
  IMP[1] = j * ny;
  IMP[2] = j * nz;
  if (!Number.isFinite(IMP[0]! + IMP[1]! + IMP[2]!)) return false;
  applyImpulse(P, p, st, true, 1);
  return true;
}

/**
 * The position impulse of a DIST part: along the rod's direction at the end
 * of the step, so that it leaves the predicted gap (GAP, at the predicted
 * pose; arms in ARM and PARM) at the length L (rod.ts). A single row along
 * GAP, as the other parts take, turns a short rod instead of setting its
 * length (rod.ts says why). Returns false where rod.ts finds nothing (the
 * row is used instead).
 */
function distanceImpulse(P: JointParts, p: number, st: JointState, h: number): boolean {
  if (!partMatrix(P, p, st, true, true)) return false;
  if (alongRod(P, p, st, h)) return true;
  if (!rodGap(Kt, GAP, P.ref[4 * p]!, P.ref[4 * p + 1]! !== 0, V1, Z)) return false;
  IMP[0] = -Z[0]! / h;
  IMP[1] = -Z[1]! / h;
  IMP[2] = -Z[2]! / h;
  if (!Number.isFinite(IMP[0]! + IMP[1]! + IMP[2]!)) return false;
  applyImpulse(P, p, st, true, 1);
  return true;
}

/**
 * Solves E A E^T j = E WANT (A = K_T or L_T for part p) and applies the
 * impulse E^T j. `predicted`: translational A maps the impulse to the motion
 * of the anchors at the predicted pose (position pass). Returns false when
 * nothing could be applied.
 */
function applyRows(P: JointParts, p: number, st: JointState, translational: boolean, predicted: boolean): boolean {
  if (rows === 0 || !partMatrix(P, p, st, translational, predicted)) return false;
  // Reduced system in the constrained directions (9.5, 9.14).
  let jx: number, jy: number, jz: number;
  if (rows === 3) {
    if (!invert3(Kt, MI)) return false;
    const wx = WANT[0]!, wy = WANT[1]!, wz = WANT[2]!;
    jx = MI[0]! * wx + MI[1]! * wy + MI[2]! * wz;
    jy = MI[3]! * wx + MI[4]! * wy + MI[5]! * wz;
    jz = MI[6]! * wx + MI[7]! * wy + MI[8]! * wz;
  } else {
    // M = E Kt E^T (rows x rows), rhs = E want.
    for (let r = 0; r < rows; r++) {
      const ex = E[3 * r]!, ey = E[3 * r + 1]!, ez = E[3 * r + 2]!;
      const kx = Kt[0]! * ex + Kt[1]! * ey + Kt[2]! * ez;
      const ky = Kt[3]! * ex + Kt[4]! * ey + Kt[5]! * ez;
      const kz = Kt[6]! * ex + Kt[7]! * ey + Kt[8]! * ez;
      for (let q = 0; q < rows; q++) M[q * rows + r] = E[3 * q]! * kx + E[3 * q + 1]! * ky + E[3 * q + 2]! * kz;
    }
    const r0 = E[0]! * WANT[0]! + E[1]! * WANT[1]! + E[2]! * WANT[2]!;
    let j0: number, j1 = 0;
    if (rows === 1) {
      if (!(M[0]! > 0)) return false;
      j0 = r0 / M[0]!;
    } else {
      const r1 = E[3]! * WANT[0]! + E[4]! * WANT[1]! + E[5]! * WANT[2]!;
      const det = M[0]! * M[3]! - M[1]! * M[2]!;
      if (!(Math.abs(det) > 1e-300)) return false;
      j0 = (M[3]! * r0 - M[1]! * r1) / det;
      j1 = (M[0]! * r1 - M[2]! * r0) / det;
    }
    jx = j0 * E[0]! + (rows === 2 ? j1 * E[3]! : 0);
    jy = j0 * E[1]! + (rows === 2 ? j1 * E[4]! : 0);
    jz = j0 * E[2]! + (rows === 2 ? j1 * E[5]! : 0);
  }
  if (!Number.isFinite(jx + jy + jz)) return false;
  IMP[0] = jx;
  IMP[1] = jy;
  IMP[2] = jz;
  applyImpulse(P, p, st, translational, 1);
  return true;
}

/** Applies f * IMP (the last solved impulse) to part p's bodies; f = -1 takes it back exactly. */
function applyImpulse(P: JointParts, p: number, st: JointState, translational: boolean, f: number): void {
  const a = P.a[p]!, b = P.b[p]!;
  if (translational) {
    applyImpulseAt(st, a, ARM, 0, IMP, f);
    applyImpulseAt(st, b, ARM, 3, IMP, -f);
  } else {
    applyAngularImpulsePair(st, a, b, IMP, f);
  }
}

/** Error of part p at the end of the step (poses predicted with step h from the current velocities), m or rad. */
export function predictedError(P: JointParts, p: number, st: JointState, h: number): number {
  predictPose(st, P.a[p]!, h, PA, QA);
  predictPose(st, P.b[p]!, h, PB, QB);
  return evaluate(P, p);
}

/**
 * Position pre-stabilisation of part p: if the error at the end of the step
 * (poses predicted with step h) exceeds `tol`, apply the impulse that closes it
 * to first order. Returns the error before the impulse (m or rad), negated when
 * an impulse was applied, so the caller knows which bodies changed.
 */
export function stabilizePosition(P: JointParts, p: number, st: JointState, h: number, tol: number): number {
  const a = P.a[p]!, b = P.b[p]!;
  predictPose(st, a, h, PA, QA);
  predictPose(st, b, h, PB, QB);
  const err = evaluate(P, p);
  if (!(err > tol)) return err;
  const kind = P.kind[p]!;
  const tr = isTranslational(kind);
  const s = tr ? -1 / h : 1 / h;
  WANT[0] = s * ERR[0]!;
  WANT[1] = s * ERR[1]!;
  WANT[2] = s * ERR[2]!;
  if (tr) {
    leverArms(P, p, st);
    predictedArms();
  }
  if (!((kind === DIST && distanceImpulse(P, p, st, h)) || applyRows(P, p, st, tr, true))) return err;
  // The linearised step must make the predicted error smaller. Far from the
  // linear range (a body turning a large angle within the step) a full
  // Newton step can overshoot, and repeating it grows the velocities without
  // bound; so halve the step until it helps, or take it back.
  let f = 1;
  for (let tries = 0; tries < MAX_HALVINGS; tries++) {
    if (predictedError(P, p, st, h) < err) return -err;
    applyImpulse(P, p, st, tr, -0.5 * f);
    f *= 0.5;
  }
  if (predictedError(P, p, st, h) < err) return -err;
  applyImpulse(P, p, st, tr, -f);
  return err;
}

/**
 * The collision phase of a rope with restitution e > 0: if the current
 * velocities carry it to its length within the step of h (poses predicted as
 * in the position pass) while its anchors separate along it at un > 0, it
 * goes taut this step; un is kept (ref[4p+3], else 0) for the first velocity
 * pass that finds the rope taut, which turns the separating speed into -e un
 * (distanceVelocity). Until then the rope takes its ordinary impulses: the
 * position pass brings it to its length, so the rebound starts there.
 */
export function ropeImpact(P: JointParts, p: number, st: JointState, h: number): void {
  P.ref[4 * p + 3] = 0;
  if (P.kind[p] !== DIST || P.ref[4 * p + 1]! === 0 || !(P.ref[4 * p + 2]! > 0)) return;
  const a = P.a[p]!, b = P.b[p]!;
  predictPose(st, a, h, PA, QA);
  predictPose(st, b, h, PB, QB);
  evaluate(P, p);
  if (rows === 0 || distError < -ROPE_SLACK) return;
  loadPose(st.centre, st.quat, a, PA, QA);
  loadPose(st.centre, st.quat, b, PB, QB);
  evaluate(P, p);
  if (rows === 0) return;
  leverArms(P, p, st);
  relativePointVelocity(st.vel, st.angVel, a, b, ARM, 0, UREL);
  const un = E[0]! * UREL[0]! + E[1]! * UREL[1]! + E[2]! * UREL[2]!;
  if (un > 0) P.ref[4 * p + 3] = un;
}

/**
 * Velocity stabilisation of part p: remove the relative anchor velocity (9.4,
 * 9.7) or relative angular velocity (9.12, 9.15) in its constrained
 * directions, if larger than `tol`. Returns the removed speed (m/s or rad/s),
 * negated when an impulse was applied.
 */
export function stabilizeVelocity(P: JointParts, p: number, st: JointState, tol: number): number {
  const a = P.a[p]!, b = P.b[p]!;
  loadPose(st.centre, st.quat, a, PA, QA);
  loadPose(st.centre, st.quat, b, PB, QB);
  evaluate(P, p); // rows at the current pose
  if (rows === 0) return 0;
  const v = st.vel, w = st.angVel;
  const tr = isTranslational(P.kind[p]!);
  let ux: number, uy: number, uz: number;
  if (tr) {
    leverArms(P, p, st);
    relativePointVelocity(v, w, a, b, ARM, 0, UREL);
    ux = UREL[0]!; uy = UREL[1]!; uz = UREL[2]!;
  } else {
    ux = w[3 * a]! - w[3 * b]!;
    uy = w[3 * a + 1]! - w[3 * b + 1]!;
    uz = w[3 * a + 2]! - w[3 * b + 2]!;
  }
  if (P.kind[p] === DIST) return distanceVelocity(P, p, st, ux * E[0]! + uy * E[1]! + uz * E[2]!, tol);
  let sq = 0;
  for (let r = 0; r < rows; r++) {
    const d = E[3 * r]! * ux + E[3 * r + 1]! * uy + E[3 * r + 2]! * uz;
    sq += d * d;
  }
  const speed = Math.sqrt(sq);
  if (!(speed > tol)) return speed;
  WANT[0] = -ux;
  WANT[1] = -uy;
  WANT[2] = -uz;
  return applyRows(P, p, st, tr, false) ? -speed : speed;
}

/**
 * The velocity pass of a DIST part at the current pose (rows and distError
 * set, arms in ARM), with un the anchors' separating speed along the row. A
 * distance joint removes un; a rope only a separating speed, and only while
 * taut, except that in the step it goes taut (ropeImpact) it sets un to -e
 * times the speed it went taut with.
 */
function distanceVelocity(P: JointParts, p: number, st: JointState, un: number, tol: number): number {
  let target = 0;
  if (P.ref[4 * p + 1]! !== 0) {
    // A rope pulls, never pushes: nothing while slack, nor while its anchors approach.
    if (distError < -ROPE_SLACK) return 0;
    const impact = P.ref[4 * p + 3]!;
    if (impact > 0) {
      P.ref[4 * p + 3] = 0;
      target = -P.ref[4 * p + 2]! * impact;
    } else if (un <= 0) {
      return 0;
    }
  }
  const speed = Math.abs(un - target);
  if (!(speed > tol)) return speed;
  const f = target - un;
  WANT[0] = f * E[0]!;
  WANT[1] = f * E[1]!;
  WANT[2] = f * E[2]!;
  return applyRows(P, p, st, true, false) ? -speed : speed;
}

/** The error of part p at the poses X (centres) and Q (orientations), without changing anything (m or rad). */
export function partError(P: JointParts, p: number, X: Float64Array, Q: Float64Array): number {
  loadPose(X, Q, P.a[p]!, PA, QA);
  loadPose(X, Q, P.b[p]!, PB, QB);
  return evaluate(P, p);
}

/** Rest values of rotational parts from the poses in Q: LOCK's relative orientation, ANGLE's angle. */
export function captureRest(P: JointParts, p: number, Q: Float64Array): void {
  const a = P.a[p]!, b = P.b[p]!;
  const kind = P.kind[p]!;
  if (kind === LOCK) {
    // q_rel0 = conj(qA) qB
    QC[0] = -Q[4 * a]!;
    QC[1] = -Q[4 * a + 1]!;
    QC[2] = -Q[4 * a + 2]!;
    QC[3] = Q[4 * a + 3]!;
    quatMul(QC, 0, Q, 4 * b, P.ref, 4 * p);
  } else if (kind === ANGLE) {
    P.ref[4 * p] = 0;
    quatToMat3(Q, 4 * a, RA);
    quatToMat3(Q, 4 * b, RB);
    rot(RA, P.axA, 3 * p, V1, 0);
    rot(RB, P.axB, 3 * p, V2, 0);
    const ax = V1[0]!, ay = V1[1]!, az = V1[2]!, bx = V2[0]!, by = V2[1]!, bz = V2[2]!;
    const s = Math.hypot(ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx);
    P.ref[4 * p] = det.atan2(s, ax * bx + ay * by + az * bz);
  }
}

