/**
 * The narrow phase's margin policy: how far beyond contact a pair's query
 * reaches (its margins), how far the pair may then move before its cached
 * samples could miss one that matters (its motion limits), and how far it
 * has moved.
 *
 * A pair is queried with a margin: the query returns every sample whose
 * phi is below it, and the cache evaluates them to first order at later
 * poses (sampleCache.ts). The field (extended beyond its grid box, query.ts)
 * changes by at most L = 1 + sqrt(3) per unit of motion, sqrt(3) within the
 * box, so a sample the query did not return (phi >= margin) cannot come
 * within the patch band of a contact while every sample has moved less than
 *
 *   limit = min((margin - band) / sqrt(3), (max(margin, pad) - band) / L)
 *
 * in B's frame (pad: the smallest value on B's grid box, where samples outside
 * it start): the narrow phase queries the pair again only then, or once it
 * has moved REQUERY_CELLS (narrowphase.ts). Since the cached samples are
 * sorted by phi_0 and a first-order value moves by at most the motion, an
 * evaluation stops at the first sample too far out to matter (sortCutoff).
 *
 * The margin grows with the pair's speed (MARGIN_STEPS steps of its relative
 * motion, between MIN_MARGIN_CELLS and MAX_MARGIN_CELLS cells of the field
 * sampled), so a pair that an impulse moves a little within a step keeps its
 * cache.
 */
import type { SdfGrid } from '../sdf/grid.ts';
import { pairCell } from './material.ts';
import { norm3 } from './math.ts';
import { PAIR_PLANE, REF_STRIDE, type PairList } from './pairs.ts';
import { PATCH_BAND } from './patches.ts';
import type { RelPose } from './relPose.ts';
import type { RigidShape } from './shape.ts';
import type { StepContext } from './stepContext.ts';

const SQRT3 = Math.sqrt(3);
/** Lipschitz constant of the query's field extended beyond the grid box (query.ts). */
const L_EXT = 1 + SQRT3;
/** Smallest and largest query margin, in cells of the field sampled. */
const MIN_MARGIN_CELLS = 1;
const MAX_MARGIN_CELLS = 2;
/** The margin covers this many steps' worth of the pair's relative motion. */
const MARGIN_STEPS = 1;

/** What the narrow phase keeps per world shape. */
export interface ShapeInfo {
  /** Cell size of its field (0 for a plane). */
  cell: number;
  /** The smallest value on its grid box (where samples beyond the box start); Infinity for a plane. */
  pad: number;
  /** Half its thinnest wall: the deepest point inside (-min phi); Infinity for a plane. */
  halfThickness: number;
  /** Largest distance of a sample from the shape's origin. */
  radius: number;
  /** The samples' box in the shape's frame, [min x, min y, min z, max x, max y, max z] (infinite for a plane). */
  box: Float64Array;
}

/**
 * How far into its cache, in phi0, pair k's evaluations can look while the
 * cache is kept: the band plus the larger motion limit (a kept pair moved
 * less than both limits, MotionGauge.motion); everything for a swept pair,
 * which is evaluated without a stop.
 */
export function sortCutoff(pairs: PairList, k: number): number {
  if (pairs.swept[k] === 1) return Infinity;
  const l0 = pairs.limit0[k]!;
  return pairs.band[k]! + (pairs.kind[k] === PAIR_PLANE ? l0 : Math.max(l0, pairs.limit1[k]!));
}

/**
 * How far a pair's samples moved from a reference pose (its query's, or the
 * pose its points were made at), against the motion limits of its margins.
 * The narrow phase keeps one and reads what the last call left in it.
 */
export class MotionGauge {
  /** The larger motion of the two sides, as computed by the last motion() or moved() call. */
  last = 0;
  /** Side 1's motion (B's samples in A's frame) of the last call; 0 for a plane pair. */
  side1 = 0;

  /**
   * How far pair k's samples have moved since its query, as a fraction of
   * the limit that keeps its cache complete (>= 1: query again); the motion
   * itself is left in `last`.
   */
  motion(pairs: PairList, k: number, rel: RelPose, ia: ShapeInfo, ib: ShapeInfo, plane: boolean): number {
    const o = REF_STRIDE * k;
    const d0 = this.moved(pairs.ref, o, rel, ia, ib, plane);
    if (plane) return d0 / pairs.limit0[k]!;
    return Math.max(d0 / pairs.limit0[k]!, this.side1 / pairs.limit1[k]!);
  }

