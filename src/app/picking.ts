/**
 * Picking: which body is under the cursor (issue 13, the app's library panel
 * and dragging). A pixel becomes a ray by unprojecting it through the inverse
 * of the camera's view-projection matrix (WebGPU clip depth 0..1), so the ray
 * agrees with whatever the renderer draws, lens shift included, without
 * knowing how the camera builds its matrices. The ray is then cast against
 * every body's triangle mesh in the body's own (centre-of-mass) frame, after
 * a test against its local bounding box; planes are hit analytically from
 * their front side. Pure functions over the world's arrays, no DOM: tested
 * in Node (tests/app/picking.test.ts).
 */
import type { World } from '../dynamics/world.ts';
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

/** Inverse of a 4x4 matrix (column-major, as WebGPU and wgpu-matrix store it), in double precision; null if singular. */
export function invert4(m: ArrayLike<number>): Float64Array | null {
  const a = Float64Array.from({ length: 16 }, (_, i) => m[i]!);
  const inv = new Float64Array(16);
  // Cofactor expansion by 2x2 minors of the first two and last two rows.
  const s0 = a[0]! * a[5]! - a[4]! * a[1]!, s1 = a[0]! * a[6]! - a[4]! * a[2]!, s2 = a[0]! * a[7]! - a[4]! * a[3]!;
  const s3 = a[1]! * a[6]! - a[5]! * a[2]!, s4 = a[1]! * a[7]! - a[5]! * a[3]!, s5 = a[2]! * a[7]! - a[6]! * a[3]!;
  const c5 = a[10]! * a[15]! - a[14]! * a[11]!, c4 = a[9]! * a[15]! - a[13]! * a[11]!, c3 = a[9]! * a[14]! - a[13]! * a[10]!;
  const c2 = a[8]! * a[15]! - a[12]! * a[11]!, c1 = a[8]! * a[14]! - a[12]! * a[10]!, c0 = a[8]! * a[13]! - a[12]! * a[9]!;
  const det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
  if (!(Math.abs(det) > 0) || !Number.isFinite(det)) return null;
  const d = 1 / det;
  inv[0] = (a[5]! * c5 - a[6]! * c4 + a[7]! * c3) * d;
  inv[1] = (-a[1]! * c5 + a[2]! * c4 - a[3]! * c3) * d;
  inv[2] = (a[13]! * s5 - a[14]! * s4 + a[15]! * s3) * d;
  inv[3] = (-a[9]! * s5 + a[10]! * s4 - a[11]! * s3) * d;
  inv[4] = (-a[4]! * c5 + a[6]! * c2 - a[7]! * c1) * d;
  inv[5] = (a[0]! * c5 - a[2]! * c2 + a[3]! * c1) * d;
  inv[6] = (-a[12]! * s5 + a[14]! * s2 - a[15]! * s1) * d;
  inv[7] = (a[8]! * s5 - a[10]! * s2 + a[11]! * s1) * d;
  inv[8] = (a[4]! * c4 - a[5]! * c2 + a[7]! * c0) * d;
  inv[9] = (-a[0]! * c4 + a[1]! * c2 - a[3]! * c0) * d;
  inv[10] = (a[12]! * s4 - a[13]! * s2 + a[15]! * s0) * d;
  inv[11] = (-a[8]! * s4 + a[9]! * s2 - a[11]! * s0) * d;
  inv[12] = (-a[4]! * c3 + a[5]! * c1 - a[6]! * c0) * d;
  inv[13] = (a[0]! * c3 - a[1]! * c1 + a[2]! * c0) * d;
  inv[14] = (-a[12]! * s3 + a[13]! * s1 - a[14]! * s0) * d;
  inv[15] = (a[8]! * s3 - a[9]! * s1 + a[10]! * s0) * d;
  return inv;
}

/** The world point at normalised device coordinates (x, y) and clip depth z, through an inverse view-projection. */
function unproject(inv: Float64Array, x: number, y: number, z: number): Vec3 {
  const X = inv[0]! * x + inv[4]! * y + inv[8]! * z + inv[12]!;
  const Y = inv[1]! * x + inv[5]! * y + inv[9]! * z + inv[13]!;
  const Z = inv[2]! * x + inv[6]! * y + inv[10]! * z + inv[14]!;
  const W = inv[3]! * x + inv[7]! * y + inv[11]! * z + inv[15]!;
  return [X / W, Y / W, Z / W];
}

/**
 * The ray through the point (px, py) of a canvas `width` x `height` (CSS
 * pixels from its top left), from the near plane away from the eye.
 */
export function pixelRay(viewProjection: ArrayLike<number>, px: number, py: number, width: number, height: number): Ray | null {
  const inv = invert4(viewProjection);
  if (!inv) return null;
  const x = (2 * px) / width - 1;
  const y = 1 - (2 * py) / height;
  const near = unproject(inv, x, y, 0);
  const far = unproject(inv, x, y, 1);
  const d: Vec3 = [far[0] - near[0], far[1] - near[1], far[2] - near[2]];
  const l = Math.hypot(d[0], d[1], d[2]);
  if (!(l > 0) || !Number.isFinite(l)) return null;
  return { origin: near, dir: [d[0] / l, d[1] / l, d[2] / l] };
}

/** Where a world point lands on the canvas (CSS pixels), or null behind the eye. */
export function projectPoint(viewProjection: ArrayLike<number>, p: ArrayLike<number>, width: number, height: number): [number, number] | null {
  const m = viewProjection;
  const X = m[0]! * p[0]! + m[4]! * p[1]! + m[8]! * p[2]! + m[12]!;
  const Y = m[1]! * p[0]! + m[5]! * p[1]! + m[9]! * p[2]! + m[13]!;
  const W = m[3]! * p[0]! + m[7]! * p[1]! + m[11]! * p[2]! + m[15]!;
  if (!(W > 0)) return null;
  return [((X / W + 1) / 2) * width, ((1 - Y / W) / 2) * height];
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
export function pickBody(world: World, ray: Ray, accept: (body: number) => boolean = () => true): Hit | null {
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
