/**
 * Continuous collision (solver.ccd), the narrow phase's sweep: a pair whose
 * relative motion over the step exceeds the half thickness of its thinner
 * body is queried at poses along the motion (current to predicted, one
 * batch), and cached at the first pose where it touches. Its points are then
 * evaluated to first order from that pose, which extrapolates the surface it
 * met (a half-space through the touching face), so a fast body is stopped at
 * the face it reached instead of being pushed out of the far side of a thin
 * wall. Once impulses have slowed it below that speed, it is queried at its
 * new prediction like any pair (narrowphase.ts). This file owns the bound on
 * that motion, how many poses a sweep takes, and which pose it touched at.
 */
import type { QueryResult } from '../collision/query.ts';
import * as det from '../util/detmath.ts';
import type { ShapeInfo } from './margins.ts';
import { norm3 } from './math.ts';
import type { RelPose } from './relPose.ts';

/** Most poses along a swept pair's motion. */
const MAX_SWEEP_POSES = 64;

/**
 * Whether a pair moves fast between its relative poses `now` and `pred`
 * (current and predicted): more than its thinner body's half thickness.
 */
export function movesFast(now: RelPose, pred: RelPose, ia: ShapeInfo, ib: ShapeInfo): boolean {
  return sweptMotion(now, pred, ia.radius, ib.radius, turnAngle(now, pred)) > Math.min(ia.halfThickness, ib.halfThickness);
}

/**
 * Where along its motion a pair that moves fast between `now` and `pred`
 * (current and predicted) is queried, and at how many poses: the result is
 * the number of poses m, the last one `pred`, and `out` gets the window
 * [s0, s1] they span as fractions of the motion (RelPose.lerp: 0 now, 1 the
 * prediction; sweepFraction gives pose j's). 0 when the pair does not move
 * fast or cannot touch on the way: it is queried at `pred` alone, and not
 * swept.
 *
 * The poses lie one half thickness of the thinner body apart (at most
 * MAX_SWEEP_POSES; past that, HEAD_POSES so from the start and
 * MAX_SWEEP_POSES spread over the rest: sweepFraction) over the part of
 * the motion where the two can touch at all: where A's origin, moving in B's frame on the straight line the lerp
 * takes it, is within r_A of B's sample box (sweepWindow), where A's box
 * turned into B's frame overlaps B's (turnedBoxWindow), and, for a pair
 * that hardly turns, where B's origin is within r_B of A's box too. A body shot at
 * a wall covers its whole path in one step, and only the stretch through
 * the wall needs poses: spread over the whole path, 64 poses lay farther
 * apart than the wall was thick, and a bullet at 800 m/s went through 0.2 m
 * of it. When the window ends before the prediction, the prediction is
 * queried after it, as the last pose.
 */