  /**
   * How far the samples of a pair moved between the relative pose stored at
   * r[o..] (REF_STRIDE floats) and `rel`: side 0 (A's samples in B's frame)
   * is returned, side 1 left in side1 (0 for a plane pair), their larger in
   * last. An upper bound: translation plus rotation angle times the
   * samples' radius.
   */
  moved(r: Float64Array, o: number, rel: RelPose, ia: ShapeInfo, ib: ShapeInfo, plane: boolean): number {
    // Rotation angle between the poses: 2 asin |vec(q conj(q_ref))|, bounded above.
    const bx = -r[o]!, by = -r[o + 1]!, bz = -r[o + 2]!, bw = r[o + 3]!;
    const vx = rel.qw * bx + rel.qx * bw + rel.qy * bz - rel.qz * by;
    const vy = rel.qw * by - rel.qx * bz + rel.qy * bw + rel.qz * bx;
    const vz = rel.qw * bz + rel.qx * by - rel.qy * bx + rel.qz * bw;
    const s2 = vx * vx + vy * vy + vz * vz;
    const sv = Math.sqrt(s2);
    const angle = sv > 0.5 ? Math.PI : 2 * sv + sv * s2;
    const d0 = norm3(rel.tx - r[o + 4]!, rel.ty - r[o + 5]!, rel.tz - r[o + 6]!) + angle * ia.radius;
    // Side 1: B's samples in A's frame (translation -R^T t of each pose).
    const d1 = plane ? 0 : refInverseDistance(r, o, rel) + angle * ib.radius;
    this.side1 = d1;
    this.last = Math.max(d0, d1);
    return d0;
  }
}

/**
 * The margins of pair k's next query, from how fast its bodies move now:
 * enough for MARGIN_STEPS steps of their relative motion (an impulse may
 * reverse an approach within the step; the rest carries the cache into the
 * next step), within [MIN_MARGIN_CELLS, MAX_MARGIN_CELLS] cells of each
 * field but never under the band plus a step's fall |g| dt^2 (NarrowPhase.nearest);
 * and the motion limits those margins give (see the file comment). `smallest`:
 * the smallest margins, whatever the speed (for a swept pair, sweep.ts).
 */
export function chooseMargins(ctx: StepContext, pairs: PairList, k: number, ia: ShapeInfo, ib: ShapeInfo, plane: boolean, smallest = false): void {
  const a = pairs.a[k]!, b = pairs.b[k]!;
  const band = PATCH_BAND * pairCell(ctx.shapes, ctx.bodies, a, b);
  pairs.band[k] = band;
  const move = smallest ? 0 : MARGIN_STEPS * ctx.dt * (bodySpeed(ctx, a, ia.radius) + bodySpeed(ctx, b, ib.radius));
  // Side 0: A's samples against B's field (a plane: B is the plane, A's cells count).
  const cell0 = plane ? ia.cell : ib.cell;
  // At least a step of free fall beyond the band, whatever the cells: a
  // pair stopped at that gap hovers, and SequentialSolver.closeGap must
  // find the gap in the cache to close it.
  const g = ctx.gravity;
  const floor = band + Math.hypot(g[0], g[1], g[2]) * ctx.dt * ctx.dt;
  const m0 = Math.max(Math.min(Math.max(band + L_EXT * move, MIN_MARGIN_CELLS * cell0), MAX_MARGIN_CELLS * cell0), floor);
  pairs.margin0[k] = m0;
  pairs.limit0[k] = plane ? m0 - band : limitOf(m0, band, ib.pad);
  if (plane) return;
  const m1 = Math.max(Math.min(Math.max(band + L_EXT * move, MIN_MARGIN_CELLS * ia.cell), MAX_MARGIN_CELLS * ia.cell), floor);
  pairs.margin1[k] = m1;
  pairs.limit1[k] = limitOf(m1, band, ia.pad);
}

/** Motion limit of a side queried with margin m (see the file comment). */
function limitOf(m: number, band: number, pad: number): number {
  return Math.max(0, Math.min((m - band) / SQRT3, (Math.max(m, pad) - band) / L_EXT));
}

/**
 * Upper bound of the speed at which any point of body a (radius ra) and any
 * point of body b (radius rb) approach each other at the current velocities:
 * their centres' relative speed plus each one's spin times its radius.
 */
