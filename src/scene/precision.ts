/**
 * Whether 64-bit floats resolve a body's position finely enough for its
 * contacts (docs/SCENE_FORMAT.md, "Limits"). Positions are world
 * coordinates in doubles; a contact's depth is a difference of two of them,
 * so it is only as fine as the spacing of doubles at the body's coordinate:
 * 2.2e-16 times the coordinate. That spacing is compared with the body's
 * SDF cell (the scale its contacts are resolved at):
 *
 *  - more than a millionth of a cell: a warning (depths and small moves lose
 *    digits; a resting body may creep);
 *  - more than a thousandth of a cell: an error (a body cannot settle, or
 *    sinks through what it rests on).
 *
 * Beyond 1e9 m every position is refused when the scene is read
 * (src/scene/magnitudes.ts, POSITION_MAX), whatever the shape.
 */
import { InputError } from '../errors.ts';
import { fileLabel } from '../util/echo.ts';
import { doubleSpacing } from './magnitudes.ts';

/** Spacing of doubles over SDF cell above which a warning is given. */
export const PRECISION_WARN = 1e-6;
/** Spacing of doubles over SDF cell above which the position is refused. */
export const PRECISION_ERROR = 1e-3;

/** The largest |coordinate| at which doubles lie at most `spacing` apart. */
export function farthestWithSpacing(spacing: number): number {
  // Doubles in [2^e, 2^(e+1)) lie 2^(e-52) apart.
  return 2 ** (Math.floor(Math.log2(spacing)) + 53);
}

function short(x: number): string {
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(2).replace(/\.?0+e/, 'e').replace('e+', 'e');
  return String(Number(x.toPrecision(3)));
}

/**
 * Checks where a body's contacts are resolved against its shape's SDF cell
 * (m): its `position` plus its centre of mass in the shape's own frame
 * (`comOffset`: a mesh whose file places it far from its own origin has its
 * vertices, and the body, out there). Throws an InputError at `path` where
 * doubles are too coarse, warns where they are coarse. Planes (no cell) are
 * not checked here.
 */
export function checkPositionPrecision(
  position: readonly number[],
  cell: number,
  file: string,
  path: string,
  warn?: (message: string) => void,
  comOffset: readonly number[] = [0, 0, 0],
): void {
  let far = 0;
  for (const x of position) far = Math.max(far, Math.abs(x));
  const c = Math.sqrt(comOffset[0]! * comOffset[0]! + comOffset[1]! * comOffset[1]! + comOffset[2]! * comOffset[2]!);
  // Its own coordinates count where they reach past the position's.
  const own = c > far;
  far += c;
  const spacing = doubleSpacing(far);
  if (spacing <= cell * PRECISION_WARN) return;
  const said = `at ${short(far)} m from the origin 64-bit floats lie ${short(spacing)} m apart`;
  const ownSaid = own ? ` (its shape's centre of mass lies ${short(c)} m from the shape's own origin: the mesh's coordinates are that far out)` : '';
  if (spacing > cell * PRECISION_ERROR) {
    const limit = farthestWithSpacing(cell * PRECISION_ERROR);
    throw new InputError(
      `expected coordinates within ${short(limit)} m of the origin for this body (its SDF cell is ${short(cell)} m): ` +
        `${said}, more than a thousandth of the cell, too coarse for its contacts; got [${position.join(', ')}]${ownSaid} ` +
        (own ? '(move the mesh near its own origin, and place it with "position")' : '(move the scene closer to the origin)'),
      file,
      path,
    );
  }
  const limit = farthestWithSpacing(cell * PRECISION_WARN);
  warn?.(
    `${fileLabel(file)}: ${path}: ${said}${ownSaid}, more than a millionth of the body's SDF cell (${short(cell)} m): its contacts lose precision ` +
      `(within ${short(limit)} m of the origin they would not)`,
  );
}