export function sweepPoses(now: RelPose, pred: RelPose, ia: ShapeInfo, ib: ShapeInfo, out: Float64Array): number {
  const thin = Math.min(ia.halfThickness, ib.halfThickness);
  const angle = turnAngle(now, pred);
  const move = sweptMotion(now, pred, ia.radius, ib.radius, angle);
  if (!(move > thin)) return 0;
  if (!sweepWindow(now, pred, ib.box, ia.radius + thin, out)) return 0;
  // The same from the other side, B's origin near A's box, where the pair
  // hardly turns: A's window is as wide as A's radius, and a 10 cm ball shot
  // at 150 m/s at a 2 m wall (the pair's A) had the whole 1.5 m of its step
  // as its window, poses 2.3 cm apart through a 2 cm wall, the first
  // touching one at the wall's middle, where the field's normal runs along
  // the wall: it stopped dead a metre short. B's origin moves on a straight
  // line under the interpolation only while the pair's rotation holds
  // (u = -R^T t); turning by theta moves it off by at most 2 theta max |t|,
  // which the reach takes in, and only while that is under half the
  // thickness (a turning pair keeps A's window alone).
  const bend = 2 * angle * Math.max(norm3(now.tx, now.ty, now.tz), norm3(pred.tx, pred.ty, pred.tz));
  if (bend < 0.5 * thin && !clipBox(now.ux, now.uy, now.uz, pred.ux, pred.uy, pred.uz, ia.box, ib.radius + thin + bend, out)) return 0;
  // Tighter still: A's sample box, turned into B's frame, against B's
  // (the spheres above reach r_A round A's origin, where a long body's box
  // reaches only its half length ahead of it). Grown by half the thickness,
  // not all of it: poses a thickness apart from a window grown by a whole
  // one fall, for a wall that thin body, on its near face (touching, not
  // inside) and then on its middle plane, where the field's normal turns and
  // the first-order extrapolation from that pose pushes a body on through.
  // An L-block shot at a 2 cm wall at 100 m/s, its window exactly 44 poses
  // long, passed through it; from half a thickness early, the first pose
  // inside lies a quarter of the wall deep.
  if (!turnedBoxWindow(now, pred, ia, ib, 0.5 * thin + angle * ia.radius, out)) return 0;
  const s0 = out[0]!, s1 = out[1]!;
  // Poses one half thickness apart, at most MAX_SWEEP_POSES; a longer
  // window gets HEAD_POSES so from its start and MAX_SWEEP_POSES more over
  // the rest (sweepFraction), where its start is where the bodies first
  // touch, give or take what the head covers. A pair that turns fast has
  // its boxes grown by the turn (angle r_A, up to metres), so its window
  // starts that much early, and its poses are spread evenly instead
  // (a step of the whole motion reads as one).
  const sharp = angle * ia.radius <= 0.25 * HEAD_POSES * thin;
  out[2] = sharp ? thin / move : 1;
  const need = Math.ceil(((s1 - s0) * move) / thin);
  const n = need <= MAX_SWEEP_POSES ? Math.max(1, need) : HEAD_POSES + MAX_SWEEP_POSES;
  return s1 < 1 ? n + 1 : n;
}

/** The boxes' axes for turnedBoxWindow (scratch): A's three in B's frame, then one test axis. */
const AXES = new Float64Array(12);

/**
 * Narrows the window [out[0], out[1]] (fractions of the motion from `now`
 * to `pred`) to where A's sample box can overlap B's grown by `reach`;
 * false when it never can. A point x of A lies at t(s) + R(s) x in B's frame;
 * R(s) stays within the step's relative angle of now's R, so it lies within
 * angle |x| <= angle r_A of t(s) + R x: A's box turned by now's R, its
 * centre moving on t's straight line, grown by `reach` (which must take in
 * angle r_A). Two boxes overlap only where they overlap along each of the
 * separating axes of box against box (B's three axes, A's three, and the
 * nine products of one of each); along each, the distance between the
 * centres, linear in s, must be at most the two half widths and the reach,
 * a slab of s. For two boxes the window starts where they first touch
 * (within the reach): a plate turned 45 degrees against a wall, bounded by
 * B's axes alone, was given 27 cm of its path before it could touch.
 */
