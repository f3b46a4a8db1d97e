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
  /**
   * Lens shift in normalised device coordinates: the target is drawn at
   * (shiftX, shiftY) instead of the middle, so a scene can sit in the middle
   * of the part of the canvas the panel and the bars leave free.
   */
  shiftX: number;
  shiftY: number;
}

/** Any three numbers one can write: arrays and typed arrays of either precision. */
export type Writable3 = { [k: number]: number };

/** The canvas in CSS pixels and the part of it not covered by the panel and the bars. */
export interface Viewport {
  width: number;
  height: number;
  /** Pixels covered at each edge. */
  insets: { left: number; top: number; right: number; bottom: number };
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
  return { target: [0, 1, 0], yaw: 0.6, pitch: 0.45, distance: 12, fovY: (45 * Math.PI) / 180, shiftX: 0, shiftY: 0 };
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
  mat4.perspective(c.fovY, aspect > 0 ? aspect : 1, near, far, dst);
  // Lens shift: x_ndc += shiftX means x_clip += shiftX w_clip, and w_clip = -z_view
  // (column-major: row 0 of column 2 is element 8).
  dst[8] = dst[8]! - c.shiftX;
  dst[9] = dst[9]! - c.shiftY;
  return dst;
}

export function viewProjection(c: OrbitCamera, aspect: number, dst: Mat4 = mat4.create()): Mat4 {
  const v = viewMatrix(c, scratchView);
  const p = projectionMatrix(c, aspect, scratchProj);
  return mat4.multiply(p, v, dst);
}
const scratchView = mat4.create();
const scratchProj = mat4.create();

/**
 * Drag by (dx, dy) pixels: right turns the scene right (eye moves left), down
 * tilts to look from above. With `groundY` (the height of the scene's level
 * floor, where it has one) tilting up stops with the eye just above the floor
 * (GROUND_CLEARANCE of the distance): under it a user sees only the floor's
 * underside and the scene seems gone. A pitch already lower stays reachable.
 */
export function orbit(c: OrbitCamera, dx: number, dy: number, rate = ORBIT_RATE, groundY: number | null = null): void {
  c.yaw -= dx * rate;
  // Keep yaw in (-pi, pi] so it never loses precision after long sessions.
  c.yaw = Math.atan2(Math.sin(c.yaw), Math.cos(c.yaw));
  let pitch = clamp(c.pitch + dy * rate, -MAX_PITCH, MAX_PITCH);
  if (groundY !== null && pitch < c.pitch && c.target[1] > groundY) {
    const lowest = Math.asin(clamp((groundY - c.target[1]) / c.distance + GROUND_CLEARANCE, -1, 1));
    pitch = Math.max(pitch, Math.min(c.pitch, lowest));
  }
  c.pitch = pitch;
}

/** How far above the floor (a fraction of the distance to the target) orbiting keeps the eye. */
export const GROUND_CLEARANCE = 0.02;

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

/**
 * The lens shift that puts the target in the middle of the viewport's free
 * part, and the tangents of the half-angles that part spans around it.
 */
export function applyViewport(c: OrbitCamera, v: Viewport): { tanX: number; tanY: number } {
  const w = Math.max(1, v.width);
  const h = Math.max(1, v.height);
  const i = v.insets;
  const freeW = Math.max(1, w - i.left - i.right);
  const freeH = Math.max(1, h - i.top - i.bottom);
  c.shiftX = (i.left + freeW / 2 - w / 2) / (w / 2);
  c.shiftY = -(i.top + freeH / 2 - h / 2) / (h / 2);
  const t = Math.tan(c.fovY / 2);
  return { tanX: (t * (w / h) * freeW) / w, tanY: (t * freeH) / h };
}

/**
 * Screen position of a world point: pixels from the canvas's top-left
 * corner (x right, y down), and whether it is in front of the eye.
 */
export function projectPoint(c: OrbitCamera, v: Viewport, p: ArrayLike<number>, out: { x: number; y: number; front: boolean }): void {
  const m = viewProjection(c, v.width / Math.max(1, v.height), scratchProjected);
  const x = p[0]!, y = p[1]!, z = p[2]!;
  const cx = m[0]! * x + m[4]! * y + m[8]! * z + m[12]!;
  const cy = m[1]! * x + m[5]! * y + m[9]! * z + m[13]!;
  const cw = m[3]! * x + m[7]! * y + m[11]! * z + m[15]!;
  out.front = cw > 1e-6;
  const iw = out.front ? 1 / cw : 0;
  out.x = (0.5 + 0.5 * cx * iw) * v.width;
  out.y = (0.5 - 0.5 * cy * iw) * v.height;
}
const scratchProjected = mat4.create();

