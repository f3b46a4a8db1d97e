import type { Vec3 } from '../geometry/mesh.ts';

/**
 * A signed distance field on a regular grid (docs/ALGORITHM.md 1): negative inside,
 * positive outside. Node (i, j, k) sits at origin + cellSize * (i, j, k) and its
 * value is values[i + nx * (j + ny * k)] (x fastest).
 */
export interface SdfGrid {
  origin: Vec3;
  cellSize: number;
  /** Node counts nx, ny, nz (cells are dims - 1 per axis). */
  dims: Vec3;
  values: Float32Array;
}

/** Distance reported for points outside the grid: "far outside, no normal". */
export const OUTSIDE_DISTANCE = 1e30;

export function nodeIndex(g: SdfGrid, i: number, j: number, k: number): number {
  return i + g.dims[0] * (j + g.dims[1] * k);
}

export function nodeCount(g: SdfGrid): number {
  return g.dims[0] * g.dims[1] * g.dims[2];
}

/** The grid box in local coordinates. */
export function gridBounds(g: SdfGrid): { min: Vec3; max: Vec3 } {
  const h = g.cellSize;
  return {
    min: [g.origin[0], g.origin[1], g.origin[2]],
    max: [
      g.origin[0] + h * (g.dims[0] - 1),
      g.origin[1] + h * (g.dims[1] - 1),
      g.origin[2] + h * (g.dims[2] - 1),
    ],
  };
}

/**
 * phi(p) only, for a point known to be inside the grid box (the caller tests
 * the box): the hot path of the CPU query. Same arithmetic as sampleSdf.
 */
export function sdfPhiInside(g: SdfGrid, x: number, y: number, z: number): number {
  const inv = 1 / g.cellSize;
  return sdfPhiGrid(g, (x - g.origin[0]) * inv, (y - g.origin[1]) * inv, (z - g.origin[2]) * inv);
}

/**
 * phi at grid coordinates (gx, gy, gz) (node units, origin at node 0), which
 * must lie in [0, dims - 1] on every axis. sdfPhiInside and the query's
 * extension beyond the grid box (src/collision/cpuKernel.ts) use it, and the
 * kernel's sphere cull writes the same arithmetic out; the GPU twin is
 * `sdf_phi_grid` in shaders/common.wgsl.
 */
export function sdfPhiGrid(g: SdfGrid, gx: number, gy: number, gz: number): number {
  const nx = g.dims[0], ny = g.dims[1];
  let i = Math.floor(gx), j = Math.floor(gy), k = Math.floor(gz);
  if (i > nx - 2) i = nx - 2;
  if (j > ny - 2) j = ny - 2;
  if (k > g.dims[2] - 2) k = g.dims[2] - 2;
  const fx = gx - i, fy = gy - j, fz = gz - k;
  const v = g.values;
  const b = i + nx * (j + ny * k);
  const sz = nx * ny;
  const ex = 1 - fx, ey = 1 - fy;
  const c00 = ex * v[b]! + fx * v[b + 1]!;
  const c10 = ex * v[b + nx]! + fx * v[b + nx + 1]!;
  const c01 = ex * v[b + sz]! + fx * v[b + sz + 1]!;
  const c11 = ex * v[b + sz + nx]! + fx * v[b + sz + nx + 1]!;
  return (1 - fz) * (ey * c00 + fy * c10) + fz * (ey * c01 + fy * c11);
}

/**
 * phi(p) by trilinear interpolation (2.1) and, when `normal` is given, the
 * interpolated gradient (2.2-2.5), normalised, written to normal[0..2].
 * Outside the grid: returns OUTSIDE_DISTANCE and leaves `normal` untouched.
 *
 * The GPU twin is `sample_sdf` in shaders/common.wgsl; keep them in step.
 */
