/**
 * The orbit camera: a target point, two angles and a distance. Pure functions
 * over a small state object so the math can be unit-tested without a canvas;
 * src/app/input.ts turns pointer and key events into calls of these.
 *
 * Conventions: y is up (docs/ALGORITHM.md); yaw turns about +y, yaw = 0 looks along
 * -z (the eye sits on +z of the target); pitch > 0 looks down on the scene.
 * Matrices come from wgpu-matrix (column-major, WebGPU clip depth 0..1).
 */
import { mat4, vec3, type Mat4, type Vec3 } from 'wgpu-matrix';

export interface OrbitCamera {
  target: [number, number, number];
  /** Radians about +y. */
  yaw: number;
  /** Radians above the horizon, kept inside (-MAX_PITCH, MAX_PITCH). */
  pitch: number;
  /** Eye-to-target distance (m). */
  distance: number;
  /** Vertical field of view (radians). */
  fovY: number;
}

/** Just short of straight up/down, where lookAt's up vector would degenerate. */
export const MAX_PITCH = (89 * Math.PI) / 180;
export const MIN_DISTANCE = 0.05;
export const MAX_DISTANCE = 5000;
/** Radians of orbit per pixel dragged. */
export const ORBIT_RATE = 0.006;
/** Fractional zoom per wheel "line" (deltaY 100 in pixel mode is about 1 line). */
export const ZOOM_RATE = 0.0015;

export function defaultCamera(): OrbitCamera {
  return { target: [0, 1, 0], yaw: 0.6, pitch: 0.45, distance: 12, fovY: (45 * Math.PI) / 180 };
}

/** Eye position: target + distance * (direction from the target to the eye). */
export function cameraEye(c: OrbitCamera, dst: Vec3 = vec3.create()): Vec3 {
  const cp = Math.cos(c.pitch);
  dst[0] = c.target[0] + c.distance * cp * Math.sin(c.yaw);
  dst[1] = c.target[1] + c.distance * Math.sin(c.pitch);
  dst[2] = c.target[2] + c.distance * cp * Math.cos(c.yaw);
  return dst;
}

const scratchEye = vec3.create();
const UP = vec3.fromValues(0, 1, 0);

export function viewMatrix(c: OrbitCamera, dst: Mat4 = mat4.create()): Mat4 {
  cameraEye(c, scratchEye);
  return mat4.lookAt(scratchEye, c.target, UP, dst);
}

/**
 * Near and far planes follow the distance so depth precision is spent where
 * the scene is: near a scene 1 m across and far enough for a 200 m ground quad.
 */
export function clipPlanes(c: OrbitCamera): { near: number; far: number } {
  const near = Math.max(0.01, c.distance * 0.02);
  return { near, far: Math.max(400, c.distance * 60) };
}

export function projectionMatrix(c: OrbitCamera, aspect: number, dst: Mat4 = mat4.create()): Mat4 {
  const { near, far } = clipPlanes(c);
  return mat4.perspective(c.fovY, aspect > 0 ? aspect : 1, near, far, dst);
}

export function viewProjection(c: OrbitCamera, aspect: number, dst: Mat4 = mat4.create()): Mat4 {
  const v = viewMatrix(c, scratchView);
  const p = projectionMatrix(c, aspect, scratchProj);
  return mat4.multiply(p, v, dst);
}
const scratchView = mat4.create();
const scratchProj = mat4.create();

/** Drag by (dx, dy) pixels: right turns the scene right (eye moves left), down tilts to look from above. */
export function orbit(c: OrbitCamera, dx: number, dy: number, rate = ORBIT_RATE): void {
  c.yaw -= dx * rate;
  // Keep yaw in (-pi, pi] so it never loses precision after long sessions.
  c.yaw = Math.atan2(Math.sin(c.yaw), Math.cos(c.yaw));
  c.pitch = clamp(c.pitch + dy * rate, -MAX_PITCH, MAX_PITCH);
}

/** Wheel: positive deltaY (scroll down / pull) moves away, exponentially so each notch is the same ratio. */
export function zoom(c: OrbitCamera, deltaY: number, rate = ZOOM_RATE): void {
  c.distance = clamp(c.distance * Math.exp(deltaY * rate), MIN_DISTANCE, MAX_DISTANCE);
}

/** World metres covered by one pixel at the target's depth. */
export function metresPerPixel(c: OrbitCamera, viewportHeight: number): number {
  return (2 * c.distance * Math.tan(c.fovY / 2)) / Math.max(1, viewportHeight);
}

/**
 * Pan by (dx, dy) pixels so the point under the cursor at the target's depth
 * follows the cursor: the target moves opposite to the drag in the camera's
 * right / up plane.
 */
export function pan(c: OrbitCamera, dx: number, dy: number, viewportHeight: number): void {
  const s = metresPerPixel(c, viewportHeight);
  // Camera basis: right = (cos yaw, 0, -sin yaw); up = forward x right, with forward = -eyeDir.
  const sy = Math.sin(c.yaw);
  const cy = Math.cos(c.yaw);
  const sp = Math.sin(c.pitch);
  const cp = Math.cos(c.pitch);
  const rx = cy;
  const rz = -sy;
  // up = (-sin p sin y, cos p, -sin p cos y)
  const ux = -sp * sy;
  const uy = cp;
  const uz = -sp * cy;
  c.target[0] += (-dx * rx + dy * ux) * s;
  c.target[1] += dy * uy * s;
  c.target[2] += (-dx * rz + dy * uz) * s;
}

/** Move the target along the ground (keyboard): forward/right in metres, relative to where the camera looks. */
export function walk(c: OrbitCamera, forward: number, right: number): void {
  const sy = Math.sin(c.yaw);
  const cy = Math.cos(c.yaw);
  c.target[0] += -forward * sy + right * cy;
  c.target[2] += -forward * cy - right * sy;
}

/** Aim at a box and back off until its bounding sphere fits the narrower field of view. */
export function frameBounds(
  c: OrbitCamera,
  min: readonly number[],
  max: readonly number[],
  aspect: number,
  margin = 1.15,
): void {
  const r = 0.5 * Math.hypot(max[0]! - min[0]!, max[1]! - min[1]!, max[2]! - min[2]!);
  c.target[0] = 0.5 * (min[0]! + max[0]!);
  c.target[1] = 0.5 * (min[1]! + max[1]!);
  c.target[2] = 0.5 * (min[2]! + max[2]!);
  const halfV = c.fovY / 2;
  const halfH = Math.atan(Math.tan(halfV) * (aspect > 0 ? aspect : 1));
  const half = Math.min(halfV, halfH);
  c.distance = clamp((Math.max(r, 0.1) * margin) / Math.sin(half), MIN_DISTANCE, MAX_DISTANCE);
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
