/**
 * Elementary functions that give the same bits on every JavaScript engine.
 *
 * ECMAScript fixes + - * / and Math.sqrt to the correctly rounded IEEE result,
 * but leaves Math.sin, cos, atan2, acos, expm1, ... to the engine, and engines
 * differ in the last bit (Node 20 and Chromium 156 disagree on all of them).
 * One such bit in a rotation at step 15 became centimetres in a 64-box pile
 * by step 60, so the app and the command line ran the same scene to different
 * ends. Everything the simulation computes (scene building, meshes, SDF
 * pseudonormals, the integrator, joints, motors, sleeping, soft bodies) uses
 * these instead, so a scene runs bit for bit the same in Node and in any
 * browser (CPU backend; the GPU's arithmetic is its own).
 *
 * Method: reduce the argument with constants split so the reduction's
 * products are exact, then a Taylor polynomial in Horner form on the reduced
 * range, truncated where the next term is below 2^-60 of the result. Only
 * + - * / and sqrt are used. Accuracy: within 2 ulp of the true value for
 * arguments of everyday size (tested against Math over millions of points);
 * sin and cos reduce exactly for |x| < 8e5 and stay deterministic (if less
 * accurate) beyond.
 */

// pi / 2 in three 33-bit parts (n * part is exact for |n| < 2^20), and what is left.
const PIO2_1 = 1.5707963267341256;
const PIO2_2 = 6.077100506303966e-11;
const PIO2_3 = 2.0222662487111665e-21;
const PIO2_3T = 8.4784276603689e-32;
const TWO_OVER_PI = 0.6366197723675814;
const TWO_PI = 6.283185307179586;
/** |x| below this: the reduction's products n * PIO2_1 and n * PIO2_2 are exact. */
const REDUCE_EXACT = 524288 * PIO2_1;

// Doubles nearest pi / 2, pi, pi / 6, and the remainders (value - double).
const PIO2 = 1.5707963267948966;
const PIO2_LO = 6.123233995736766e-17;
const PI = 3.141592653589793;
const PI_LO = 1.2246467991473532e-16;
const PIO6 = 0.5235987755982989;
const PIO6_LO = -5.360408832255455e-17;
const SQRT3 = Math.sqrt(3);
/** tan(pi / 12) = 2 - sqrt(3): atan's argument is brought below this. */
const TAN_PIO12 = 2 - SQRT3;

// ln 2 in a 42-bit part (k * part exact for |k| <= 1024) and the rest.
const LN2_HI = 0.6931471805598903;
const LN2_LO = 5.497923018708371e-14;
const INV_LN2 = 1.4426950408889634;

// Taylor coefficients, computed once (division is correctly rounded, so these are the same everywhere).
const SIN_C = taylor(1, 8); // -1/3!, +1/5!, ..., +1/17!
const COS_C = taylor(2, 8); // +1/4!, -1/6!, ..., +1/18!
/** (-1)^k / (2k + 1) for k = 1..14: atan's series up to u^29, whose next term is below 2^-60 of u for |u| <= tan(pi/12). */
const ATAN_C = Float64Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? -1 : 1) / (2 * i + 3));
/** 1 / k for k = 0..17 (expm1's nested series; [0] unused). */
const INV_K = Float64Array.from({ length: 18 }, (_, k) => (k === 0 ? 0 : 1 / k));

/** (-1)^k / (2k + first)! for k = 1..n (first 1: sine's; 2: cosine's from x^4 on, sign of x^4 positive). */
function taylor(first: number, n: number): Float64Array {
  const out = new Float64Array(n);
  let f = 1;
  for (let j = 2; j <= first; j++) f *= j;
  let m = first;
  for (let k = 0; k < n; k++) {
    f *= (m + 1) * (m + 2);
    m += 2;
    // sine: x^3 term -1/3!; cosine (from x^4): +1/4!.
    const sign = first === 1 ? (k % 2 === 0 ? -1 : 1) : k % 2 === 0 ? 1 : -1;
    out[k] = sign / f;
  }
  return out;
}

/** Quadrant (0..3) of the last reduce(); the reduced argument is its return value. */
let quadrant = 0;

