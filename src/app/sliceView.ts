/**
 * The pure parts of the depth-field slice: which grid axis faces the camera,
 * the slice as a 2D field of phi on the grid's node lines, its colour map
 * (the same as shaders/render_slice.wgsl draws in the 3D view), the colour
 * scale in metres, and the zero contour by marching squares. The inset
 * (sliceInset.ts) draws these; unit tests check them without a browser.
 */
import type { SdfGrid } from '../sdf/grid.ts';
import type { SliceAxis } from './views.ts';

export const AXES: readonly SliceAxis[] = ['x', 'y', 'z'];
const AXIS_INDEX: Record<SliceAxis, number> = { x: 0, y: 1, z: 2 };

/**
 * The colour map saturates this many cells from the surface, inside and
 * outside (render_slice.wgsl uses the same number).
 */
export const SLICE_RANGE_CELLS = 8;

/**
 * The world direction of a body's local axis `a` (0 x, 1 y, 2 z): column a
 * of the rotation of the quaternion x y z w at quat[q..q+3] (as
 * frameData.ts bodyMatrix builds it).
 */
export function axisDirection(quat: ArrayLike<number>, q: number, a: number): [number, number, number] {
  const x = quat[q]!, y = quat[q + 1]!, z = quat[q + 2]!, w = quat[q + 3]!;
  if (a === 0) return [1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)];
  if (a === 1) return [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)];
  return [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)];
}

/**
 * The body-grid axis that faces the view most: the local axis whose world
 * direction (a column of the body's rotation, quaternion x y z w at
 * quat[q..q+3]) has the largest |dot| with `viewDir`. The current axis is
 * kept unless another one beats it by `hysteresis` (in |cos|), so the slice
 * does not flip back and forth while the camera orbits near a diagonal.
 */
export function facingAxis(quat: ArrayLike<number>, q: number, viewDir: ArrayLike<number>, current?: SliceAxis, hysteresis = 0.05): SliceAxis {
  const len = Math.hypot(viewDir[0]!, viewDir[1]!, viewDir[2]!) || 1;
  const c = [0, 1, 2].map((a) => {
    const e = axisDirection(quat, q, a);
    return Math.abs(e[0] * viewDir[0]! + e[1] * viewDir[1]! + e[2] * viewDir[2]!) / len;
  });
  let best = 0;
  for (let a = 1; a < 3; a++) if (c[a]! > c[best]!) best = a;
  if (current !== undefined && c[AXIS_INDEX[current]]! + hysteresis >= c[best]!) return current;
  return AXES[best]!;
}

/**
 * The slice as a 2D field: phi on the node lines of the plane across `axis`
 * at `offset` (0 = first node plane, 1 = last), interpolated between the two
 * node planes around it, as sampleSdf does. Image axes: u = the next grid
 * axis after `axis`, v = the one after that (as sliceQuad's edges), so a
 * point (i, j) of the image is at origin + h (i e_u + j e_v) + plane e_axis.
 */
export interface SliceImage {
  axis: SliceAxis;
  /** Grid axis indices of the image's u and v directions, and of the normal. */
  a: number;
  u: number;
  v: number;
  nu: number;
  nv: number;
  /** phi at node (i, j): values[i + nu j]. */
  values: Float32Array;
  cellSize: number;
  /** The local-frame origin of the grid (node 0, 0, 0). */
  origin: [number, number, number];
  /** The plane's coordinate along the normal axis (local, metres). */
  plane: number;
}

export function sliceImage(g: SdfGrid, axis: SliceAxis, offset: number): SliceImage {
  const a = AXIS_INDEX[axis];
  const u = (a + 1) % 3, v = (a + 2) % 3;
  const n = g.dims;
  const nu = n[u]!, nv = n[v]!;
  const o = Math.min(1, Math.max(0, Number.isFinite(offset) ? offset : 0.5));
  const ga = o * (n[a]! - 1);
  const k0 = Math.min(Math.floor(ga), n[a]! - 2);
  const f = ga - k0;
  const stride = [1, n[0]!, n[0]! * n[1]!];
  const values = new Float32Array(nu * nv);
  for (let j = 0; j < nv; j++) {
    for (let i = 0; i < nu; i++) {
      const base = i * stride[u]! + j * stride[v]! + k0 * stride[a]!;
      const p0 = g.values[base]!, p1 = g.values[base + stride[a]!]!;
      values[i + nu * j] = p0 + f * (p1 - p0);
    }
  }
  return { axis, a, u, v, nu, nv, values, cellSize: g.cellSize, origin: [g.origin[0], g.origin[1], g.origin[2]], plane: g.origin[a]! + ga * g.cellSize };
}