/**
 * The ray from the eye through a canvas pixel (x right, y down): origin and
 * unit direction, for picking. Inverts what viewProjection and the lens shift do.
 */
export function pixelRay(c: OrbitCamera, v: Viewport, px: number, py: number, origin: Writable3, dir: Writable3): void {
  const aspect = v.width / Math.max(1, v.height);
  const t = Math.tan(c.fovY / 2);
  // NDC of the pixel, minus the shift, scaled by the frustum's half-extents at unit depth.
  const nx = ((px / v.width) * 2 - 1 - c.shiftX) * t * aspect;
  const ny = (1 - (py / v.height) * 2 - c.shiftY) * t;
  cameraEye(c, scratchEye);
  for (let k = 0; k < 3; k++) origin[k] = scratchEye[k]!;
  // Camera basis: forward from the eye to the target, right = forward x up, up = right x forward.
  const fx = c.target[0] - origin[0]!, fy = c.target[1] - origin[1]!, fz = c.target[2] - origin[2]!;
  const fl = Math.hypot(fx, fy, fz) || 1;
  const f = [fx / fl, fy / fl, fz / fl];
  const rl = Math.hypot(f[2]!, f[0]!) || 1;
  const r = [-f[2]! / rl, 0, f[0]! / rl];
  const u = [r[1]! * f[2]! - r[2]! * f[1]!, r[2]! * f[0]! - r[0]! * f[2]!, r[0]! * f[1]! - r[1]! * f[0]!];
  for (let k = 0; k < 3; k++) dir[k] = f[k]! + nx * r[k]! + ny * u[k]!;
  const dl = Math.hypot(dir[0]!, dir[1]!, dir[2]!);
  for (let k = 0; k < 3; k++) dir[k] = dir[k]! / dl;
}

/**
 * Aims at the centre of a box and moves to the nearest distance from which
 * all eight corners lie inside the viewport's free part, shrunk by `margin`
 * (1.1 leaves a tenth of the free part around the box).
 */
export function frameBox(c: OrbitCamera, min: readonly number[], max: readonly number[], v: Viewport, margin = 1.1): void {
  const corners = new Float64Array(24);
  for (let k = 0; k < 8; k++) {
    corners[3 * k] = k & 1 ? max[0]! : min[0]!;
    corners[3 * k + 1] = k & 2 ? max[1]! : min[1]!;
    corners[3 * k + 2] = k & 4 ? max[2]! : min[2]!;
  }
  framePoints(c, corners, [0.5 * (min[0]! + max[0]!), 0.5 * (min[1]! + max[1]!), 0.5 * (min[2]! + max[2]!)], v, margin);
}

/**
 * Aims at `centre` and moves to the nearest distance from which every point
 * (xyz triples) lies inside the viewport's free part shrunk by `margin`,
 * keeping the viewing angles.
 */
export function framePoints(c: OrbitCamera, points: ArrayLike<number>, centre: readonly number[], v: Viewport, margin = 1.1): void {
  c.target[0] = centre[0]!;
  c.target[1] = centre[1]!;
  c.target[2] = centre[2]!;
  const { tanX, tanY } = applyViewport(c, v);
  const { f, right, up } = cameraBasis(c);
  // A point at (x, y) across and `depth` along the view from the target (positive: farther) is
  // d + depth in front of the eye at distance d; it fits when |x| margin <= tanX (d + depth), and
  // likewise for y.
  let d = 0;
  let r = 0.05;
  for (let k = 0; k + 2 < points.length; k += 3) {
    const rx = points[k]! - c.target[0], ry = points[k + 1]! - c.target[1], rz = points[k + 2]! - c.target[2];
    const x = rx * right[0]! + ry * right[1]! + rz * right[2]!;
    const y = rx * up[0]! + ry * up[1]! + rz * up[2]!;
    const depth = rx * f[0]! + ry * f[1]! + rz * f[2]!;
    d = Math.max(d, (Math.abs(x) * margin) / tanX - depth, (Math.abs(y) * margin) / tanY - depth);
    r = Math.max(r, Math.hypot(rx, ry, rz));
  }
  // Never inside the points' bounding sphere, where the near plane would cut them.
  c.distance = clamp(Math.max(d, 1.2 * r), MIN_DISTANCE, MAX_DISTANCE);
}

