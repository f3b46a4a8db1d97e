/**
 * Per-pair contact constants, written once for every solver (sequential
 * impulses, PGS, patches): the pair's material and the length scale of its
 * distance fields.
 */
import type { BodyStore } from './bodies.ts';
import type { Material } from './impulse.ts';
import type { RigidShape } from './shape.ts';

/**
 * Pair material: the larger of the two bodies' friction, rolling and spinning
 * friction (the seed, 7.1) and the smaller restitution. A pair whose bodies
 * share a restitution bounces with exactly that one (a ball of 0.8 on a
 * floor of 0.8 comes back to 0.64 of its height; the product rule gave the
 * pair 0.64 and the ball 0.41 of its height), an elastic floor (1) lets
 * each body bounce with its own, and a 0 on either side kills the bounce.
 */
export function pairMaterial(B: BodyStore, a: number, b: number, out: Material): Material {
  out.restitution = Math.min(B.restitution[a]!, B.restitution[b]!);
  out.friction = Math.max(B.friction[a]!, B.friction[b]!);
  out.rolling = Math.max(B.rollingFriction[a]!, B.rollingFriction[b]!);
  out.spinning = Math.max(B.spinningFriction[a]!, B.spinningFriction[b]!);
  return out;
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
