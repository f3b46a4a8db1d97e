/**
 * CPU-built overlay geometry shared by the WebGPU renderer and the Canvas2D
 * fallback: coloured world-space vertices for AABB boxes, contact normals and
 * points, joint anchors, force arrows, plus the palettes bodies are painted with.
 *
 * One vertex layout serves lines (a vertex buffer, float32x3 + unorm8x4) and
 * points (a storage buffer of render_points.wgsl `PointRec`): 16 bytes,
 * position at byte 0, packed RGBA8 at byte 12 (render/layout.ts). The lists
 * grow by doubling and are reused frame to frame, so a steady frame
 * allocates nothing.
 */
import type { Aabb } from '../geometry/mesh.ts';
import { OVERLAY_VERTEX_BYTES as VERTEX_BYTES } from './render/layout.ts';
import type { RenderWorld } from './sceneRenderer.ts';
import type { ViewState } from './views.ts';

export class VertexList {
  count = 0;
  buffer: ArrayBuffer;
  f32: Float32Array;
  u32: Uint32Array;

  constructor(capacity = 256) {
    this.buffer = new ArrayBuffer(capacity * VERTEX_BYTES);
    this.f32 = new Float32Array(this.buffer);
    this.u32 = new Uint32Array(this.buffer);
  }

  clear(): void {
    this.count = 0;
  }

  push(x: number, y: number, z: number, rgba: number): void {
    if ((this.count + 1) * VERTEX_BYTES > this.buffer.byteLength) this.grow();
    const o = this.count * 4;
    this.f32[o] = x;
    this.f32[o + 1] = y;
    this.f32[o + 2] = z;
    this.u32[o + 3] = rgba >>> 0;
    this.count++;
  }

  /** The used bytes (a view, no copy). */
  bytes(): Uint8Array {
    return new Uint8Array(this.buffer, 0, this.count * VERTEX_BYTES);
  }

  private grow(): void {
    const b = new ArrayBuffer(this.buffer.byteLength * 2);
    new Uint8Array(b).set(new Uint8Array(this.buffer));
    this.buffer = b;
    this.f32 = new Float32Array(b);
    this.u32 = new Uint32Array(b);
  }
}

/** Packs 0..1 floats into the u32 that WGSL's unpack4x8unorm reads back as (r, g, b, a). */
export function packColor(r: number, g: number, b: number, a = 1): number {
  const c = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 255);
  return (c(r) | (c(g) << 8) | (c(b) << 16) | (c(a) << 24)) >>> 0;
}

export function unpackColor(rgba: number): [number, number, number, number] {
  return [(rgba & 255) / 255, ((rgba >>> 8) & 255) / 255, ((rgba >>> 16) & 255) / 255, ((rgba >>> 24) & 255) / 255];
}

/** Soft, distinguishable body colours (linear-ish RGB; the shader applies gamma). */
const BODY_PALETTE: readonly [number, number, number][] = [
  [0.80, 0.30, 0.12],
  [0.12, 0.36, 0.75],
  [0.85, 0.60, 0.12],
  [0.25, 0.58, 0.30],
  [0.60, 0.22, 0.55],
  [0.12, 0.55, 0.58],
  [0.80, 0.28, 0.30],
  [0.38, 0.36, 0.78],
];
const STATIC_COLOR: readonly [number, number, number] = [0.32, 0.34, 0.38];

/** Colour of body i: static bodies neutral grey, dynamic ones from the palette by index. */
export function bodyColor(i: number, isStatic: boolean, out: Float32Array | number[], o = 0): void {
  const c = isStatic ? STATIC_COLOR : BODY_PALETTE[i % BODY_PALETTE.length]!;
  out[o] = c[0];
  out[o + 1] = c[1];
  out[o + 2] = c[2];
}

/**
 * Colour of a contact-graph level: -1 (static / not in contact) grey, level 0
 * deep blue, rising through green and yellow to red, repeating every 12
 * levels so a tall stack still shows its steps.
 */
export function levelColor(level: number, out: Float32Array | number[], o = 0): void {
  if (level < 0) {
    out[o] = 0.35;
    out[o + 1] = 0.36;
    out[o + 2] = 0.4;
    return;
  }
  const t = (level % 12) / 11;
  // A short piecewise ramp blue -> cyan -> green -> yellow -> red.
  const stops = LEVEL_STOPS;
  const x = t * (stops.length - 1);
  const k = Math.min(stops.length - 2, Math.floor(x));
  const f = x - k;
  for (let c = 0; c < 3; c++) out[o + c] = stops[k]![c]! * (1 - f) + stops[k + 1]![c]! * f;
}
const LEVEL_STOPS: readonly [number, number, number][] = [
  [0.2, 0.3, 0.9],
  [0.15, 0.75, 0.85],
  [0.3, 0.85, 0.35],
  [0.95, 0.85, 0.2],
  [0.95, 0.3, 0.2],
];