/** The camera's unit basis as lookAt builds it: forward from the eye to the target, right, up. Reused arrays. */
export function cameraBasis(c: OrbitCamera): { f: number[]; right: number[]; up: number[] } {
  const { f, right, up } = basis;
  const cp = Math.cos(c.pitch);
  f[0] = -cp * Math.sin(c.yaw);
  f[1] = -Math.sin(c.pitch);
  f[2] = -cp * Math.cos(c.yaw);
  const rl = Math.hypot(f[2]!, f[0]!) || 1;
  right[0] = -f[2]! / rl;
  right[1] = 0;
  right[2] = f[0]! / rl;
  up[0] = right[1]! * f[2]! - right[2]! * f[1]!;
  up[1] = right[2]! * f[0]! - right[0]! * f[2]!;
  up[2] = right[0]! * f[1]! - right[1]! * f[0]!;
  return basis;
}
const basis = { f: [0, 0, -1], right: [1, 0, 0], up: [0, 1, 0] };

/**
 * Points (xyz triples) in view coordinates, written to `out` as triples: across
 * (along the camera's right), up, and depth beyond the target (along the view).
 * A point fits the viewport's free part shrunk by `margin` at distance d when
 * |across| margin <= tanX (d + depth) and |up| margin <= tanY (d + depth).
 */
function toView(c: OrbitCamera, points: ArrayLike<number>, out: Float64Array): number {
  const { f, right, up } = cameraBasis(c);
  const n = Math.floor(points.length / 3);
  for (let k = 0; k < n; k++) {
    const rx = points[3 * k]! - c.target[0], ry = points[3 * k + 1]! - c.target[1], rz = points[3 * k + 2]! - c.target[2];
    out[3 * k] = rx * right[0]! + ry * right[1]! + rz * right[2]!;
    out[3 * k + 1] = rx * up[0]! + ry * up[1]! + rz * up[2]!;
    out[3 * k + 2] = rx * f[0]! + ry * f[1]! + rz * f[2]!;
  }
  return n;
}
let viewScratch = new Float64Array(0);
function viewCoords(c: OrbitCamera, points: ArrayLike<number>): { q: Float64Array; n: number } {
  if (viewScratch.length < points.length) viewScratch = new Float64Array(Math.max(points.length, 2 * viewScratch.length));
  return { q: viewScratch, n: toView(c, points, viewScratch) };
}

/** Moves the target by `across` metres along the camera's right and `up` along its up (the view plane). */
export function panBy(c: OrbitCamera, across: number, up: number): void {
  const b = cameraBasis(c);
  for (let k = 0; k < 3; k++) c.target[k] = c.target[k]! + across * b.right[k]! + up * b.up[k]!;
}

/** Whether every point (xyz triples) lies inside the viewport's free part shrunk by `margin`. */
export function pointsFit(c: OrbitCamera, v: Viewport, points: ArrayLike<number>, margin = 1.1): boolean {
  const { tanX, tanY } = applyViewport(c, v);
  const { q, n } = viewCoords(c, points);
  for (let k = 0; k < n; k++) {
    const depth = c.distance + q[3 * k + 2]!;
    if (depth <= NEAR_FRACTION * c.distance || Math.abs(q[3 * k]!) * margin > tanX * depth || Math.abs(q[3 * k + 1]!) * margin > tanY * depth) return false;
  }
  return true;
}

/**
 * The shortest pan in the view plane that brings every point (xyz triples)
 * inside the viewport's free part shrunk by `margin`, keeping the distance
 * and the angles, into `out` (metres along right and up): false, and no
 * pan, when they cannot all fit at this distance. Points behind the eye
 * are left out: a pan cannot bring them in.
 */
export function fitPan(c: OrbitCamera, v: Viewport, points: ArrayLike<number>, margin: number, out: { across: number; up: number }): boolean {
  const { tanX, tanY } = applyViewport(c, v);
  const { q, n } = viewCoords(c, points);
  let loX = -Infinity, hiX = Infinity, loY = -Infinity, hiY = Infinity;
  for (let k = 0; k < n; k++) {
    const depth = c.distance + q[3 * k + 2]!;
    if (depth <= NEAR_FRACTION * c.distance) continue;
    const hx = (tanX * depth) / margin, hy = (tanY * depth) / margin;
    loX = Math.max(loX, q[3 * k]! - hx);
    hiX = Math.min(hiX, q[3 * k]! + hx);
    loY = Math.max(loY, q[3 * k + 1]! - hy);
    hiY = Math.min(hiY, q[3 * k + 1]! + hy);
  }
  out.across = out.up = 0;
  if (loX > hiX || loY > hiY) return false;
  out.across = nearestToZero(loX, hiX);
  out.up = nearestToZero(loY, hiY);
  return true;
}

/**
 * Pans (fitPan) so every point lies inside the free part shrunk by
 * `margin`; where they cannot all fit, centres them. For a followed body:
 * the glide lags a fast body by its speed times the time constant (more at
 * a low frame rate), which put the caterpillar under the panel. True when
 * it moved the target.
 */
