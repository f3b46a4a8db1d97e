/**
 * Picking: which body, and which point of it, a ray from the eye meets first
 * (choosing a body, dragging it, placing a library instance on it). A pixel
 * becomes a ray in camera.ts (pixelRay); the ray is cast against every body's
 * triangle mesh in the body's own (centre-of-mass) frame, after a test against
 * its local bounding box, and planes are hit analytically from their front
 * side. Pure functions over the world's arrays, no DOM: tested in Node
 * (tests/app/picking.test.ts).
 */
import type { BodyStore } from '../dynamics/bodies.ts';
import type { RigidShape } from '../dynamics/shape.ts';
import type { Vec3 } from '../geometry/mesh.ts';

export interface Ray {
  origin: Vec3;
  /** Unit direction. */
  dir: Vec3;
}

export interface Hit {
  body: number;
  /** Distance along the ray (m). */
  t: number;
  /** The hit point, world frame. */
  point: Vec3;
  /** The hit point in the body's frame (relative to its centre of mass). */
  local: Vec3;
  /** Unit surface normal at the hit, world frame (facing the ray). */
  normal: Vec3;
}

/** Entry and exit distances of a ray through an axis-aligned box (slabs), or null when it misses. */
export function rayBox(o: ArrayLike<number>, d: ArrayLike<number>, min: ArrayLike<number>, max: ArrayLike<number>): [number, number] | null {
  let t0 = 0, t1 = Infinity;
  for (let k = 0; k < 3; k++) {
    const inv = 1 / d[k]!;
    let a = (min[k]! - o[k]!) * inv, b = (max[k]! - o[k]!) * inv;
    if (a > b) [a, b] = [b, a];
    // A ray parallel to the slab and outside it gives NaN or an empty interval.
    if (a > t0) t0 = a;
    if (b < t1) t1 = b;
    if (!(t0 <= t1)) return null;
  }
  return [t0, t1];
}

/**
 * Nearest crossing of the ray with a triangle of the mesh (either side:
 * a ray from inside still picks), Moller-Trumbore; the triangle index in
 * `tri[0]`. Returns Infinity when it misses within `tMax`.
 */
export function rayMesh(
  positions: ArrayLike<number>,
  indices: ArrayLike<number>,
  o: ArrayLike<number>,
  d: ArrayLike<number>,
  tMax = Infinity,
  tri?: Int32Array,
): number {
  let best = tMax;
  const ox = o[0]!, oy = o[1]!, oz = o[2]!, dx = d[0]!, dy = d[1]!, dz = d[2]!;
  for (let f = 0; f < indices.length; f += 3) {
    const a = 3 * indices[f]!, b = 3 * indices[f + 1]!, c = 3 * indices[f + 2]!;
    const ax = positions[a]!, ay = positions[a + 1]!, az = positions[a + 2]!;
    const e1x = positions[b]! - ax, e1y = positions[b + 1]! - ay, e1z = positions[b + 2]! - az;
    const e2x = positions[c]! - ax, e2y = positions[c + 1]! - ay, e2z = positions[c + 2]! - az;
    // p = d x e2, det = e1 . p
    const px = dy * e2z - dz * e2y, py = dz * e2x - dx * e2z, pz = dx * e2y - dy * e2x;
    const det = e1x * px + e1y * py + e1z * pz;
    if (det === 0) continue;
    const inv = 1 / det;
    const sx = ox - ax, sy = oy - ay, sz = oz - az;
    const u = (sx * px + sy * py + sz * pz) * inv;
    if (u < 0 || u > 1) continue;
    const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
    const v = (dx * qx + dy * qy + dz * qz) * inv;
    if (v < 0 || u + v > 1) continue;
    const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
    if (t >= 0 && t < best) {
      best = t;
      if (tri) tri[0] = f / 3;
    }
  }
  return best === tMax ? Infinity : best;
}

const TRI = new Int32Array(1);