/**
 * World AABB of a body: its local bounds turned by the quaternion (the box of
 * the turned box, |R| times the half extents) and moved to the position.
 * Writes min xyz then max xyz into out[o..o+5].
 */
export function worldAabb(
  local: Aabb,
  pos: Float64Array,
  p: number,
  quat: Float64Array,
  q: number,
  out: Float64Array | Float32Array,
  o = 0,
): void {
  const x = quat[q]!, y = quat[q + 1]!, z = quat[q + 2]!, w = quat[q + 3]!;
  // Rotation matrix rows from the unit quaternion.
  const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - z * w), r02 = 2 * (x * z + y * w);
  const r10 = 2 * (x * y + z * w), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
  const r20 = 2 * (x * z - y * w), r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
  const cx = 0.5 * (local.min[0] + local.max[0]), cy = 0.5 * (local.min[1] + local.max[1]), cz = 0.5 * (local.min[2] + local.max[2]);
  const hx = 0.5 * (local.max[0] - local.min[0]), hy = 0.5 * (local.max[1] - local.min[1]), hz = 0.5 * (local.max[2] - local.min[2]);
  const wx = pos[p]! + r00 * cx + r01 * cy + r02 * cz;
  const wy = pos[p + 1]! + r10 * cx + r11 * cy + r12 * cz;
  const wz = pos[p + 2]! + r20 * cx + r21 * cy + r22 * cz;
  const ex = Math.abs(r00) * hx + Math.abs(r01) * hy + Math.abs(r02) * hz;
  const ey = Math.abs(r10) * hx + Math.abs(r11) * hy + Math.abs(r12) * hz;
  const ez = Math.abs(r20) * hx + Math.abs(r21) * hy + Math.abs(r22) * hz;
  out[o] = wx - ex;
  out[o + 1] = wy - ey;
  out[o + 2] = wz - ez;
  out[o + 3] = wx + ex;
  out[o + 4] = wy + ey;
  out[o + 5] = wz + ez;
}

/** The 12 edges of a box as 24 line vertices. */
export function pushBoxLines(list: VertexList, b: ArrayLike<number>, o: number, rgba: number): void {
  const x0 = b[o]!, y0 = b[o + 1]!, z0 = b[o + 2]!, x1 = b[o + 3]!, y1 = b[o + 4]!, z1 = b[o + 5]!;
  // Four edges along x, four along y, four along z.
  for (let k = 0; k < 4; k++) {
    const ya = k & 1 ? y1 : y0;
    const za = k & 2 ? z1 : z0;
    list.push(x0, ya, za, rgba);
    list.push(x1, ya, za, rgba);
    const xb = k & 1 ? x1 : x0;
    list.push(xb, y0, za, rgba);
    list.push(xb, y1, za, rgba);
    const yb = k & 2 ? y1 : y0;
    list.push(xb, yb, z0, rgba);
    list.push(xb, yb, z1, rgba);
  }
}

/** A contact: a point and a short segment along its normal. */
export function pushContact(
  points: VertexList,
  lines: VertexList,
  p: ArrayLike<number>,
  n: ArrayLike<number>,
  i: number,
  length: number,
  pointRgba: number,
  lineRgba: number,
): void {
  const x = p[3 * i]!, y = p[3 * i + 1]!, z = p[3 * i + 2]!;
  points.push(x, y, z, pointRgba);
  lines.push(x, y, z, lineRgba);
  lines.push(x + n[3 * i]! * length, y + n[3 * i + 1]! * length, z + n[3 * i + 2]! * length, lineRgba);
}

/** Joint anchor segments (6 numbers each, from RenderWorld.constraints) as lines. */
export function pushSegments(lines: VertexList, seg: Float64Array | undefined, rgba: number): void {
  if (!seg) return;
  for (let o = 0; o + 6 <= seg.length; o += 6) {
    lines.push(seg[o]!, seg[o + 1]!, seg[o + 2]!, rgba);
    lines.push(seg[o + 3]!, seg[o + 4]!, seg[o + 5]!, rgba);
  }
}