export function panToFit(c: OrbitCamera, v: Viewport, points: ArrayLike<number>, margin = 1.1): boolean {
  const p = scratchPan;
  if (!fitPan(c, v, points, margin, p)) {
    // Too big for the view at this distance: centred both ways.
    const { q, n } = viewCoords(c, points);
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let k = 0; k < n; k++) {
      if (c.distance + q[3 * k + 2]! <= NEAR_FRACTION * c.distance) continue;
      x0 = Math.min(x0, q[3 * k]!);
      x1 = Math.max(x1, q[3 * k]!);
      y0 = Math.min(y0, q[3 * k + 1]!);
      y1 = Math.max(y1, q[3 * k + 1]!);
    }
    if (x0 > x1) return false;
    p.across = 0.5 * (x0 + x1);
    p.up = 0.5 * (y0 + y1);
  }
  if (p.across === 0 && p.up === 0) return false;
  panBy(c, p.across, p.up);
  return true;
}
const scratchPan = { across: 0, up: 0 };

/** Where a camera widened to fit more goes: a pan in the view plane (metres along right, up) and a distance. */
export interface WidenGoal {
  across: number;
  up: number;
  distance: number;
}

/**
 * The nearest view, with the same angles, that keeps all it shows now and
 * also fits every point (xyz triples) inside the free part shrunk by
 * `margin`: a pan in the view plane and a distance never shorter than now.
 * "All it shows now" is the free part's rectangle at the target's depth,
 * which must stay inside the new view, so a pan is paid for by zooming out
 * and the camera never zooms in. The least such distance is found by
 * bisection: for a distance, each point allows an interval of pans across
 * and one up, and the distance works when the intervals meet.
 */
export function widenToFit(c: OrbitCamera, v: Viewport, points: ArrayLike<number>, margin: number, out: WidenGoal): WidenGoal {
  const { tanX, tanY } = applyViewport(c, v);
  const { q, n } = viewCoords(c, points);
  const d0 = c.distance;
  const pans = { x: 0, y: 0 };
  const fits = (d: number): boolean => {
    // The rectangle shown now, half-extents tanX d0 and tanY d0 at depth 0, inside the new view.
    let loX = tanX * (d0 - d), hiX = tanX * (d - d0), loY = tanY * (d0 - d), hiY = tanY * (d - d0);
    for (let k = 0; k < n; k++) {
      const depth = d + q[3 * k + 2]!;
      if (depth <= NEAR_FRACTION * d) return false;
      const hx = (tanX * depth) / margin, hy = (tanY * depth) / margin;
      loX = Math.max(loX, q[3 * k]! - hx);
      hiX = Math.min(hiX, q[3 * k]! + hx);
      loY = Math.max(loY, q[3 * k + 1]! - hy);
      hiY = Math.min(hiY, q[3 * k + 1]! + hy);
    }
    if (loX > hiX || loY > hiY) return false;
    pans.x = nearestToZero(loX, hiX);
    pans.y = nearestToZero(loY, hiY);
    return true;
  };
  let lo = d0, hi = d0;
  if (!fits(d0)) {
    hi = Math.max(d0, MIN_DISTANCE);
    while (hi < MAX_DISTANCE && !fits(hi)) {
      lo = hi;
      hi = Math.min(MAX_DISTANCE, 2 * hi);
    }
    // Bisect to a thousandth of the distance; the last call that fits leaves its pans.
    while (hi - lo > 1e-3 * hi) {
      const mid = 0.5 * (lo + hi);
      if (fits(mid)) hi = mid;
      else lo = mid;
    }
    if (!fits(hi)) pans.x = pans.y = 0;
  }
  out.across = pans.x;
  out.up = pans.y;
  out.distance = hi;
  return out;
}

/** A point nearer the eye than this fraction of the distance is too near to count as in view (the near plane is at 0.02). */
const NEAR_FRACTION = 0.05;

/** The value of [lo, hi] nearest zero; the middle when the interval is empty. */
function nearestToZero(lo: number, hi: number): number {
  if (lo > hi) return 0.5 * (lo + hi);
  return lo > 0 ? lo : hi < 0 ? hi : 0;
}

/**
 * Moves the target towards a followed point: an exponential approach with
 * a time constant of `tau` seconds, so the view glides rather than jumps and
 * a body moving at speed v stays about v tau behind the middle.
 */
export function followPoint(c: OrbitCamera, p: ArrayLike<number>, dt: number, tau = 0.15): void {
  const a = 1 - Math.exp(-Math.max(0, dt) / tau);
  for (let k = 0; k < 3; k++) c.target[k] = c.target[k]! + (p[k]! - c.target[k]!) * a;
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