/** v' = R^T v for the body's rotation (world to body frame), or R v (body to world). */
function rotate(q: ArrayLike<number>, qo: number, v: ArrayLike<number>, inverse: boolean): Vec3 {
  const x = inverse ? -q[qo]! : q[qo]!, y = inverse ? -q[qo + 1]! : q[qo + 1]!, z = inverse ? -q[qo + 2]! : q[qo + 2]!, w = q[qo + 3]!;
  const cx = y * v[2]! - z * v[1]!, cy = z * v[0]! - x * v[2]!, cz = x * v[1]! - y * v[0]!;
  return [
    v[0]! + 2 * (w * cx + y * cz - z * cy),
    v[1]! + 2 * (w * cy + z * cx - x * cz),
    v[2]! + 2 * (w * cz + x * cy - y * cx),
  ];
}

/**
 * The body the ray hits first, with the point and normal, or null. `accept`
 * filters bodies (e.g. leave out planes to pick only solids).
 */
export function pickBody(
  world: { readonly bodies: BodyStore; readonly shapes: readonly RigidShape[] },
  ray: Ray,
  accept: (body: number) => boolean = () => true,
): Hit | null {
  const B = world.bodies;
  let best: Hit | null = null;
  for (let i = 0; i < B.count; i++) {
    if (!accept(i)) continue;
    const s = world.shapes[B.shape[i]!]!;
    const c: Vec3 = [B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!];
    const tMax = best ? best.t : Infinity;
    if (s.kind === 'plane') {
      const n = rotate(B.quat, 4 * i, s.planeNormal ?? [0, 1, 0], false);
      const dn = n[0] * ray.dir[0] + n[1] * ray.dir[1] + n[2] * ray.dir[2];
      // Only from the front: seen from below the ground is not in the way.
      if (!(dn < 0)) continue;
      const t = ((c[0] - ray.origin[0]) * n[0] + (c[1] - ray.origin[1]) * n[1] + (c[2] - ray.origin[2]) * n[2]) / dn;
      if (!(t >= 0 && t < tMax)) continue;
      const point: Vec3 = [ray.origin[0] + t * ray.dir[0], ray.origin[1] + t * ray.dir[1], ray.origin[2] + t * ray.dir[2]];
      best = { body: i, t, point, local: rotate(B.quat, 4 * i, [point[0] - c[0], point[1] - c[1], point[2] - c[2]], true), normal: n };
      continue;
    }
    const o = rotate(B.quat, 4 * i, [ray.origin[0] - c[0], ray.origin[1] - c[1], ray.origin[2] - c[2]], true);
    const d = rotate(B.quat, 4 * i, ray.dir, true);
    const span = rayBox(o, d, s.localBounds.min, s.localBounds.max);
    if (!span || span[0] >= tMax) continue;
    const t = rayMesh(s.mesh.positions, s.mesh.indices, o, d, tMax, TRI);
    if (!(t < tMax)) continue;
    const local: Vec3 = [o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]];
    const P = s.mesh.positions, I = s.mesh.indices, f = 3 * TRI[0]!;
    const a = 3 * I[f]!, b = 3 * I[f + 1]!, cc = 3 * I[f + 2]!;
    const e1 = [P[b]! - P[a]!, P[b + 1]! - P[a + 1]!, P[b + 2]! - P[a + 2]!];
    const e2 = [P[cc]! - P[a]!, P[cc + 1]! - P[a + 1]!, P[cc + 2]! - P[a + 2]!];
    let n = rotate(B.quat, 4 * i, [e1[1]! * e2[2]! - e1[2]! * e2[1]!, e1[2]! * e2[0]! - e1[0]! * e2[2]!, e1[0]! * e2[1]! - e1[1]! * e2[0]!], false);
    const nl = Math.hypot(n[0], n[1], n[2]) || 1;
    n = [n[0] / nl, n[1] / nl, n[2] / nl];
    if (n[0] * ray.dir[0] + n[1] * ray.dir[1] + n[2] * ray.dir[2] > 0) n = [-n[0], -n[1], -n[2]];
    best = { body: i, t, point: [ray.origin[0] + t * ray.dir[0], ray.origin[1] + t * ray.dir[1], ray.origin[2] + t * ray.dir[2]], local, normal: n };
  }
  return best;
}
