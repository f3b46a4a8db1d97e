import type { Aabb, TriMesh, Vec3 } from '../geometry/mesh.ts';
import type { CollisionSamples } from '../geometry/samples.ts';
import type { SdfGrid } from '../sdf/grid.ts';

/**
 * A shape ready for simulation: mesh, collision samples and SDF, all in the
 * centre-of-mass frame ("local" frame). Shared by every body that uses it.
 */
export interface RigidShape {
  name: string;
  kind: 'mesh' | 'plane';
  /** Closed, outward mesh, re-centred on the centre of mass (for a plane: a large quad, for drawing only). */
  mesh: TriMesh;
  /** Vertices + edge samples, re-centred (empty for a plane). */
  samples: CollisionSamples;
  /** SDF in the local frame (null for a plane, whose distance is analytic). */
  sdf: SdfGrid | null;
  /** Where the centre of mass sits in the shape's own (file / procedural) frame. */
  comOffset: Vec3;
  /** Volume (m^3); mass = density * volume. */
  volume: number;
  /** Inertia tensor about the centre of mass for density 1, row-major 3x3. */
  inertiaUnit: Float64Array;
  /** Bounds of the mesh in the local frame. */
  localBounds: Aabb;
  /** Largest distance of a mesh vertex from the local origin. */
  radius: number;
  /** Plane only: unit normal in the local frame; the plane passes through the local origin. */
  planeNormal?: Vec3;
  /**
   * A `sphere` shape only: the true sphere (its centre in the local frame,
   * the origin unless its mass came from the field). Two spheres meet at one
   * point, computed exactly (narrowphase.ts, sphere pairs), not by a query.
   */
  sphere?: { centre: Vec3; radius: number };
  /**
   * A `box`, `capsule` or `cylinder` shape only: the convex solid itself (its
   * centre in the local frame, the origin unless its mass came from the
   * field; a capsule's and a cylinder's axis along y). A true sphere meets
   * it at one point, computed exactly (narrowphase.ts, sphere pairs), not by
   * a query.
   */
  convex?: ConvexSolid;
}

/**
 * A convex solid of a shape's own (RigidShape.convex): a box of half extents
 * `half`; a capsule, the points within `radius` of the segment from
 * (0, -halfLength, 0) to (0, halfLength, 0); a cylinder of `radius` and half
 * height `halfLength` along y. All about `centre`.
 */
export type ConvexSolid = { centre: Vec3 } & (
  | { type: 'box'; half: Vec3 }
  | { type: 'capsule' | 'cylinder'; radius: number; halfLength: number }
);

/** Whether a plane meets shape s at points computed exactly (narrowphase.ts): a true sphere, capsule or cylinder. */
export function exactOnPlane(s: RigidShape): boolean {
  return s.sphere !== undefined || s.convex?.type === 'capsule' || s.convex?.type === 'cylinder';
}