function turnedBoxWindow(now: RelPose, pred: RelPose, ia: ShapeInfo, ib: ShapeInfo, reach: number, out: Float64Array): boolean {
  const R = now.R, a = ia.box, b = ib.box;
  const cx = 0.5 * (a[0]! + a[3]!), cy = 0.5 * (a[1]! + a[4]!), cz = 0.5 * (a[2]! + a[5]!);
  const hax = 0.5 * (a[3]! - a[0]!), hay = 0.5 * (a[4]! - a[1]!), haz = 0.5 * (a[5]! - a[2]!);
  const hbx = 0.5 * (b[3]! - b[0]!), hby = 0.5 * (b[4]! - b[1]!), hbz = 0.5 * (b[5]! - b[2]!);
  // A's centre less B's, in B's frame, now (d0) and at the prediction (d0 + dd).
  const rcx = R[0]! * cx + R[1]! * cy + R[2]! * cz, rcy = R[3]! * cx + R[4]! * cy + R[5]! * cz, rcz = R[6]! * cx + R[7]! * cy + R[8]! * cz;
  const d0x = now.tx + rcx - 0.5 * (b[0]! + b[3]!), d0y = now.ty + rcy - 0.5 * (b[1]! + b[4]!), d0z = now.tz + rcz - 0.5 * (b[2]! + b[5]!);
  const ddx = pred.tx - now.tx, ddy = pred.ty - now.ty, ddz = pred.tz - now.tz;
  // A's axes in B's frame: R's columns.
  for (let k = 0; k < 3; k++) {
    AXES[3 * k] = R[k]!;
    AXES[3 * k + 1] = R[3 + k]!;
    AXES[3 * k + 2] = R[6 + k]!;
  }
  for (let ax = 0; ax < 15; ax++) {
    let lx: number, ly: number, lz: number;
    if (ax < 3) {
      lx = ax === 0 ? 1 : 0; ly = ax === 1 ? 1 : 0; lz = ax === 2 ? 1 : 0;
    } else if (ax < 6) {
      lx = AXES[3 * (ax - 3)]!; ly = AXES[3 * (ax - 3) + 1]!; lz = AXES[3 * (ax - 3) + 2]!;
    } else {
      // B's axis i times A's axis k: e_i x a.
      const i = ((ax - 6) / 3) | 0, k = (ax - 6) % 3;
      const x = AXES[3 * k]!, y = AXES[3 * k + 1]!, z = AXES[3 * k + 2]!;
      lx = i === 0 ? 0 : i === 1 ? z : -y;
      ly = i === 0 ? -z : i === 1 ? 0 : x;
      lz = i === 0 ? y : i === 1 ? -x : 0;
      // Near-parallel axes: their product is no separating axis the others miss.
      if (lx * lx + ly * ly + lz * lz < 1e-12) continue;
    }
    const len = Math.sqrt(lx * lx + ly * ly + lz * lz);
    const ra = hax * Math.abs(lx * AXES[0]! + ly * AXES[1]! + lz * AXES[2]!)
      + hay * Math.abs(lx * AXES[3]! + ly * AXES[4]! + lz * AXES[5]!)
      + haz * Math.abs(lx * AXES[6]! + ly * AXES[7]! + lz * AXES[8]!);
    const rb = hbx * Math.abs(lx) + hby * Math.abs(ly) + hbz * Math.abs(lz);
    const r = ra + rb + reach * len;
    if (!clipSlab(lx * d0x + ly * d0y + lz * d0z, lx * ddx + ly * ddy + lz * ddz, -r, r, out)) return false;
  }
  return true;
}

/**
 * Narrows the window [out[0], out[1]] to the fractions s at which p + s d
 * lies in [lo, hi]; false when nothing is left.
 */
function clipSlab(p: number, d: number, lo: number, hi: number, out: Float64Array): boolean {
  if (d === 0) return p >= lo && p <= hi;
  let a = (lo - p) / d, b = (hi - p) / d;
  if (a > b) {
    const t = a;
    a = b;
    b = t;
  }
  if (a > out[0]!) out[0] = a;
  if (b < out[1]!) out[1] = b;
  return out[0]! <= out[1]!;
}

/**
 * The fraction of the motion at which pose j (1 .. m) of a sweep of m poses
 * over the window [s0, s1] with poses `step` apart (sweepPoses: out[0..2])
 * lies: the window's n poses, then the prediction (1) when the window ends
 * before it; the last pose is the prediction either way.
 */
export function sweepFraction(s0: number, s1: number, step: number, m: number, j: number): number {
  if (j >= m) return 1;
  const n = s1 < 1 ? m - 1 : m;
  // Poses one step apart cover the whole window: spread them evenly.
  if (n * step >= s1 - s0) return s0 + ((s1 - s0) * j) / n;
  // A window too long for its poses one step apart: the first HEAD_POSES
  // still lie one step apart, the rest spread over what is left, no farther
  // apart than MAX_SWEEP_POSES spread over the whole window. The window
  // starts where the two bodies' boxes first can touch, which for all but a
  // body's hollows (or a fast turn, which grows the boxes) is where they do
  // touch: poses spread evenly over 1.45 m lay 2.3 cm apart, more than a
  // 2 cm wall's thickness, and a plate shot edge first at 200 m/s passed
  // through it.
  const head = Math.min(HEAD_POSES, n - 1);
  if (j <= head) return s0 + step * j;
  const from = s0 + step * head;
  return from + ((s1 - from) * (j - head)) / (n - head);
}

/** Poses a long window's sweep keeps one step apart from its start (sweepFraction). */
const HEAD_POSES = 32;

/**
 * The fraction of the motion from `now` to `pred` (RelPose.lerp: A's origin
 * in B's frame moves on a straight line) where A's origin lies within
 * `reach` of the box [box[0..2], box[3..5]] in B's frame, as [s0, s1] in
 * out[0], out[1] within [0, 1]; false when it never does. (Within reach of
 * the box grown by reach on every side: a superset, as a window must be.)
 */