export function sampleSdf(
  g: SdfGrid,
  x: number,
  y: number,
  z: number,
  normal?: Float64Array | number[],
): number {
  const inv = 1 / g.cellSize;
  const nx = g.dims[0];
  const ny = g.dims[1];
  const nz = g.dims[2];
  const gx = (x - g.origin[0]) * inv;
  const gy = (y - g.origin[1]) * inv;
  const gz = (z - g.origin[2]) * inv;
  if (!(gx >= 0 && gy >= 0 && gz >= 0 && gx <= nx - 1 && gy <= ny - 1 && gz <= nz - 1)) {
    return OUTSIDE_DISTANCE;
  }
  // Cell index (2.6), clamped so points on the far face use the last cell.
  let i = Math.floor(gx);
  let j = Math.floor(gy);
  let k = Math.floor(gz);
  if (i > nx - 2) i = nx - 2;
  if (j > ny - 2) j = ny - 2;
  if (k > nz - 2) k = nz - 2;
  const fx = gx - i;
  const fy = gy - j;
  const fz = gz - k;
  const v = g.values;
  const b = i + nx * (j + ny * k);
  const sy = nx;
  const sz = nx * ny;
  const ex = 1 - fx;
  const ey = 1 - fy;
  const ez = 1 - fz;
  const phi =
    ez * (ey * (ex * v[b]! + fx * v[b + 1]!) + fy * (ex * v[b + sy]! + fx * v[b + sy + 1]!)) +
    fz * (ey * (ex * v[b + sz]! + fx * v[b + sz + 1]!) + fy * (ex * v[b + sz + sy]! + fx * v[b + sz + sy + 1]!));
  if (normal) {
    FRACTION[0] = fx; FRACTION[1] = fy; FRACTION[2] = fz;
    cellNormal(g, i, j, k, normal);
  }
  return phi;
}

/**
 * sampleSdf's normal alone, for the point at[0..2], which the caller knows
 * lies in the grid box (the query kernel, which has its value already): the
 * same numbers. The point comes in an array (which may be `normal` itself),
 * not as arguments: a call the optimiser does not inline boxes each
 * floating-point argument on the heap, three per record of the kernel.
 */
export function sdfNormal(g: SdfGrid, at: Float64Array, normal: Float64Array | number[]): void {
  const x = at[0]!, y = at[1]!, z = at[2]!;
  const inv = 1 / g.cellSize;
  const gx = (x - g.origin[0]) * inv;
  const gy = (y - g.origin[1]) * inv;
  const gz = (z - g.origin[2]) * inv;
  let i = Math.floor(gx), j = Math.floor(gy), k = Math.floor(gz);
  if (i > g.dims[0] - 2) i = g.dims[0] - 2;
  if (j > g.dims[1] - 2) j = g.dims[1] - 2;
  if (k > g.dims[2] - 2) k = g.dims[2] - 2;
  // A point a rounding outside the box (the caller's test and this one may
  // round apart) takes the nearest cell.
  if (i < 0) i = 0;
  if (j < 0) j = 0;
  if (k < 0) k = 0;
  FRACTION[0] = gx - i; FRACTION[1] = gy - j; FRACTION[2] = gz - k;
  cellNormal(g, i, j, k, normal);
}

/**
 * cellNormal's fractions within its cell. Passed through this array, not as
 * arguments: a call the optimiser does not inline boxes every floating-point
 * argument on the heap, and this runs once per record of every query.
 */
const FRACTION = new Float64Array(3);

/**
 * The normalised interpolated gradient (2.2-2.5) in cell (i, j, k) at
 * fractions FRACTION = (fx, fy, fz), to normal[0..2] ((0, 1, 0) where it vanishes).
 */
