/**
 * Small Float64 helpers for the solver. Quaternions are [x, y, z, w] at an
 * offset in a flat array; 3x3 matrices are row-major, 9 numbers at an offset.
 * Every function writes into a destination so hot loops allocate nothing.
 */
import * as det from '../util/detmath.ts';

export type Arr = Float64Array | number[];

/**
 * Length of (x, y, z). Not Math.hypot, which is several times slower in V8
 * and guards an over- and underflow the solver's magnitudes never reach.
 */
export function norm3(x: number, y: number, z: number): number {
  return Math.sqrt(x * x + y * y + z * z);
}

/** Length of (x, y) (see norm3). */
export function norm2(x: number, y: number): number {
  return Math.sqrt(x * x + y * y);
}

/** Rotation matrix (row-major) of the unit quaternion q[o..o+3] into m[mo..mo+8]. */
export function quatToMat3(q: Arr, o: number, m: Arr, mo = 0): void {
  const x = q[o]!, y = q[o + 1]!, z = q[o + 2]!, w = q[o + 3]!;
  m[mo] = 1 - 2 * (y * y + z * z);
  m[mo + 1] = 2 * (x * y - z * w);
  m[mo + 2] = 2 * (x * z + y * w);
  m[mo + 3] = 2 * (x * y + z * w);
  m[mo + 4] = 1 - 2 * (x * x + z * z);
  m[mo + 5] = 2 * (y * z - x * w);
  m[mo + 6] = 2 * (x * z - y * w);
  m[mo + 7] = 2 * (y * z + x * w);
  m[mo + 8] = 1 - 2 * (x * x + y * y);
}

/** bodyPoint's scratch. */
const POINT_ROT = new Float64Array(9);

/**
 * World position of body i's local point c at the pose (pos[3i..], quat[4i..]): pos + R c, into out[o..o+3).
 */
export function bodyPoint(pos: Arr, quat: Arr, i: number, c: ArrayLike<number>, out: Arr, o = 0): void {
  let x = pos[3 * i]!, y = pos[3 * i + 1]!, z = pos[3 * i + 2]!;
  if (c[0] !== 0 || c[1] !== 0 || c[2] !== 0) {
    const R = POINT_ROT;
    quatToMat3(quat, 4 * i, R, 0);
    x += R[0]! * c[0]! + R[1]! * c[1]! + R[2]! * c[2]!;
    y += R[3]! * c[0]! + R[4]! * c[1]! + R[5]! * c[2]!;
    z += R[6]! * c[0]! + R[7]! * c[1]! + R[8]! * c[2]!;
  }
  out[o] = x;
  out[o + 1] = y;
  out[o + 2] = z;
}

/**
 * q <- the rotation by |omega| dt about omega, then q (reading q from
 * src[so..], writing dst[d..]; may alias): dq q with dq = (sin(|omega| dt / 2)
 * omega / |omega|, cos(|omega| dt / 2)), renormalised against round-off.
 *
 * docs/ALGORITHM.md 3 (eq. 4.10) writes the step as q + dt/2 (omega, 0) q
 * renormalised: the same rotation axis, but the angle 2 atan(|omega| dt / 2),
 * short by (|omega| dt)^3 / 12 a step, so a body spinning at 50 rad/s with
 * dt = 0.01 turned 49.0 rad in a second instead of 50. The exact angle is
 * that map with omega scaled by tan(|omega| dt / 2) / (|omega| dt / 2),
 * along omega itself, so what integrate.ts's midpoint rule conserves (|L|,
 * L, the kinetic energy) it still conserves exactly.
 */