export function sweepWindow(now: RelPose, pred: RelPose, box: Float64Array, reach: number, out: Float64Array): boolean {
  out[0] = 0;
  out[1] = 1;
  return clipBox(now.tx, now.ty, now.tz, pred.tx, pred.ty, pred.tz, box, reach, out);
}

/** Narrows the window [out[0], out[1]] to where a point moving on the straight line from (x0, y0, z0) to (x1, y1, z1) lies within `reach` of the box; false when nothing is left. */
function clipBox(x0: number, y0: number, z0: number, x1: number, y1: number, z1: number, box: Float64Array, reach: number, out: Float64Array): boolean {
  return clipSlab(x0, x1 - x0, box[0]! - reach, box[3]! + reach, out)
    && clipSlab(y0, y1 - y0, box[1]! - reach, box[4]! + reach, out)
    && clipSlab(z0, z1 - z0, box[2]! - reach, box[5]! + reach, out);
}

/**
 * The first of a pair's m poses, queried as two tasks each from task
 * `first` on, at which it touches (a penetrating sample); the last pose
 * (m - 1, the prediction) when none before it does.
 */
export function firstTouch(res: QueryResult, first: number, m: number): number {
  for (let j = 0; j < m - 1; j++) if (touches(res, first + 2 * j)) return j;
  return m - 1;
}

/** Whether either task of a pose (tasks task and task + 1) reported a penetrating sample. */
function touches(res: QueryResult, task: number): boolean {
  for (let r = res.taskStart[task]!; r < res.taskStart[task + 2]!; r++) if (res.phi[r]! < 0) return true;
  return false;
}

/** The angle (radians) the relative rotation turns through between two relative poses. */
function turnAngle(p: RelPose, q: RelPose): number {
  const dot = Math.abs(p.qx * q.qx + p.qy * q.qy + p.qz * q.qz + p.qw * q.qw);
  return 2 * det.acos(Math.min(1, dot));
}

/**
 * Upper bound of how far a sample that can reach into the other body moves
 * between two relative poses (either side), which turn through `angle`.
 * Every sample of A (within r_A of A's origin) moves at most |dt| +
 * angle r_A in B's frame. Only those
 * that come within r_B of B's origin can enter B, though, and turned about
 * B's origin a sample at x_1 moves by (dR - I) x_1 + e, |e| = |t_2 - dR t_1|:
 * at most e + angle |x_1|, so only those with |x_1| <= (r_B + e) / (1 - angle)
 * can, and they move at most e + angle (r_B + e) / (1 - angle). The smaller
 * bound counts: a ball spinning on a long ramp turns the ramp's far corners
 * through metres in the ball's frame, but none of them can reach the ball
 * (with the first bound alone every rolling step was swept, 64 poses, and
 * its points extrapolated from the first: a ball rolled 2 % short at 60 Hz).
 */
function sweptMotion(p: RelPose, q: RelPose, ra: number, rb: number, angle: number): number {
  let d0 = norm3(p.tx - q.tx, p.ty - q.ty, p.tz - q.tz) + angle * ra;
  let d1 = norm3(p.ux - q.ux, p.uy - q.uy, p.uz - q.uz) + angle * rb;
  if (angle < 0.5) {
    const k = angle / (1 - angle), R = q.R;
    // A's samples in B's frame: e = t_2 + R_2 u_1 (u_1 = -R_1^T t_1).
    const e0 = norm3(
      q.tx + R[0]! * p.ux + R[1]! * p.uy + R[2]! * p.uz,
      q.ty + R[3]! * p.ux + R[4]! * p.uy + R[5]! * p.uz,
      q.tz + R[6]! * p.ux + R[7]! * p.uy + R[8]! * p.uz,
    );
    d0 = Math.min(d0, e0 + k * (rb + e0));
    // B's samples in A's frame: e = u_2 + R_2^T t_1.
    const e1 = norm3(
      q.ux + R[0]! * p.tx + R[3]! * p.ty + R[6]! * p.tz,
      q.uy + R[1]! * p.tx + R[4]! * p.ty + R[7]! * p.tz,
      q.uz + R[2]! * p.tx + R[5]! * p.ty + R[8]! * p.tz,
    );
    d1 = Math.min(d1, e1 + k * (ra + e1));
  }
  return Math.max(d0, d1);
}