/** phi at image point (s, t) in node units (bilinear; clamped to the image). */
export function sliceValue(img: SliceImage, s: number, t: number): number {
  const cs = Math.min(Math.max(s, 0), img.nu - 1), ct = Math.min(Math.max(t, 0), img.nv - 1);
  const i = Math.min(Math.floor(cs), img.nu - 2), j = Math.min(Math.floor(ct), img.nv - 2);
  const fs = cs - i, ft = ct - j;
  const v = img.values, nu = img.nu;
  const a = v[i + nu * j]! + fs * (v[i + 1 + nu * j]! - v[i + nu * j]!);
  const b = v[i + nu * (j + 1)]! + fs * (v[i + 1 + nu * (j + 1)]! - v[i + nu * (j + 1)]!);
  return a + ft * (b - a);
}

/** The local point of image point (s, t) (node units). */
export function slicePoint(img: SliceImage, s: number, t: number): [number, number, number] {
  const p: [number, number, number] = [img.origin[0], img.origin[1], img.origin[2]];
  p[img.u] = img.origin[img.u]! + s * img.cellSize;
  p[img.v] = img.origin[img.v]! + t * img.cellSize;
  p[img.a] = img.plane;
  return p;
}

const mix = (a: number, b: number, t: number) => a + (b - a) * t;

/**
 * The slice colour of phi (metres) on a grid of cell size h, as sRGB-ish
 * 0..1 (render_slice.wgsl without its contour bands): inside from pale
 * to deep blue, outside from pale to deep amber, saturating at
 * SLICE_RANGE_CELLS cells; the same 1/1.2 gamma.
 */
export function phiColor(phi: number, h: number, out: number[] = [0, 0, 0]): number[] {
  const t = Math.min(1, Math.max(-1, phi / (SLICE_RANGE_CELLS * h)));
  let r: number, g: number, b: number;
  if (phi < 0) {
    r = mix(0.75, 0.05, -t);
    g = mix(0.85, 0.25, -t);
    b = mix(0.95, 0.75, -t);
  } else {
    r = mix(0.95, 0.8, t);
    g = mix(0.88, 0.3, t);
    b = mix(0.7, 0.05, t);
  }
  out[0] = Math.pow(r, 1 / 1.2);
  out[1] = Math.pow(g, 1 / 1.2);
  out[2] = Math.pow(b, 1 / 1.2);
  return out;
}

/** The colour scale's ticks: phi in metres at -range, -range/2, 0, range/2, range. */
export function scaleTicks(h: number): number[] {
  const r = SLICE_RANGE_CELLS * h;
  return [-r, -r / 2, 0, r / 2, r];
}

/** A length in metres with three significant digits ("-0.0123 m", "0 m"). */
export function formatMetres(x: number): string {
  if (x === 0 || !Number.isFinite(x)) return `${x === 0 ? 0 : x} m`;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(x))));
  return `${x.toFixed(digits).replace('-', '\u2212')} m`;
}

/**
 * The zero contour of the image by marching squares, linear along each cell
 * edge: a flat list of segments (s0, t0, s1, t1 in node units). A saddle
 * cell (signs alternating round it) is split by the sign of its mean. Nodes
 * at exactly 0 count as outside (phi >= 0), as the depth-field nodes do.
 */
export function zeroContour(img: SliceImage): number[] {
  const out: number[] = [];
  const { nu, nv, values: v } = img;
  const cross = (a: number, b: number) => a / (a - b);
  const pts: number[] = [];
  for (let j = 0; j + 1 < nv; j++) {
    for (let i = 0; i + 1 < nu; i++) {
      // Corners counter-clockwise: (i, j), (i+1, j), (i+1, j+1), (i, j+1).
      const p0 = v[i + nu * j]!, p1 = v[i + 1 + nu * j]!, p2 = v[i + 1 + nu * (j + 1)]!, p3 = v[i + nu * (j + 1)]!;
      const in0 = p0 < 0, in1 = p1 < 0, in2 = p2 < 0, in3 = p3 < 0;
      if (in0 === in1 && in1 === in2 && in2 === in3) continue;
      // Crossing points on the edges 0-1 (bottom), 1-2 (right), 2-3 (top), 3-0 (left), in order.
      pts.length = 0;
      if (in0 !== in1) pts.push(i + cross(p0, p1), j);
      if (in1 !== in2) pts.push(i + 1, j + cross(p1, p2));
      if (in2 !== in3) pts.push(i + 1 - cross(p2, p3), j + 1);
      if (in3 !== in0) pts.push(i, j + 1 - cross(p3, p0));
      if (pts.length === 4) {
        out.push(pts[0]!, pts[1]!, pts[2]!, pts[3]!);
      } else {
        // Four crossings: a saddle. Pair each crossing with a neighbour so that the segments
        // separate the corners whose sign differs from the cell's mean.
        const centreInside = p0 + p1 + p2 + p3 < 0;
        // Edges in order bottom, right, top, left; corner 0 sits between left and bottom.
        if (centreInside === in0) out.push(pts[0]!, pts[1]!, pts[2]!, pts[3]!, pts[4]!, pts[5]!, pts[6]!, pts[7]!);
        else out.push(pts[6]!, pts[7]!, pts[0]!, pts[1]!, pts[2]!, pts[3]!, pts[4]!, pts[5]!);
      }
    }
  }
  return out;
}