export function integrateQuat(src: Arr, so: number, wx: number, wy: number, wz: number, dt: number, dst: Arr, d: number): void {
  const x = src[so]!, y = src[so + 1]!, z = src[so + 2]!, w = src[so + 3]!;
  const wl = Math.sqrt(wx * wx + wy * wy + wz * wz);
  // c = cos(half angle), s = sin(half angle) / |omega| (dt/2 as |omega| -> 0).
  let c = 1, s = 0.5 * dt;
  if (wl > 0) {
    const half = 0.5 * wl * dt;
    c = det.cos(half);
    s = det.sin(half) / wl;
  }
  // c q + s (omega, 0) * q, quaternion product with omega as a pure quaternion.
  let nx = c * x + s * (wx * w + wy * z - wz * y);
  let ny = c * y + s * (wy * w + wz * x - wx * z);
  let nz = c * z + s * (wz * w + wx * y - wy * x);
  let nw = c * w + s * (-wx * x - wy * y - wz * z);
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
  nx /= len;
  ny /= len;
  nz /= len;
  nw /= len;
  dst[d] = nx;
  dst[d + 1] = ny;
  dst[d + 2] = nz;
  dst[d + 3] = nw;
}

/** c = a * b for quaternions at offsets (Hamilton product; c may not alias). */
export function quatMul(a: Arr, ao: number, b: Arr, bo: number, c: Arr, co: number): void {
  const ax = a[ao]!, ay = a[ao + 1]!, az = a[ao + 2]!, aw = a[ao + 3]!;
  const bx = b[bo]!, by = b[bo + 1]!, bz = b[bo + 2]!, bw = b[bo + 3]!;
  c[co] = aw * bx + ax * bw + ay * bz - az * by;
  c[co + 1] = aw * by - ax * bz + ay * bw + az * bx;
  c[co + 2] = aw * bz + ax * by - ay * bx + az * bw;
  c[co + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** R_w^-1 = R I0^-1 R^T (4.19): world inverse inertia from the body-frame one. */
export function worldInverseInertia(R: Arr, ro: number, I0: Arr, io: number, out: Arr, oo: number): void {
  // T = R * I0
  const t = scratch9;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      t[i * 3 + j] = R[ro + i * 3]! * I0[io + j]! + R[ro + i * 3 + 1]! * I0[io + 3 + j]! + R[ro + i * 3 + 2]! * I0[io + 6 + j]!;
    }
  }
  // out = T * R^T
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      out[oo + i * 3 + j] = t[i * 3]! * R[ro + j * 3]! + t[i * 3 + 1]! * R[ro + j * 3 + 1]! + t[i * 3 + 2]! * R[ro + j * 3 + 2]!;
    }
  }
}
const scratch9 = new Float64Array(9);

/**
 * Adds the collision matrix of one body, K = (1/m) I - r~ I^-1 r~ (7.8), to K
 * (9 numbers at 0). r~ is the cross-product matrix of the lever arm r =
 * r[ro..ro+3); Iw[io..io+9) the body's world inverse inertia. The arm comes
 * in an array: a call the optimiser does not inline boxes every
 * floating-point argument on the heap, and the contact solvers make this
 * call twice per impulse.
 */
export function addCollisionMatrix(invMass: number, Iw: Arr, io: number, r: Arr, ro: number, K: Arr): void {
  const rx = r[ro]!, ry = r[ro + 1]!, rz = r[ro + 2]!;
  // K += invMass * I + r~^T Iw r~  (since -r~ A r~ = r~^T A r~)
  // M = Iw * r~ ; r~ = [[0,-rz,ry],[rz,0,-rx],[-ry,rx,0]]
  const a00 = Iw[io]!, a01 = Iw[io + 1]!, a02 = Iw[io + 2]!;
  const a10 = Iw[io + 3]!, a11 = Iw[io + 4]!, a12 = Iw[io + 5]!;
  const a20 = Iw[io + 6]!, a21 = Iw[io + 7]!, a22 = Iw[io + 8]!;
  const m00 = a01 * rz - a02 * ry, m01 = -a00 * rz + a02 * rx, m02 = a00 * ry - a01 * rx;
  const m10 = a11 * rz - a12 * ry, m11 = -a10 * rz + a12 * rx, m12 = a10 * ry - a11 * rx;
  const m20 = a21 * rz - a22 * ry, m21 = -a20 * rz + a22 * rx, m22 = a20 * ry - a21 * rx;
  // r~^T = [[0, rz, -ry], [-rz, 0, rx], [ry, -rx, 0]]
  K[0] = K[0]! + invMass + rz * m10 - ry * m20;
  K[1] = K[1]! + rz * m11 - ry * m21;
  K[2] = K[2]! + rz * m12 - ry * m22;
  K[3] = K[3]! - rz * m00 + rx * m20;
  K[4] = K[4]! + invMass - rz * m01 + rx * m21;
  K[5] = K[5]! - rz * m02 + rx * m22;
  K[6] = K[6]! + ry * m00 - rx * m10;
  K[7] = K[7]! + ry * m01 - rx * m11;
  K[8] = K[8]! + invMass + ry * m02 - rx * m12;
}