export function closingSpeed(ctx: StepContext, a: number, b: number, ra: number, rb: number): number {
  const v = ctx.bodies.vel, w = ctx.bodies.angVel;
  let s = norm3(v[3 * a]! - v[3 * b]!, v[3 * a + 1]! - v[3 * b + 1]!, v[3 * a + 2]! - v[3 * b + 2]!);
  const wa = norm3(w[3 * a]!, w[3 * a + 1]!, w[3 * a + 2]!), wb = norm3(w[3 * b]!, w[3 * b + 1]!, w[3 * b + 2]!);
  if (wa > 0) s += wa * ra;
  if (wb > 0) s += wb * rb;
  return s;
}

/** Upper bound of the speed of any point of body i (radius r) now, with a step of gravity and external forces. */
function bodySpeed(ctx: StepContext, i: number, r: number): number {
  const B = ctx.bodies;
  if (B.isStatic[i] || B.asleep[i]) return 0;
  const v = B.vel, w = B.angVel, g = ctx.gravity, a = ctx.extAcc, al = ctx.extAngAcc;
  return norm3(v[3 * i]!, v[3 * i + 1]!, v[3 * i + 2]!) + r * norm3(w[3 * i]!, w[3 * i + 1]!, w[3 * i + 2]!) +
    ctx.dt * norm3(g[0] + a[3 * i]!, g[1] + a[3 * i + 1]!, g[2] + a[3 * i + 2]!) + r * ctx.dt * norm3(al[3 * i]!, al[3 * i + 1]!, al[3 * i + 2]!);
}

/**
 * |u - u_ref|, the distance between the translations of B in A's frame
 * (-R^T t) of the current relative pose and of the reference at ref[o..].
 */
function refInverseDistance(r: Float64Array, o: number, rel: RelPose): number {
  const x = r[o]!, y = r[o + 1]!, z = r[o + 2]!, w = r[o + 3]!;
  const tx = r[o + 4]!, ty = r[o + 5]!, tz = r[o + 6]!;
  // R^T t = rotation of t by the conjugate quaternion.
  const cx = -(y * tz - z * ty), cy = -(z * tx - x * tz), cz = -(x * ty - y * tx);
  const ux = -(tx + 2 * (w * cx - y * cz + z * cy));
  const uy = -(ty + 2 * (w * cy - z * cx + x * cz));
  const uz = -(tz + 2 * (w * cz - x * cy + y * cx));
  return norm3(rel.ux - ux, rel.uy - uy, rel.uz - uz);
}

/** What the narrow phase keeps of shape s. */
export function shapeInfo(s: RigidShape): ShapeInfo {
  let radius = 0;
  const p = s.samples.points;
  const box = new Float64Array([Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity]);
  for (let i = 0; i < p.length; i += 4) {
    radius = Math.max(radius, Math.hypot(p[i]!, p[i + 1]!, p[i + 2]!));
    for (let c = 0; c < 3; c++) {
      box[c] = Math.min(box[c]!, p[i + c]!);
      box[3 + c] = Math.max(box[3 + c]!, p[i + c]!);
    }
  }
  const g = s.sdf;
  if (!g) return { cell: 0, pad: Infinity, halfThickness: Infinity, radius, box: new Float64Array([-Infinity, -Infinity, -Infinity, Infinity, Infinity, Infinity]) };
  let minPhi = 0;
  for (let i = 0; i < g.values.length; i++) if (g.values[i]! < minPhi) minPhi = g.values[i]!;
  return { cell: g.cellSize, pad: boxMinimum(g), halfThickness: Math.max(-minPhi, 0.5 * g.cellSize), radius, box };
}

/** The smallest value on the faces of g's grid box. */
function boxMinimum(g: SdfGrid): number {
  const [nx, ny, nz] = g.dims;
  const v = g.values;
  let m = Infinity;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      const onFace = k === 0 || k === nz - 1 || j === 0 || j === ny - 1;
      const row = nx * (j + ny * k);
      if (onFace) {
        for (let i = 0; i < nx; i++) if (v[row + i]! < m) m = v[row + i]!;
      } else {
        if (v[row]! < m) m = v[row]!;
        if (v[row + nx - 1]! < m) m = v[row + nx - 1]!;
      }
    }
  }
  return m;
}
