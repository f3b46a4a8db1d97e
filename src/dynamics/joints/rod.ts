/**
 * Where a distance or rope part's impulse leaves its anchors when the impulse
 * acts along the rod's direction at the end of the step (docs/ALGORITHM.md 6,
 * "Short rods").
 *
 * With the anchors' predicted gap g = pA - pB (before the impulse) and K the
 * 3x3 matrix taking an impulse J on A (-J on B) to the change of that gap per
 * unit of time (K_T, collision matrices at the anchors), an impulse along the
 * rod's final direction, J = -tau y / |y|, leaves the gap
 *
 *   y = g - dt tau K y / |y|,   |y| = L.
 *
 * With sigma = dt tau / L this is y = (I + sigma K)^-1 g, and sigma solves
 * |y(sigma)| = L: sigma > 0 pulls (|g| > L), sigma < 0 pushes (|g| < L), and
 * the root with sigma > -1 / k_max (k_max the largest eigenvalue of K) is,
 * for a symmetric K, the velocity change of least kinetic energy that sets
 * the distance to L (Gauss's least constraint: a trust-region problem, whose
 * secular equation this is).
 * The impulse on A is then J = -(sigma / dt) y.
 *
 * Why not the one row along g / |g|, the direction before the impulse: K is
 * far from isotropic for an anchor off a light body's centre (a 5 cm ball's
 * anchor 1 m off its centre moves some 1000 times more across the arm than
 * along it), so an impulse along g / |g| moves the anchor mostly across the
 * row and turns the rod rather than setting its length. With the rod long
 * against the step's motion the next row is close to the last and repeated
 * rows converge to this same y; with a short rod (1 mm, the anchor moving 3
 * mm a step) they do not: the gap stays open by more than the rod's length,
 * the rod's turning mode is far faster than the step resolves, and the
 * energy grew without bound. This solve reaches the end in one go, and as L
 * goes to 0 it becomes the ball joint's K^-1 g / dt.
 */
import { invert3 } from '../math.ts';
import * as det from '../../util/detmath.ts';

/** Newton steps at most (safeguarded by a bracket; a few suffice). */
const MAX_STEPS = 100;
/** Solved once |y| is within this fraction of L. */
const TOLERANCE = 1e-12;

const SK = new Float64Array(9);
const SKI = new Float64Array(9);
const W = new Float64Array(3);
const KW = new Float64Array(3);
const DW = new Float64Array(3);

/**
 * W = (c I + s K)^-1 g and DW = (c I + s K)^-1 (c' I + s' K) W: W's
 * derivative in the variable c and s depend on (with derivatives c', s') is
 * -DW. False where singular.
 */
function solveAt(K: Float64Array, g: Float64Array, c: number, s: number, dc: number, ds: number): boolean {
  for (let k = 0; k < 9; k++) SK[k] = s * K[k]! + (k % 4 === 0 ? c : 0);
  if (!invert3(SK, SKI)) return false;
  mul(SKI, g, W);
  mul(K, W, KW);
  for (let k = 0; k < 3; k++) KW[k] = dc * W[k]! + ds * KW[k]!;
  mul(SKI, KW, DW);
  return Number.isFinite(W[0]! + W[1]! + W[2]! + DW[0]! + DW[1]! + DW[2]!);
}

function mul(M: Float64Array, u: Float64Array, out: Float64Array): void {
  const x = u[0]!, y = u[1]!, z = u[2]!;
  out[0] = M[0]! * x + M[1]! * y + M[2]! * z;
  out[1] = M[3]! * x + M[4]! * y + M[5]! * z;
  out[2] = M[6]! * x + M[7]! * y + M[8]! * z;
}

/**
 * The largest eigenvalue of the symmetric part of K (closed form for a
 * symmetric 3x3). For a K that is not symmetric (the joint passes' K maps
 * an impulse at the current arm to the motion at the predicted arm) every
 * real eigenvalue is at most this, so I + sigma K stays invertible above
 * -1 / it.
 */