function cellNormal(g: SdfGrid, i: number, j: number, k: number, normal: Float64Array | number[]): void {
  const fx = FRACTION[0]!, fy = FRACTION[1]!, fz = FRACTION[2]!;
  const nx = g.dims[0], ny = g.dims[1], nz = g.dims[2];
  const v = g.values;
  const b = i + nx * (j + ny * k);
  const sy = nx;
  const sz = nx * ny;
  const d000 = v[b]!;
  const d100 = v[b + 1]!;
  const d010 = v[b + sy]!;
  const d110 = v[b + sy + 1]!;
  const d001 = v[b + sz]!;
  const d101 = v[b + sz + 1]!;
  const d011 = v[b + sz + sy]!;
  const d111 = v[b + sz + sy + 1]!;
  const ex = 1 - fx;
  const ey = 1 - fy;
  const ez = 1 - fz;
  // x-derivative: bilinear (y, z) blend of the four x-edge differences; same for y, z.
  let dx =
    ez * (ey * (d100 - d000) + fy * (d110 - d010)) + fz * (ey * (d101 - d001) + fy * (d111 - d011));
  let dy =
    ez * (ex * (d010 - d000) + fx * (d110 - d100)) + fz * (ex * (d011 - d001) + fx * (d111 - d101));
  let dz =
    ey * (ex * (d001 - d000) + fx * (d101 - d100)) + fy * (ex * (d011 - d010) + fx * (d111 - d110));
  // On a cell face (within CELL_FACE of it) the derivative across the face
  // is the mean of the two cells' (a central difference at the face): the
  // one-sided values differ where the field bends, and a point lying on the
  // face (a box's edge on a grid plane, which is where boxes put them) would
  // otherwise get whichever cell rounding picks, differently on the GPU.
  const W = BLEND;
  W[0] = ex; W[1] = fx; W[2] = ey; W[3] = fy; W[4] = ez; W[5] = fz;
  if (fx < CELL_FACE && i > 0) { edgeBlend(v, b - 1, 1, sy, sz, 2, 4); dx = 0.5 * (dx + W[6]!); }
  else if (fx > 1 - CELL_FACE && i < nx - 2) { edgeBlend(v, b + 1, 1, sy, sz, 2, 4); dx = 0.5 * (dx + W[6]!); }
  if (fy < CELL_FACE && j > 0) { edgeBlend(v, b - sy, sy, 1, sz, 0, 4); dy = 0.5 * (dy + W[6]!); }
  else if (fy > 1 - CELL_FACE && j < ny - 2) { edgeBlend(v, b + sy, sy, 1, sz, 0, 4); dy = 0.5 * (dy + W[6]!); }
  if (fz < CELL_FACE && k > 0) { edgeBlend(v, b - sz, sz, 1, sy, 0, 2); dz = 0.5 * (dz + W[6]!); }
  else if (fz > 1 - CELL_FACE && k < nz - 2) { edgeBlend(v, b + sz, sz, 1, sy, 0, 2); dz = 0.5 * (dz + W[6]!); }
  // sqrt of the sum of squares (not Math.hypot, several times slower in V8;
  // the GPU twin's length() is the same sum).
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (len > 0) {
    normal[0] = dx / len;
    normal[1] = dy / len;
    normal[2] = dz / len;
  } else {
    normal[0] = 0;
    normal[1] = 1;
    normal[2] = 0;
  }
}

/** Distance from a cell face, in cells, within which a point counts as on it (sampleSdf). */
export const CELL_FACE = 1e-4;

/**
 * The derivative along one axis in the cell whose first node is b: the
 * bilinear blend over the other two axes (strides s1, s2; weights e1, f1 =
 * BLEND[w1..w1+1] and e2, f2 = BLEND[w2..w2+1]) of the four edge
 * differences along the axis (stride `along`), to BLEND[6]. Weights and
 * result go through BLEND because a call the optimiser does not inline boxes
 * every floating-point argument and result on the heap.
 */
function edgeBlend(v: ArrayLike<number>, b: number, along: number, s1: number, s2: number, w1: number, w2: number): void {
  const W = BLEND;
  const e1 = W[w1]!, f1 = W[w1 + 1]!, e2 = W[w2]!, f2 = W[w2 + 1]!;
  W[6] = e2 * (e1 * (v[b + along]! - v[b]!) + f1 * (v[b + s1 + along]! - v[b + s1]!)) +
    f2 * (e1 * (v[b + s2 + along]! - v[b + s2]!) + f1 * (v[b + s2 + s1 + along]! - v[b + s2 + s1]!));
}

/** cellNormal's weights (1 - f, f) per axis x, y, z, then edgeBlend's result. */
const BLEND = new Float64Array(7);

/**
 * The grid layout for a shape with the given local bounds (shared by the CPU
 * and GPU bake so both produce the same nodes): `cells` cells along the longest
 * axis of the bounds, `padding` extra cells on every side, the box centred on
 * the bounds.
 */
export function gridLayout(
  bounds: { min: Vec3; max: Vec3 },
  cells = 48,
  padding = 2,
): { origin: Vec3; cellSize: number; dims: Vec3 } {
  if (!Number.isInteger(cells) || cells < 2) throw new RangeError(`cells must be an integer >= 2, got ${cells}`);
  if (!Number.isInteger(padding) || padding < 1) throw new RangeError(`padding must be an integer >= 1, got ${padding}`);
  const ext = [0, 1, 2].map((k) => bounds.max[k]! - bounds.min[k]!);
  const longest = Math.max(ext[0]!, ext[1]!, ext[2]!);
  if (!(longest > 0) || !Number.isFinite(longest)) throw new RangeError('cannot lay a grid over an empty or non-finite box');
  const h = longest / cells;
  const dims = [0, 0, 0] as Vec3;
  const origin = [0, 0, 0] as Vec3;
  for (let k = 0; k < 3; k++) {
    const inner = Math.max(1, Math.ceil(ext[k]! / h - 1e-9));
    dims[k] = inner + 2 * padding + 1;
    const centre = 0.5 * (bounds.min[k]! + bounds.max[k]!);
    origin[k] = centre - 0.5 * h * (dims[k] - 1);
  }
  return { origin, cellSize: h, dims };
}
