/**
 * The limits on a scene's magnitudes (docs/SCENE_FORMAT.md, "Limits on
 * magnitudes") and the checks and message helpers they share: validate.ts
 * reads bodies, joints and motors with them, forcesValidate.ts forces, and
 * precision.ts compares a position's float spacing with a body's field.
 */
import { describeValue, indexPath, type Reader } from './reader.ts';

/**
 * The magnitudes a scene may give (docs/SCENE_FORMAT.md, "Limits"): finite
 * is not enough, since every derived figure (energy, impulses, positions a
 * run later reaches) must stay finite and meaningful too.
 *
 *  - position: |coordinate| <= 1e9 m. There 64-bit floats lie 1.2e-7 m
 *    apart, a two-thousandth of the SDF cell of a 1 cm shape (48 cells); a
 *    body at 1e300 m cannot move by less than 1e284 m. Closer in, building
 *    the world compares the spacing with each body's own SDF cell
 *    (src/scene/precision.ts).
 *  - gravity: |g| <= 1e6 m/s^2 (some 100 000 g, the most an ultracentrifuge
 *    reaches; no solid stays rigid beyond it).
 *  - velocity: |v| <= 299792458 m/s, the speed of light: a rigid body in
 *    Newtonian mechanics moves far slower, and a step moves it at most
 *    3e7 m (at the largest dt).
 *  - angularVelocity: |w| dt <= pi, at most half a turn per step: beyond it
 *    the steps cannot tell which way the body turns (a step of more than
 *    half a turn looks like one the other way, and the predicted poses the
 *    contacts are found at alias). A faster spin needs a smaller dt.
 */
export const POSITION_MAX = 1e9;
export const GRAVITY_MAX = 1e6;
export const SPEED_MAX = 299_792_458;
export const TURN_PER_STEP_MAX = Math.PI;

export function vectorText(v: readonly number[]): string {
  return `[${v.map((x) => describeValue(x)).join(', ')}]`;
}

/** Short number for messages: 4 significant digits, exponent form far from 1. */
export function shortNumber(x: number): string {
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(3).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(Number(x.toPrecision(4)));
}

/** Refuses a coordinate beyond POSITION_MAX (at `path[k]`). */
export function checkPosition(r: Reader, v: readonly number[], path: string): void {
  for (let k = 0; k < v.length; k++) {
    if (Math.abs(v[k]!) > POSITION_MAX) {
      r.fail(
        indexPath(path, k),
        `expected a coordinate from -1e9 to 1e9 m (farther out, 64-bit floats are coarser than contacts need: ` +
          `at ${shortNumber(Math.abs(v[k]!))} m they lie ${shortNumber(doubleSpacing(v[k]!))} m apart), got ${describeValue(v[k])}`,
      );
    }
  }
}

/** The distance from |x| to the next larger 64-bit float. */
export function doubleSpacing(x: number): number {
  const a = Math.abs(x);
  if (a < 2 ** -1022) return Number.MIN_VALUE;
  let e = Math.floor(Math.log2(a));
  // log2 may round up just below a power of two.
  if (2 ** e > a) e--;
  return 2 ** (e - 52);
}