/**
 * The velocity v + w x r of the point at lever arm r = r[ro..ro+2] of body i
 * (v, w: 3 numbers a body) into out[o..o+2]. The arm comes in an array, as
 * in addCollisionMatrix.
 */
export function pointVelocity(v: Arr, w: Arr, i: number, r: Arr, ro: number, out: Arr, o = 0): void {
  const j = 3 * i;
  const rx = r[ro]!, ry = r[ro + 1]!, rz = r[ro + 2]!;
  out[o] = v[j]! + w[j + 1]! * rz - w[j + 2]! * ry;
  out[o + 1] = v[j + 1]! + w[j + 2]! * rx - w[j]! * rz;
  out[o + 2] = v[j + 2]! + w[j]! * ry - w[j + 1]! * rx;
}

/**
 * The relative velocity (v1 + w1 x r1) - (v2 + w2 x r2) at a point of bodies
 * b1 and b2, lever arms r1 = r[ro..ro+2] and r2 = r[ro+3..ro+5], into
 * out[o..o+2] (pointVelocity of each body).
 */
export function relativePointVelocity(v: Arr, w: Arr, b1: number, b2: number, r: Arr, ro: number, out: Arr, o = 0): void {
  const u = scratch6;
  pointVelocity(v, w, b1, r, ro, u, 0);
  pointVelocity(v, w, b2, r, ro + 3, u, 3);
  out[o] = u[0]! - u[3]!;
  out[o + 1] = u[1]! - u[4]!;
  out[o + 2] = u[2]! - u[5]!;
}
const scratch6 = new Float64Array(6);

/** Inverse of the 3x3 matrix m into out; returns false if singular. */
export function invert3(m: Arr, out: Arr): boolean {
  const a = m[0]!, b = m[1]!, c = m[2]!, d = m[3]!, e = m[4]!, f = m[5]!, g = m[6]!, h = m[7]!, i = m[8]!;
  const A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const scale = Math.abs(a) + Math.abs(e) + Math.abs(i);
  if (!(Math.abs(det) > 1e-30 * scale * scale * scale) || !Number.isFinite(det)) return false;
  const s = 1 / det;
  out[0] = A * s;
  out[1] = -(b * i - c * h) * s;
  out[2] = (b * f - c * e) * s;
  out[3] = B * s;
  out[4] = (a * i - c * g) * s;
  out[5] = -(a * f - c * d) * s;
  out[6] = C * s;
  out[7] = -(a * h - b * g) * s;
  out[8] = (a * e - b * d) * s;
  return true;
}

/**
 * Solves the dense n x n system m x = b in place (m row-major, n <= 6 or so;
 * b becomes x), Gaussian elimination with partial pivoting; false when a
 * pivot is under 1e-12 of the largest entry (singular for our purposes).
 */
