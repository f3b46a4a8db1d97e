/**
 * What the camera frames: the world box of every body but the analytic
 * planes (which are infinite), or of one body; and picking the body under
 * a pixel (a ray against each body's local box, then its triangles).
 */
import { framePoints, type OrbitCamera, type Viewport } from './camera.ts';
import { shadowPlane, type Plane } from './frameData.ts';
import { worldAabb } from './overlays.ts';
import { pickBody as pickHit, type Ray } from './picking.ts';
import { softSystemOf, type RenderWorld } from './sceneRenderer.ts';

/**
 * World box of the non-plane bodies (all of them, or only body `only`),
 * as min xyz then max xyz; false when there is none.
 */
export function worldBounds(world: RenderWorld, out: Float64Array, only = -1): boolean {
  const b = world.bodies;
  const box = scratchBox;
  out.fill(Infinity, 0, 3);
  out.fill(-Infinity, 3, 6);
  let any = false;
  for (let i = only >= 0 ? only : 0; i < (only >= 0 ? Math.min(only + 1, b.count) : b.count); i++) {
    const s = world.shapes[b.shape[i]!]!;
    if (s.kind === 'plane') continue;
    worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, box);
    for (let k = 0; k < 3; k++) {
      out[k] = Math.min(out[k]!, box[k]!);
      out[k + 3] = Math.max(out[k + 3]!, box[k + 3]!);
    }
    any = true;
  }
  if (only < 0 && softBounds(world, box)) {
    for (let k = 0; k < 3; k++) {
      out[k] = Math.min(out[k]!, box[k]!);
      out[k + 3] = Math.max(out[k + 3]!, box[k + 3]!);
    }
    any = true;
  }
  return any;
}
const scratchBox = new Float64Array(6);

/** World box of every soft body's particles (min xyz, max xyz); false when the world has none. */
export function softBounds(world: RenderWorld, out: Float64Array): boolean {
  const sys = softSystemOf(world);
  if (!sys || sys.particleCount === 0) return false;
  out.fill(Infinity, 0, 3);
  out.fill(-Infinity, 3, 6);
  const p = sys.pos;
  for (let i = 0; i < sys.particleCount; i++) {
    for (let k = 0; k < 3; k++) {
      const x = p[3 * i + k]!;
      if (x < out[k]!) out[k] = x;
      if (x > out[k + 3]!) out[k + 3] = x;
    }
  }
  return true;
}

/**
 * Frames the non-plane bodies (or body `only`): the target at the middle of
 * their world box, the distance from which every corner of every body's box
 * lies inside the viewport's free part. A whole scene gets some room around
 * it, so a lone body shows what it stands on and a walker has somewhere to
 * walk: the box grows sideways by a body's size (and a sixth of its own
 * size), and down to the ground under its middle. False when there is
 * nothing to frame.
 */
export function frameWorld(c: OrbitCamera, world: RenderWorld, v: Viewport, only = -1, margin = 1.1): boolean {
  const all = new Float64Array(6);
  if (!worldBounds(world, all, only)) return false;
  const b = world.bodies;
  const corners: number[] = [];
  for (let i = only >= 0 ? only : 0; i < (only >= 0 ? only + 1 : b.count); i++) {
    const s = world.shapes[b.shape[i]!]!;
    if (s.kind === 'plane') continue;
    worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, scratchBox);
    pushCorners(corners, scratchBox);
  }
  if (only < 0) {
    let radius = 0;
    for (let i = 0; i < b.count; i++) {
      const s = world.shapes[b.shape[i]!]!;
      if (s.kind !== 'plane') radius = Math.max(radius, s.radius);
    }
    // Soft bodies: their particles' box, and its half size as a body's size.
    const soft = new Float64Array(6);
    if (softBounds(world, soft)) {
      pushCorners(corners, soft);
      radius = Math.max(radius, 0.5 * Math.max(soft[3]! - soft[0]!, soft[4]! - soft[1]!, soft[5]! - soft[2]!));
    }
    for (const k of [0, 2]) {
      const pad = Math.max(radius, (all[k + 3]! - all[k]!) / 6);
      scratchBox[k] = all[k]! - pad;
      scratchBox[k + 3] = all[k + 3]! + pad;
    }
    scratchBox[1] = all[1]!;
    scratchBox[4] = all[4]!;
    const ground = shadowPlane(world, scratchPlane);
    if (ground && Math.abs(ground.n[1]) > 1e-6) {
      // The ground's height under the middle of the box: n . (x, y, z) = d.
      const x = 0.5 * (all[0]! + all[3]!), z = 0.5 * (all[2]! + all[5]!);
      const y = (ground.d - ground.n[0] * x - ground.n[2] * z) / ground.n[1];
      if (y < scratchBox[1]!) scratchBox[1] = Math.max(y, all[1]! - Math.max(2 * radius, all[4]! - all[1]!));
    }
    pushCorners(corners, scratchBox);
    for (let k = 0; k < 3; k++) {
      all[k] = scratchBox[k]!;
      all[k + 3] = scratchBox[k + 3]!;
    }
  }
  framePoints(c, corners, [0.5 * (all[0]! + all[3]!), 0.5 * (all[1]! + all[4]!), 0.5 * (all[2]! + all[5]!)], v, margin);
  return true;
}

function pushCorners(out: number[], box: ArrayLike<number>): void {
  for (let k = 0; k < 8; k++) out.push(box[k & 1 ? 3 : 0]!, box[k & 2 ? 4 : 1]!, box[k & 4 ? 5 : 2]!);
}

const scratchPlane: Plane = { n: [0, 1, 0], d: 0 };

/** The body whose surface a ray (unit direction) hits first, or -1; planes are not chosen (picking.ts). */
export function pickBody(world: RenderWorld, origin: ArrayLike<number>, dir: ArrayLike<number>): number {
  const ray: Ray = { origin: [origin[0]!, origin[1]!, origin[2]!], dir: [dir[0]!, dir[1]!, dir[2]!] };
  return pickHit(world, ray, (i) => world.shapes[world.bodies.shape[i]!]!.kind !== 'plane')?.body ?? -1;
}