/** x - n pi/2 with n the nearest integer to x / (pi/2); sets `quadrant` to n mod 4. */
function reduce(x: number): number {
  if (x > -0.7853981633974483 && x < 0.7853981633974483) {
    quadrant = 0;
    return x;
  }
  // Beyond 2^19 quarter turns n * PIO2_1 would not be exact: first take the exact remainder by
  // the double nearest 2 pi (% is exact in IEEE arithmetic), off by about 2.4e-16 x.
  if (!(Math.abs(x) < REDUCE_EXACT)) x = x % TWO_PI;
  const n = Math.round(x * TWO_OVER_PI);
  quadrant = ((n % 4) + 4) % 4;
  return ((x - n * PIO2_1) - n * PIO2_2) - n * PIO2_3 - n * PIO2_3T;
}

/** sin on [-pi/4, pi/4]. */
function sinK(r: number): number {
  const z = r * r;
  const c = SIN_C;
  const p = c[0]! + z * (c[1]! + z * (c[2]! + z * (c[3]! + z * (c[4]! + z * (c[5]! + z * (c[6]! + z * c[7]!))))));
  return r + r * z * p;
}

/** cos on [-pi/4, pi/4]. */
function cosK(r: number): number {
  const z = r * r;
  const c = COS_C;
  const p = c[0]! + z * (c[1]! + z * (c[2]! + z * (c[3]! + z * (c[4]! + z * (c[5]! + z * (c[6]! + z * c[7]!))))));
  const h = 0.5 * z;
  return (1 - h) + z * z * p;
}

/** sin(x), the same bits on every engine. */
export function sin(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const r = reduce(x);
  switch (quadrant) {
    case 0:
      return x === 0 ? x : sinK(r); // keeps -0
    case 1:
      return cosK(r);
    case 2:
      return -sinK(r);
    default:
      return -cosK(r);
  }
}

/** cos(x), the same bits on every engine. */
export function cos(x: number): number {
  if (!Number.isFinite(x)) return NaN;
  const r = reduce(x);
  switch (quadrant) {
    case 0:
      return cosK(r);
    case 1:
      return -sinK(r);
    case 2:
      return -cosK(r);
    default:
      return sinK(r);
  }
}

/** atan on [0, tan(pi/12)]. */
function atanK(u: number): number {
  const z = u * u;
  const c = ATAN_C;
  let p = c[13]!;
  for (let k = 12; k >= 0; k--) p = c[k]! + z * p;
  return u + u * z * p;
}

/** atan(a) for a >= 0 (a may be Infinity). */
function atanPos(a: number): number {
  if (a > 1) return PIO2 - (atanUnit(1 / a) - PIO2_LO);
  return atanUnit(a);
}

/** atan(t) for t in [0, 1]. */
function atanUnit(t: number): number {
  if (t <= TAN_PIO12) return atanK(t);
  // atan(t) = pi/6 + atan(u), u = tan(atan(t) - pi/6) = (sqrt3 t - 1) / (sqrt3 + t), 0 <= u <= tan(pi/12).
  const u = (SQRT3 * t - 1) / (SQRT3 + t);
  return PIO6 + (atanK(u) + PIO6_LO);
}

/** atan(x), the same bits on every engine. */
export function atan(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === 0) return x;
  return x < 0 ? -atanPos(-x) : atanPos(x);
}

/** atan2(y, x) as ECMAScript defines it (signed zeros and infinities included), the same bits on every engine. */
export function atan2(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  const neg = y < 0 || Object.is(y, -0);
  let a: number;
  if (y === 0) {
    // +0 / -0 by the sign of x (including -0).
    a = x > 0 || Object.is(x, 0) ? 0 : PI;
  } else if (x === 0) {
    a = PIO2;
  } else if (!Number.isFinite(x)) {
    if (!Number.isFinite(y)) a = x > 0 ? PIO2 / 2 : PI - PIO2 / 2;
    else a = x > 0 ? 0 : PI;
  } else if (!Number.isFinite(y)) {
    a = PIO2;
  } else {
    // The smaller of |y / x| and |x / y|, so atan's argument is in [0, 1] and pi - t keeps its low bits.
    const ay = Math.abs(y), ax = Math.abs(x);
    if (ay <= ax) {
      const t = atanUnit(ay / ax);
      a = x > 0 ? t : PI - (t - PI_LO);
    } else {
      const t = atanUnit(ax / ay);
      a = x > 0 ? PIO2 - (t - PIO2_LO) : PIO2 + (t + PIO2_LO);
    }
  }
  return neg ? -a : a;
}