export function solveDense(m: Arr, b: Arr, n: number): boolean {
  let scale = 0;
  for (let k = 0; k < n * n; k++) scale = Math.max(scale, Math.abs(m[k]!));
  if (!(scale > 0)) return false;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[n * r + c]!) > Math.abs(m[n * p + c]!)) p = r;
    const piv = m[n * p + c]!;
    if (!(Math.abs(piv) > 1e-12 * scale)) return false;
    if (p !== c) {
      for (let k = 0; k < n; k++) { const t = m[n * c + k]!; m[n * c + k] = m[n * p + k]!; m[n * p + k] = t; }
      const t = b[c]!; b[c] = b[p]!; b[p] = t;
    }
    for (let r = c + 1; r < n; r++) {
      const f = m[n * r + c]! / piv;
      if (f === 0) continue;
      for (let k = c; k < n; k++) m[n * r + k] = m[n * r + k]! - f * m[n * c + k]!;
      b[r] = b[r]! - f * b[c]!;
    }
  }
  for (let c = n - 1; c >= 0; c--) {
    let v = b[c]!;
    for (let k = c + 1; k < n; k++) v -= m[n * c + k]! * b[k]!;
    b[c] = v / m[n * c + c]!;
  }
  return true;
}

/** A small deterministic PRNG (xorshift32) for the shuffled pair order. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = (seed >>> 0) || 0x9e3779b9;
  }
  /** The generator's state: set back to a value read here, it draws the same numbers again. */
  get state(): number {
    return this.s;
  }
  set state(v: number) {
    this.s = (v >>> 0) || 0x9e3779b9;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.s = x;
    return x / 4294967296;
  }
}

/**
 * A unit tangent basis (t1, t2) of the unit normal n, written to out[o..o+5]:
 * t1 is n crossed with the world axis least aligned with it, t2 = n x t1.
 * One definition for every place that needs tangent directions (patch
 * spread, static friction, PGS friction rows), so they all agree.
 */
export function tangentBasis(nx: number, ny: number, nz: number, out: Arr, o = 0): void {
  let t1x: number, t1y: number, t1z: number;
  if (Math.abs(nx) < 0.6) { t1x = 0; t1y = nz; t1z = -ny; } else { t1x = -nz; t1y = 0; t1z = nx; }
  const tl = Math.sqrt(t1x * t1x + t1y * t1y + t1z * t1z);
  t1x /= tl; t1y /= tl; t1z /= tl;
  out[o] = t1x; out[o + 1] = t1y; out[o + 2] = t1z;
  out[o + 3] = ny * t1z - nz * t1y;
  out[o + 4] = nz * t1x - nx * t1z;
  out[o + 5] = nx * t1y - ny * t1x;
}

/** v rotated by the unit quaternion q = [x, y, z, w]: v + 2w (u x v) + 2 u x (u x v). */
export function rotateByQuat(q: Arr, qo: number, vx: number, vy: number, vz: number, out: Arr, o = 0): void {
  const x = q[qo]!, y = q[qo + 1]!, z = q[qo + 2]!, w = q[qo + 3]!;
  const cx = y * vz - z * vy, cy = z * vx - x * vz, cz = x * vy - y * vx;
  out[o] = vx + 2 * (w * cx + y * cz - z * cy);
  out[o + 1] = vy + 2 * (w * cy + z * cx - x * cz);
  out[o + 2] = vz + 2 * (w * cz + x * cy - y * cx);
}

/** out = M v for a row-major 3x3 at mo (out may not alias v). */
export function mulMat3Vec(M: Arr, mo: number, vx: number, vy: number, vz: number, out: Arr, o = 0): void {
  out[o] = M[mo]! * vx + M[mo + 1]! * vy + M[mo + 2]! * vz;
  out[o + 1] = M[mo + 3]! * vx + M[mo + 4]! * vy + M[mo + 5]! * vz;
  out[o + 2] = M[mo + 6]! * vx + M[mo + 7]! * vy + M[mo + 8]! * vz;
}
