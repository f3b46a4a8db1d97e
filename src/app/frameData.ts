/**
 * Per-frame data the renderer uploads, built without allocation: body
 * matrices from the Float64 state, the shadow plane and its projection
 * matrix, and the Frame and Instance layouts in floats (the byte layouts,
 * checked against shaders/render_common.wgsl, are in render/layout.ts).
 */
import { FRAME_LAYOUT, INSTANCE_LAYOUT } from './render/layout.ts';
import type { RenderWorld } from './sceneRenderer.ts';

export const FRAME_FLOATS = FRAME_LAYOUT.size / 4;
/** Offsets (in floats) of the Frame fields. */
export const FRAME = Object.fromEntries(
  Object.entries(FRAME_LAYOUT.offsets).map(([k, v]) => [k, v / 4]),
) as { readonly [K in keyof typeof FRAME_LAYOUT.offsets]: number };

export const INSTANCE_FLOATS = INSTANCE_LAYOUT.size / 4;

/**
 * Column-major model matrix of body i (rotation from its quaternion, then its
 * centre of mass), written as Float32 at out[o..o+15]. The mesh is already in
 * the centre-of-mass frame, so no offset is needed.
 */
export function bodyMatrix(pos: Float64Array, quat: Float64Array, i: number, out: Float32Array, o: number): void {
  const x = quat[4 * i]!, y = quat[4 * i + 1]!, z = quat[4 * i + 2]!, w = quat[4 * i + 3]!;
  out[o] = 1 - 2 * (y * y + z * z);
  out[o + 1] = 2 * (x * y + z * w);
  out[o + 2] = 2 * (x * z - y * w);
  out[o + 3] = 0;
  out[o + 4] = 2 * (x * y - z * w);
  out[o + 5] = 1 - 2 * (x * x + z * z);
  out[o + 6] = 2 * (y * z + x * w);
  out[o + 7] = 0;
  out[o + 8] = 2 * (x * z + y * w);
  out[o + 9] = 2 * (y * z - x * w);
  out[o + 10] = 1 - 2 * (x * x + y * y);
  out[o + 11] = 0;
  out[o + 12] = pos[3 * i]!;
  out[o + 13] = pos[3 * i + 1]!;
  out[o + 14] = pos[3 * i + 2]!;
  out[o + 15] = 1;
}

export interface Plane {
  /** Unit normal (world). */
  n: [number, number, number];
  /** Offset: the plane is n . x = d. */
  d: number;
}

/**
 * The plane that receives shadows: the first static analytic plane whose
 * normal points up (within 60 degrees), written into `out` (so a frame
 * allocates nothing). Null when the scene has none.
 */
export function shadowPlane(world: RenderWorld, out: Plane = { n: [0, 1, 0], d: 0 }): Plane | null {
  const b = world.bodies;
  for (let i = 0; i < b.count; i++) {
    const s = world.shapes[b.shape[i]!];
    if (!s || s.kind !== 'plane' || !b.isStatic[i]) continue;
    const ln = s.planeNormal ?? [0, 1, 0];
    const x = b.quat[4 * i]!, y = b.quat[4 * i + 1]!, z = b.quat[4 * i + 2]!, w = b.quat[4 * i + 3]!;
    // Rotate the local normal by the body's quaternion.
    const nx =
      (1 - 2 * (y * y + z * z)) * ln[0] + 2 * (x * y - z * w) * ln[1] + 2 * (x * z + y * w) * ln[2];
    const ny =
      2 * (x * y + z * w) * ln[0] + (1 - 2 * (x * x + z * z)) * ln[1] + 2 * (y * z - x * w) * ln[2];
    const nz =
      2 * (x * z - y * w) * ln[0] + 2 * (y * z + x * w) * ln[1] + (1 - 2 * (x * x + y * y)) * ln[2];
    const len = Math.hypot(nx, ny, nz) || 1;
    if (ny / len < 0.5) continue;
    const n = out.n;
    n[0] = nx / len;
    n[1] = ny / len;
    n[2] = nz / len;
    out.d = n[0] * b.pos[3 * i]! + n[1] * b.pos[3 * i + 1]! + n[2] * b.pos[3 * i + 2]!;
    return out;
  }
  return null;
}

/**
 * Column-major matrix that moves a world point along the light direction L
 * onto the plane n . x = d, then `lift` metres along n (so the shadow is not
 * in the plane's depth): x' = x - L (n . x - d) / (n . L) + lift n.
 * Returns false (and writes the identity) when the light grazes the plane.
 */
export function shadowMatrix(plane: Plane, light: readonly number[], lift: number, out: Float32Array, o = 0): boolean {
  const n = plane.n;
  const nl = n[0] * light[0]! + n[1] * light[1]! + n[2] * light[2]!;
  if (nl < 0.05) {
    for (let k = 0; k < 16; k++) out[o + k] = k % 5 === 0 ? 1 : 0;
    return false;
  }
  for (let col = 0; col < 3; col++) {
    for (let row = 0; row < 3; row++) {
      out[o + 4 * col + row] = (row === col ? 1 : 0) - (light[row]! * n[col]!) / nl;
    }
    out[o + 4 * col + 3] = 0;
  }
  for (let row = 0; row < 3; row++) out[o + 12 + row] = (light[row]! * plane.d) / nl + lift * n[row]!;
  out[o + 15] = 1;
  return true;
}