/** Contact normals are drawn a third of the mean bounding radius of the non-plane shapes long (0.2 m without any). */
export function contactNormalLength(world: RenderWorld): number {
  let r = 0;
  let n = 0;
  for (const s of world.shapes) {
    if (s.kind === 'plane') continue;
    r += s.radius;
    n++;
  }
  return n > 0 ? (0.35 * r) / n : 0.2;
}

/**
 * External forces as arrows (forces view): each from the point the force acts
 * at, along the force, the largest of the frame `length` long and the others
 * in proportion; the head is two strokes a quarter of the arrow back.
 */
export function pushForceArrows(lines: VertexList, arrows: ArrayLike<number>, count: number, length: number, rgba: number): void {
  let fmax = 0;
  for (let k = 0; k < count; k++) fmax = Math.max(fmax, Math.hypot(arrows[6 * k + 3]!, arrows[6 * k + 4]!, arrows[6 * k + 5]!));
  if (!(fmax > 0) || !Number.isFinite(fmax)) return;
  const s = length / fmax;
  for (let k = 0; k < count; k++) {
    const o = 6 * k;
    const x = arrows[o]!, y = arrows[o + 1]!, z = arrows[o + 2]!;
    const dx = arrows[o + 3]! * s, dy = arrows[o + 4]! * s, dz = arrows[o + 5]! * s;
    const l = Math.hypot(dx, dy, dz);
    if (!(l > 1e-6 * length)) continue;
    const tx = x + dx, ty = y + dy, tz = z + dz;
    lines.push(x, y, z, rgba);
    lines.push(tx, ty, tz, rgba);
    // A unit vector across the arrow: the arrow crossed with the axis it is least along.
    const ax = Math.abs(dx), ay = Math.abs(dy), az = Math.abs(dz);
    const [ex, ey, ez] = ax <= ay && ax <= az ? [1, 0, 0] : ay <= az ? [0, 1, 0] : [0, 0, 1];
    let px = dy * ez - dz * ey, py = dz * ex - dx * ez, pz = dx * ey - dy * ex;
    const pl = Math.hypot(px, py, pz);
    px /= pl; py /= pl; pz /= pl;
    const back = 0.25, side = 0.12 * l;
    for (const sign of [1, -1]) {
      lines.push(tx, ty, tz, rgba);
      lines.push(tx - back * dx + sign * side * px, ty - back * dy + sign * side * py, tz - back * dz + sign * side * pz, rgba);
    }
  }
}

const FORCE_ARROW = packColor(0.3, 1.0, 0.45, 0.95);
const AABB_DYNAMIC = packColor(0.4, 0.85, 1.0, 0.8);
const AABB_STATIC = packColor(0.55, 0.6, 0.7, 0.5);
const CONTACT_POINT = packColor(1.0, 0.25, 0.35);
const CONTACT_NORMAL = packColor(1.0, 0.6, 0.3, 0.95);
const JOINT_ANCHOR = packColor(0.95, 0.95, 0.5, 0.95);
const ROPE = packColor(0.85, 0.75, 0.55);

/** The overlay lines and points of one frame, as both renderers draw them. */
export class OverlayGeometry {
  readonly lines = new VertexList(1024);
  readonly points = new VertexList(256);
  private readonly box = new Float64Array(6);

  /** World AABBs (aabbs view); contact points with their normals and joint anchors (contacts view). */
  build(world: RenderWorld, views: ViewState, normalLength: number): void {
    const lines = this.lines;
    const points = this.points;
    lines.clear();
    points.clear();
    const b = world.bodies;
    if (views.aabbs) {
      for (let i = 0; i < b.count; i++) {
        const s = world.shapes[b.shape[i]!]!;
        if (s.kind === 'plane') continue;
        worldAabb(s.localBounds, b.pos, 3 * i, b.quat, 4 * i, this.box);
        pushBoxLines(lines, this.box, 0, b.isStatic[i] ? AABB_STATIC : AABB_DYNAMIC);
      }
    }
    // Ropes and distance joints are things in the scene: drawn in every view.
    pushSegments(lines, world.constraints?.ropeSegments?.(), ROPE);
    if (views.contacts) {
      const c = world.contacts;
      for (let i = 0; i < c.count; i++) pushContact(points, lines, c.points, c.normals, i, normalLength, CONTACT_POINT, CONTACT_NORMAL);
      pushSegments(lines, world.constraints?.anchorSegments?.(), JOINT_ANCHOR);
    }
    const f = world.forces;
    if (views.forces && f && f.arrowCount > 0) pushForceArrows(lines, f.arrows, f.arrowCount, 4 * normalLength, FORCE_ARROW);
  }
}