/**
 * Where a world ray (unit direction) meets the slice of body `i`'s grid
 * across `axis` at `offset`, inside the grid's cross-section: the distance
 * along the ray, or null when it misses (or the plane is behind the eye).
 * The body's pose is pos[3i..], quat[4i..] (x y z w).
 */
export function raySliceHit(
  g: SdfGrid,
  axis: SliceAxis,
  offset: number,
  pos: ArrayLike<number>,
  quat: ArrayLike<number>,
  i: number,
  origin: ArrayLike<number>,
  dir: ArrayLike<number>,
): number | null {
  const a = AXIS_INDEX[axis];
  // local = R^T (world - pos): the rows of R^T are R's columns.
  const cols = [0, 1, 2].map((k) => axisDirection(quat, 4 * i, k));
  const rel = [origin[0]! - pos[3 * i]!, origin[1]! - pos[3 * i + 1]!, origin[2]! - pos[3 * i + 2]!];
  const o = cols.map((c) => c[0]! * rel[0]! + c[1]! * rel[1]! + c[2]! * rel[2]!);
  const d = cols.map((c) => c[0]! * dir[0]! + c[1]! * dir[1]! + c[2]! * dir[2]!);
  const n = g.dims;
  const plane = g.origin[a]! + Math.min(1, Math.max(0, offset)) * (n[a]! - 1) * g.cellSize;
  if (Math.abs(d[a]!) < 1e-12) return null;
  const t = (plane - o[a]!) / d[a]!;
  if (!(t > 0)) return null;
  for (const k of [(a + 1) % 3, (a + 2) % 3]) {
    const p = o[k]! + t * d[k]!;
    if (p < g.origin[k]! || p > g.origin[k]! + (n[k]! - 1) * g.cellSize) return null;
  }
  return t;
}

/**
 * The slice's offset after a vertical drag of `dy` pixels (down positive):
 * up moves it away from the eye, as far along its normal as the cursor
 * moved across the view (`metresPerPixel` at the body), over a grid
 * `extent` metres deep along the normal; `normalDotView` is the dot of the
 * normal's world direction (the grid axis) with the line of sight.
 */
export function dragSliceOffset(offset: number, dy: number, metresPerPixel: number, extent: number, normalDotView: number): number {
  const away = normalDotView >= 0 ? 1 : -1;
  return Math.min(1, Math.max(0, offset + (away * -dy * metresPerPixel) / Math.max(extent, 1e-9)));
}

/**
 * How the inset lays the slice out so that it looks as the view shows it:
 * which image axis runs across (`swap`: v across, u up) and whether each
 * runs backwards, from the world directions of the image's u and v axes
 * and the camera's right and up. One of the square's eight symmetries.
 */
export interface InsetFrame {
  swap: boolean;
  /** The across axis runs right to left. */
  flipAcross: boolean;
  /** The up axis runs top to bottom. */
  flipUp: boolean;
}

export const IDENTITY_FRAME: InsetFrame = { swap: false, flipAcross: false, flipUp: false };

export function insetFrame(u: ArrayLike<number>, v: ArrayLike<number>, right: ArrayLike<number>, up: ArrayLike<number>): InsetFrame {
  const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
  const ux = dot(u, right), uy = dot(u, up), vx = dot(v, right), vy = dot(v, up);
  if (Math.abs(ux) + Math.abs(vy) >= Math.abs(vx) + Math.abs(uy)) return { swap: false, flipAcross: ux < 0, flipUp: vy < 0 };
  return { swap: true, flipAcross: vx < 0, flipUp: uy < 0 };
}

/**
 * Image point (s, t) (node units) of the inset point (X across, Y up, both
 * 0..1), laid out by `f`; insetPoint is its inverse.
 */
export function imagePoint(img: SliceImage, f: InsetFrame, X: number, Y: number): [number, number] {
  const a = f.flipAcross ? 1 - X : X, b = f.flipUp ? 1 - Y : Y;
  return f.swap ? [b * (img.nu - 1), a * (img.nv - 1)] : [a * (img.nu - 1), b * (img.nv - 1)];
}

export function insetPoint(img: SliceImage, f: InsetFrame, s: number, t: number): [number, number] {
  const a = f.swap ? t / (img.nv - 1) : s / (img.nu - 1);
  const b = f.swap ? s / (img.nu - 1) : t / (img.nv - 1);
  return [f.flipAcross ? 1 - a : a, f.flipUp ? 1 - b : b];
}
