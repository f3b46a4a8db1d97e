/**
 * Per-pair contact constants, written once for every solver (sequential
 * impulses, PGS, patches): the pair's material and the length scale of its
 * distance fields.
 */
import { MATERIAL_FRICTION, MATERIAL_RESTITUTION, MATERIAL_ROLLING, MATERIAL_SPINNING, MATERIAL_STATIC, type BodyStore } from './bodies.ts';
import type { Material } from './impulse.ts';
import type { RigidShape } from './shape.ts';

/**
 * Pair material: the larger of the two bodies' friction (static and dynamic
 * each), rolling and spinning
 * friction (the seed, 7.1) and the smaller restitution. A pair whose bodies
 * share a restitution bounces with exactly that one (a ball of 0.8 on a
 * floor of 0.8 comes back to 0.64 of its height; the product rule gave the
 * pair 0.64 and the ball 0.41 of its height), an elastic floor (1) lets
 * each body bounce with its own, and a 0 on either side kills the bounce.
 *
 * A property given for only one of the two bodies (the other left at the
 * scene format's default, BodyStore.materialGiven) is the pair's: a ball
 * of restitution 0.8 dropped on a floor with none given bounces to 0.64 of
 * its height, not to the default's 0.25, and a box of friction 0.2 on a
 * ramp with none given slides at g (sin - 0.2 cos), not at the default's
 * 0.5. The default stands for "not said", and the body that says wins.
 * A body's static friction counts as given when it gave "staticFriction" or
 * "friction" (which is its static friction too unless both are given).
 */
export function pairMaterial(B: BodyStore, a: number, b: number, out: Material): Material {
  const ga = B.materialGiven[a]!, gb = B.materialGiven[b]!;
  out.restitution = pick(ga, gb, MATERIAL_RESTITUTION, B.restitution[a]!, B.restitution[b]!, Math.min(B.restitution[a]!, B.restitution[b]!));
  out.friction = pick(ga, gb, MATERIAL_FRICTION, B.friction[a]!, B.friction[b]!, Math.max(B.friction[a]!, B.friction[b]!));
  const sa = B.staticFrictionOf(a), sb = B.staticFrictionOf(b);
  out.staticFriction = pick(ga, gb, MATERIAL_STATIC, sa, sb, Math.max(sa, sb));
  out.rolling = pick(ga, gb, MATERIAL_ROLLING, B.rollingFriction[a]!, B.rollingFriction[b]!, Math.max(B.rollingFriction[a]!, B.rollingFriction[b]!));
  out.spinning = pick(ga, gb, MATERIAL_SPINNING, B.spinningFriction[a]!, B.spinningFriction[b]!, Math.max(B.spinningFriction[a]!, B.spinningFriction[b]!));
  return out;
}

/** The value given for only one body (bit `bit` of its materialGiven), else the combined one. */
function pick(ga: number, gb: number, bit: number, va: number, vb: number, both: number): number {
  const a = (ga & bit) !== 0, b = (gb & bit) !== 0;
  return a === b ? both : a ? va : vb;
}

/** Cell size used for a pair of planes (which never collide with each other; a guard, not a tuning value). */
const NO_GRID_CELL = 0.01;

/**
 * The finer SDF cell size of a pair: the resolution the pair's contact
 * geometry is known to, which sets its depth bands and tolerances. A plane
 * has no grid, so a mesh-plane pair uses the mesh's cell.
 */
export function pairCell(shapes: readonly RigidShape[], B: BodyStore, a: number, b: number): number {
  const sa = shapes[B.shape[a]!]!.sdf, sb = shapes[B.shape[b]!]!.sdf;
  const c = Math.min(sa ? sa.cellSize : Infinity, sb ? sb.cellSize : Infinity);
  return Number.isFinite(c) ? c : NO_GRID_CELL;
}