/** acos(x), the same bits on every engine (NaN outside [-1, 1]). */
export function acos(x: number): number {
  if (!(x >= -1 && x <= 1)) return NaN;
  return atan2(Math.sqrt((1 - x) * (1 + x)), x);
}

/** asin(x), the same bits on every engine (NaN outside [-1, 1]). */
export function asin(x: number): number {
  if (!(x >= -1 && x <= 1)) return NaN;
  if (x === 0) return x;
  return atan2(x, Math.sqrt((1 - x) * (1 + x)));
}

/** e^r - 1 for |r| <= 0.5, as r (1 + r/2 (1 + r/3 (1 + ...))). */
function expm1K(r: number): number {
  let p = 1;
  for (let k = 17; k >= 2; k--) p = 1 + r * INV_K[k]! * p;
  return r * p;
}

/** 2^k for an integer k in [-1022, 1023], exactly. */
function pow2(k: number): number {
  let s = 1;
  let b = k < 0 ? 0.5 : 2;
  let e = Math.abs(k);
  while (e > 0) {
    if (e & 1) s *= b;
    b *= b;
    e >>= 1;
  }
  return s;
}

/** e^x - 1, accurate for small x too, the same bits on every engine. */
export function expm1(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x === 0) return x;
  if (x > -0.5 && x < 0.5) return expm1K(x);
  if (x < -40) return -1; // e^x below 2^-57: -1 to double precision
  if (x > 709.8) return Infinity;
  const k = Math.round(x * INV_LN2);
  const r = (x - k * LN2_HI) - k * LN2_LO; // |r| <= ln2 / 2 (+ rounding)
  const er = expm1K(r) + 1;
  // 2^k may be 2^1024 (x near 709.78): scale in two steps.
  const e = k > 1023 ? er * 2 * pow2(k - 1) : er * pow2(k);
  return e - 1;
}

/** 1 / (2k + 1), the atanh series' coefficients. */
const INV_ODD = Float64Array.from({ length: 15 }, (_, k) => 1 / (2 * k + 1));

/** log(1 + u) for 1 + u in [sqrt(1/2), sqrt(2)]: 2 atanh(z), z = u / (2 + u), |z| <= 0.172, by its series. */
function log1pReduced(u: number): number {
  const z = u / (2 + u), z2 = z * z;
  let p = INV_ODD[14]!;
  for (let k = 13; k >= 0; k--) p = INV_ODD[k]! + z2 * p;
  return 2 * z * p;
}

const SQRT2 = Math.SQRT2, SQRT1_2 = Math.SQRT1_2;
const bits = new DataView(new ArrayBuffer(8));

/** The natural logarithm, the same bits on every engine (NaN below 0, -Infinity at 0). */
export function log(x: number): number {
  if (!(x > 0)) return x === 0 ? -Infinity : NaN;
  if (x === Infinity) return x;
  // x = m 2^e with m in [sqrt(1/2), sqrt(2)), e read from the exponent bits (subnormals scaled up first).
  let e = 0, m = x;
  if (m < 2.2250738585072014e-308) { m *= 18014398509481984; e = -54; } // 2^54
  bits.setFloat64(0, m);
  const k = ((bits.getUint32(0) >>> 20) & 0x7ff) - 1023;
  m /= pow2(k);
  e += k;
  if (m >= SQRT2) { m /= 2; e++; }
  else if (m < SQRT1_2) { m *= 2; e--; }
  return e * LN2_HI + (e * LN2_LO + log1pReduced(m - 1));
}

/** log(1 + u), accurate for small u too, the same bits on every engine. */
export function log1p(u: number): number {
  if (Number.isNaN(u)) return NaN;
  if (u === 0) return u;
  const t = 1 + u;
  return t >= SQRT1_2 && t < SQRT2 ? log1pReduced(u) : log(t);
}

/** asinh(x), the same bits on every engine. */
export function asinh(x: number): number {
  if (Number.isNaN(x) || x === 0 || !Number.isFinite(x)) return x;
  const a = Math.abs(x);
  let r: number;
  if (a > 268435456) r = log(a) + (LN2_HI + LN2_LO); // 2^28: sqrt(1 + a^2) = a to double precision
  else if (a < 3.725290298461914e-9) r = a; // 2^-28: asinh(a) = a - a^3 / 6 rounds to a
  else r = log1p(a + (a * a) / (1 + Math.sqrt(1 + a * a)));
  return x < 0 ? -r : r;
}
