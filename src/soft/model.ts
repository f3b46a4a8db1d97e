/**
 * A soft body's rest state as the constructions produce it (lattice.ts for any
 * closed shape, seedNet.ts for extruded outlines), before it is placed in the
 * world and given a material. Everything is in the shape's centre-of-mass
 * frame, the frame RigidShape.mesh and its SDF live in, so a soft body's
 * `position` places the shape exactly as a rigid body's does.
 */
import type { TriMesh } from '../geometry/mesh.ts';
import { DisjointSets } from '../geometry/disjointSets.ts';

/**
 * What a spring does in the network; the kind picks a stiffness weight
 * (SPRING_WEIGHT) so one material number drives the whole net.
 */
export const SpringKind = {
  /** Lattice edges, extruded outline / net springs, the extrusion's verticals: they carry stretch. */
  Structural: 0,
  /** Lattice face and body diagonals, the extrusion's cross braces: they resist shear. */
  Shear: 1,
  /** Lattice springs that skip a node: they resist folding of thin parts. */
  Bending: 2,
} as const;
export type SpringKind = (typeof SpringKind)[keyof typeof SpringKind];

/**
 * Stiffness weight per kind. Shear and bending springs are supplements: at
 * full weight the diagonals dominate (there are more of them, and the body
 * diagonals are long), and the net becomes stiffer in shear than in stretch.
 */
export const SPRING_WEIGHT: Readonly<Record<SpringKind, number>> = {
  [SpringKind.Structural]: 1,
  [SpringKind.Shear]: 0.5,
  [SpringKind.Bending]: 0.25,
};

export interface SoftModel {
  /** Particle rest positions, x, y, z per particle. */
  rest: Float64Array;
  /** Each particle's share of the body's mass; the shares sum to 1. */
  massShare: Float64Array;
  /** Spring end points, two particle indices per spring (a < b). */
  springs: Uint32Array;
  /** SpringKind per spring. */
  kind: Uint8Array;
  /**
   * 1 where the spring lies outside the shape (the seed's "outer" springs,
   * which bridge a concavity); the material's outerScale weakens them.
   */
  outer: Uint8Array;
  /** The drawn surface: the shape's own mesh in the same frame, its vertices carried by the particles (may be empty for a net built by hand). */
  surface: TriMesh;
  /**
   * Skinning: surface vertex v sits at sum_k skinWeight[4v+k] * particle[skinIndex[4v+k]].
   * The weights of a vertex sum to 1 (an affine combination), so the rest
   * surface is reproduced exactly and translating the particles translates it.
   */
  skinIndex: Uint32Array;
  skinWeight: Float64Array;
  /**
   * Tetrahedra over the particles, 4 indices per tetrahedron, positively
   * oriented, filling the body (to within the snapping of its surface). They
   * carry the drawn surface (lattice) and are what the coupling uses to map a
   * point of the deformed body back to the rest shape and its SDF
   * (docs/soft-bodies.md).
   */
  tets: Uint32Array;
  /** Typical distance between neighbouring particles (m): the lattice spacing, or the mean outline spring. */
  spacing: number;
  /**
   * Modulus of each tetrahedron's own volume (forces.ts, "tets"), as a
   * fraction of the material's modulus; absent or 0: none. The seed
   * construction sets it (seedNet.ts: a net of triangles can fold over
   * without a spring changing length); the lattice does not (its cells are
   * braced by diagonals across every face and through them, and it is what
   * soft-pegs times).
   */
  tetWeight?: number;
  /**
   * Closed outlines, each a loop of particle indices in order (an extruded
   * outline has two: its back and front faces), which perimeter preservation
   * acts on; absent or empty for a net without an outline (the lattice).
   */
  outlines?: readonly Uint32Array[];
}

export function particleCount(m: SoftModel): number {
  return m.rest.length / 3;
}

export function springCount(m: SoftModel): number {
  return m.springs.length / 2;
}

/** Number of connected pieces of the spring graph (a body must be one). */
export function componentCount(particles: number, springs: Uint32Array): number {
  const sets = new DisjointSets(particles);
  let pieces = particles;
  for (let s = 0; s < springs.length; s += 2) {
    if (sets.union(springs[s]!, springs[s + 1]!)) pieces--;
  }
  return pieces;
}