function symMaxEigen(K: Float64Array): number {
  const a = K[0]!, e = K[4]!, i = K[8]!;
  const b = 0.5 * (K[1]! + K[3]!), c = 0.5 * (K[2]! + K[6]!), f = 0.5 * (K[5]! + K[7]!);
  const q = (a + e + i) / 3;
  const p1 = b * b + c * c + f * f;
  const p2 = (a - q) ** 2 + (e - q) ** 2 + (i - q) ** 2 + 2 * p1;
  if (!(p2 > 1e-30 * q * q)) return q;
  const p = Math.sqrt(p2 / 6);
  const A = (a - q) / p, E = (e - q) / p, I = (i - q) / p, B = b / p, C = c / p, F = f / p;
  const r = 0.5 * (A * (E * I - F * F) - B * (B * I - F * C) + C * (B * F - E * C));
  return q + 2 * p * det.cos(det.acos(Math.min(1, Math.max(-1, r))) / 3);
}

/**
 * Solves y = (I + sigma K)^-1 g with |y| = L (above). Writes the unit
 * direction of y into `dir` and z = sigma y into `z` (the impulse on A is
 * -z / dt; z = K^-1 g for a ball joint); returns false where there is
 * nothing to find (g = 0, a K that is not positive, the singular "hard
 * case" of a push). `pullOnly` (a rope): false unless |g| > L.
 *
 * A pull is solved for t = 1 / sigma, y = t (t I + K)^-1 g, so that a length
 * far below the gap (1e-16 m of a 3 mm gap) is as well posed as any: t goes
 * to 0 and z to K^-1 g; its bracket is halved geometrically, as t spans
 * hundreds of orders of magnitude. A push, sigma in (-1 / k_max, 0), is
 * solved for sigma. (Only + - * / and sqrt: the same bits on every engine,
 * util/detmath.ts.)
 */
export function rodGap(K: Float64Array, g: Float64Array, L: number, pullOnly: boolean, dir: Float64Array, z: Float64Array): boolean {
  const d = Math.hypot(g[0]!, g[1]!, g[2]!);
  const trace = K[0]! + K[4]! + K[8]!;
  if (!(d > 0) || !(L > 0) || !(trace > 0) || !Number.isFinite(d + trace)) return false;
  if (pullOnly && !(d > L)) return false;
  if (d === L) {
    for (let k = 0; k < 3; k++) {
      dir[k] = g[k]! / d;
      z[k] = 0;
    }
    return true;
  }
  const pull = d > L;
  // x is t (pull) or sigma (push); G(x) = |y| / L - 1 rises with x for a
  // pull and falls for a push; the root is in (lo, hi).
  let lo: number, hi: number, x: number;
  if (pull) {
    lo = 0;
    hi = Infinity;
    // The root for K = k I: t = k L / (d - L).
    x = ((trace / 3) * L) / (d - L);
  } else {
    const kmax = symMaxEigen(K);
    if (!(kmax > 0)) return false;
    lo = -1 / kmax;
    hi = 0;
    x = 0;
  }
  for (let it = 0; it < MAX_STEPS; it++) {
    // y = t W with W = (t I + K)^-1 g and dW/dt = -(t I + K)^-1 W (pull);
    // y = W = (I + sigma K)^-1 g and dW/dsigma = -(I + sigma K)^-1 K W (push).
    if (!(pull ? solveAt(K, g, x, 1, 1, 0) : solveAt(K, g, 1, x, 0, 1))) {
      if (pull) return false;
      // Singular: only next to lo, the push's root is above.
      lo = x;
      x = 0.5 * (lo + hi);
      continue;
    }
    const w = Math.hypot(W[0]!, W[1]!, W[2]!);
    const wdw = (W[0]! * DW[0]! + W[1]! * DW[1]! + W[2]! * DW[2]!) / w;
    const y = pull ? x * w : w;
    const G = y / L - 1;
    if (!Number.isFinite(G)) return false;
    if (Math.abs(G) <= TOLERANCE) {
      const f = pull ? 1 : x;
      for (let k = 0; k < 3; k++) {
        dir[k] = W[k]! / w;
        z[k] = f * W[k]!;
      }
      return true;
    }
    // d|y|/dx: w - t (W . DW) / w for a pull, -(W . DW) / w for a push.
    const slope = (pull ? w - x * wdw : -wdw) / L;
    // Below the root for a pull when G < 0, for a push when G > 0.
    if (G < 0 === pull) lo = x;
    else hi = x;
    let next = x - G / slope;
    if (!(next > lo && next < hi)) {
      if (hi === Infinity) next = x > 0 ? 16 * x : 1 / trace;
      else if (pull) next = lo === 0 ? hi / 16 : Math.sqrt(lo * hi);
      else next = 0.5 * (lo + hi);
    }
    if (next === x) return false;
    x = next;
  }
  return false;
}
