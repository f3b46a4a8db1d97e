/**
 * Mass properties at density 1: volume, centre of mass, inertia tensor about
 * the centre of mass (docs/ALGORITHM.md 2, seed 4.5-4.6).
 *
 * Two independent routes that must agree:
 *  - `massFromMesh`: exact for the polyhedron, by the divergence theorem;
 *  - `massFromSdf`: the seed's voxel sum over grid cells inside the SDF.
 *
 * Derivation of the mesh integrals (our own, by a change of variables). Pick a
 * reference point o (the bounds centre, so far-off coordinates do not cancel
 * digits) and, for each triangle (a, b, c) relative to o, the tetrahedron
 * (o, a, b, c) with signed volume V = a . (b x c) / 6; for a closed, outward
 * mesh the signed tetrahedra sum to the solid (points outside cancel). Map the
 * unit simplex u = (u1, u2, u3), u_i >= 0, sum <= 1, onto it by x = A u with
 * A = [a b c] (columns), |det A| = 6 |V|. Over the unit simplex
 *   integral 1 = 1/6,  integral u_i = 1/24,
 *   integral u_i u_j = 1/60 (i = j), 1/120 (i != j), i.e. (I + 1 1^T) / 120.
 * Hence, with s = a + b + c:
 *   integral x dV     = 6V * A (1/24) 1 = V s / 4,
 *   integral x x^T dV = 6V * A (I + 1 1^T) A^T / 120
 *                     = (V / 20) (a a^T + b b^T + c c^T + s s^T).
 * Summing gives the volume M, first moment m1 and second moment C about o.
 * The centre of mass is o + m1 / M; about it C' = C - m1 m1^T / M; and the
 * inertia tensor of a body with second moment C' is I = tr(C') 1 - C'.
 */
import type { Vec3, TriMesh } from '../geometry/mesh.ts';
import { meshBounds } from '../geometry/mesh.ts';
import type { SdfGrid } from './grid.ts';

export interface MassProperties {
  /** Volume, which is the mass at density 1. */
  volume: number;
  centerOfMass: Vec3;
  /** 3x3 row-major, about the centre of mass, density 1. */
  inertia: Float64Array;
}

/** Exact mass properties of a closed, outward (counter-clockwise) mesh. */
export function massFromMesh(mesh: TriMesh): MassProperties {
  return massFromWeightedTriangles(mesh, null);
}

/**
 * The same integrals with triangle t counted weights[t] times: the mass
 * properties of a solid whose boundary is a weighted triangle soup (the
 * boundary src/sdf/solid.ts cuts out of a self-intersecting mesh). The
 * divergence theorem needs no shared vertices, only that the weighted
 * triangles cover the boundary once.
 */
export function massFromWeightedTriangles(mesh: TriMesh, weights: ArrayLike<number> | null): MassProperties {
  const p = mesh.positions;
  const idx = mesh.indices;
  const b = meshBounds(mesh);
  const ox = 0.5 * (b.min[0] + b.max[0]);
  const oy = 0.5 * (b.min[1] + b.max[1]);
  const oz = 0.5 * (b.min[2] + b.max[2]);
  let vol = 0;
  let mx = 0;
  let my = 0;
  let mz = 0;
  let cxx = 0;
  let cyy = 0;
  let czz = 0;
  let cxy = 0;
  let cxz = 0;
  let cyz = 0;
  for (let t = 0; t < idx.length; t += 3) {
    const ia = 3 * idx[t]!;
    const ib = 3 * idx[t + 1]!;
    const ic = 3 * idx[t + 2]!;
    const ax = p[ia]! - ox;
    const ay = p[ia + 1]! - oy;
    const az = p[ia + 2]! - oz;
    const bx = p[ib]! - ox;
    const by = p[ib + 1]! - oy;
    const bz = p[ib + 2]! - oz;
    const cx = p[ic]! - ox;
    const cy = p[ic + 1]! - oy;
    const cz = p[ic + 2]! - oz;
    const wt = weights ? weights[t / 3]! : 1;
    const v = (wt * (ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx))) / 6;
    const sx = ax + bx + cx;
    const sy = ay + by + cy;
    const sz = az + bz + cz;
    vol += v;
    mx += v * sx;
    my += v * sy;
    mz += v * sz;
    const k = v / 20;
    cxx += k * (ax * ax + bx * bx + cx * cx + sx * sx);
    cyy += k * (ay * ay + by * by + cy * cy + sy * sy);
    czz += k * (az * az + bz * bz + cz * cz + sz * sz);
    cxy += k * (ax * ay + bx * by + cx * cy + sx * sy);
    cxz += k * (ax * az + bx * bz + cx * cz + sx * sz);
    cyz += k * (ay * az + by * bz + cy * cz + sy * sz);
  }
  // First moments were summed as V s; the integral is V s / 4.
  mx /= 4;
  my /= 4;
  mz /= 4;
  if (!(vol > 0)) {
    throw new RangeError(`mesh encloses volume ${vol}; expected a closed mesh with outward (counter-clockwise) triangles`);
  }
  return fromMoments(vol, ox, oy, oz, mx, my, mz, cxx, cyy, czz, cxy, cxz, cyz, 0);
}

/**
 * Mass properties from an SDF by the seed's voxel sum (docs/ALGORITHM.md 2): every
 * cell whose centre value (the trilinear value there, i.e. the mean of its 8
 * corner nodes) is negative is a cube of mass d^3 at its centre, with its own
 * inertia (2/3) m (d/2)^2 = m d^2 / 6 about each axis plus the point-mass term.
 */
export function massFromSdf(grid: SdfGrid): MassProperties {
  const [nx, ny, nz] = grid.dims;
  const v = grid.values;
  const d = grid.cellSize;
  const m = d * d * d;
  const sy = nx;
  const sz = nx * ny;
  // Sums in cell units relative to the grid's middle cell, scaled at the end.
  const hx = 0.5 * (nx - 2);
  const hy = 0.5 * (ny - 2);
  const hz = 0.5 * (nz - 2);
  let n = 0;
  let mx = 0;
  let my = 0;
  let mz = 0;
  let cxx = 0;
  let cyy = 0;
  let czz = 0;
  let cxy = 0;
  let cxz = 0;
  let cyz = 0;
  for (let k = 0; k < nz - 1; k++) {
    const z = k - hz;
    for (let j = 0; j < ny - 1; j++) {
      const y = j - hy;
      let b = nx * (j + ny * k);
      for (let i = 0; i < nx - 1; i++, b++) {
        // phi at the cell centre (the mean of its corners), in cells.
        const phi = (v[b]! + v[b + 1]! + v[b + sy]! + v[b + sy + 1]! + v[b + sz]! + v[b + sz + 1]! + v[b + sz + sy]! + v[b + sz + sy + 1]!) / (8 * d);
        if (!(phi < 0.5)) continue;
        // The seed counts a cell whole when its centre is inside (4.12-4.13).
        // A cell cut by the surface is weighted instead by the part of it
        // behind the plane at distance phi: 1/2 - phi cells, clamped. Exact
        // for a plane along a grid axis, so a box whose faces fall between
        // nodes no longer gains up to a cell per side.
        const f = phi <= -0.5 ? 1 : 0.5 - phi;
        const x = i - hx;
        n += f;
        mx += f * x;
        my += f * y;
        mz += f * z;
        cxx += f * x * x;
        cyy += f * y * y;
        czz += f * z * z;
        cxy += f * x * y;
        cxz += f * x * z;
        cyz += f * y * z;
      }
    }
  }
  if (n === 0) throw new RangeError('the SDF has no cell inside the body (every cell centre has phi >= 0)');
  // Middle cell centre in world coordinates: origin + d (h + 1/2).
  const ox = grid.origin[0] + d * (hx + 0.5);
  const oy = grid.origin[1] + d * (hy + 0.5);
  const oz = grid.origin[2] + d * (hz + 0.5);
  const d2 = d * d;
  return fromMoments(n * m, ox, oy, oz, mx * m * d, my * m * d, mz * m * d, cxx * m * d2, cyy * m * d2, czz * m * d2, cxy * m * d2, cxz * m * d2, cyz * m * d2, (n * m * d2) / 6);
}

/**
 * Mass properties from the volume, the first moment (mx, my, mz) and second
 * moments about the reference point o, plus an extra isotropic inertia term
 * `own` (the voxels' own inertia).
 */
function fromMoments(
  vol: number,
  ox: number,
  oy: number,
  oz: number,
  mx: number,
  my: number,
  mz: number,
  cxx: number,
  cyy: number,
  czz: number,
  cxy: number,
  cxz: number,
  cyz: number,
  own: number,
): MassProperties {
  const gx = mx / vol;
  const gy = my / vol;
  const gz = mz / vol;
  // Second moments about the centre of mass (parallel axis theorem).
  const xx = cxx - vol * gx * gx;
  const yy = cyy - vol * gy * gy;
  const zz = czz - vol * gz * gz;
  const xy = cxy - vol * gx * gy;
  const xz = cxz - vol * gx * gz;
  const yz = cyz - vol * gy * gz;
  const inertia = new Float64Array([
    yy + zz + own, 0 - xy, 0 - xz,
    0 - xy, xx + zz + own, 0 - yz,
    0 - xz, 0 - yz, xx + yy + own,
  ]);
  return { volume: vol, centerOfMass: [ox + gx, oy + gy, oz + gz], inertia };
}

export interface PrincipalInertia {
  /** Principal moments, ascending. */
  moments: Vec3;
  /** Rotation matrix (row-major) whose columns are the principal axes, det +1: inertia = R diag(moments) R^T. */
  axes: Float64Array;
  /** The same rotation as a unit quaternion [x, y, z, w]. */
  rotation: [number, number, number, number];
}

/**
 * Principal moments and axes of a symmetric 3x3 tensor by cyclic Jacobi
 * rotations: each rotation zeroes one off-diagonal entry; sweeps converge
 * quadratically, so a few suffice to reach rounding level.
 */
export function principalInertia(inertia: ArrayLike<number>): PrincipalInertia {
  const a = Array.from({ length: 9 }, (_, i) => inertia[i]!);
  // Symmetrise (the input may carry rounding asymmetry).
  for (const [i, j] of [[0, 1], [0, 2], [1, 2]] as const) {
    const s = 0.5 * (a[3 * i + j]! + a[3 * j + i]!);
    a[3 * i + j] = s;
    a[3 * j + i] = s;
  }
  const v = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const scale = Math.abs(a[0]!) + Math.abs(a[4]!) + Math.abs(a[8]!);
  for (let sweep = 0; sweep < 50; sweep++) {
    const off = Math.abs(a[1]!) + Math.abs(a[2]!) + Math.abs(a[5]!);
    if (off <= 1e-15 * scale || off === 0) break;
    for (const [p, q] of [[0, 1], [0, 2], [1, 2]] as const) {
      const apq = a[3 * p + q]!;
      if (apq === 0) continue;
      const app = a[3 * p + p]!;
      const aqq = a[3 * q + q]!;
      // Rotation angle with tan(2 theta) = 2 apq / (aqq - app); t = tan(theta), the smaller root.
      const theta = (aqq - app) / (2 * apq);
      const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      // A <- J^T A J with J the rotation in the (p, q) plane.
      for (let k = 0; k < 3; k++) {
        const akp = a[3 * k + p]!;
        const akq = a[3 * k + q]!;
        a[3 * k + p] = c * akp - s * akq;
        a[3 * k + q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = a[3 * p + k]!;
        const aqk = a[3 * q + k]!;
        a[3 * p + k] = c * apk - s * aqk;
        a[3 * q + k] = s * apk + c * aqk;
      }
      // V <- V J: columns of V are the eigenvectors.
      for (let k = 0; k < 3; k++) {
        const vkp = v[3 * k + p]!;
        const vkq = v[3 * k + q]!;
        v[3 * k + p] = c * vkp - s * vkq;
        v[3 * k + q] = s * vkp + c * vkq;
      }
    }
  }
  // Sort ascending, carrying the columns along.
  const order = [0, 1, 2].sort((i, j) => a[4 * i]! - a[4 * j]!);
  const moments: Vec3 = [a[4 * order[0]!]!, a[4 * order[1]!]!, a[4 * order[2]!]!];
  const axes = new Float64Array(9);
  for (let col = 0; col < 3; col++) {
    for (let row = 0; row < 3; row++) axes[3 * row + col] = v[3 * row + order[col]!]!;
  }
  // A proper rotation: flip the last axis if the frame is left-handed.
  const det =
    axes[0]! * (axes[4]! * axes[8]! - axes[5]! * axes[7]!) -
    axes[1]! * (axes[3]! * axes[8]! - axes[5]! * axes[6]!) +
    axes[2]! * (axes[3]! * axes[7]! - axes[4]! * axes[6]!);
  if (det < 0) for (let row = 0; row < 3; row++) axes[3 * row + 2] = -axes[3 * row + 2]!;
  return { moments, axes, rotation: quaternionFromMatrix(axes) };
}

/** Unit quaternion [x, y, z, w] of a row-major rotation matrix (branch on the largest diagonal term for accuracy). */
function quaternionFromMatrix(m: Float64Array): [number, number, number, number] {
  const m00 = m[0]!, m01 = m[1]!, m02 = m[2]!;
  const m10 = m[3]!, m11 = m[4]!, m12 = m[5]!;
  const m20 = m[6]!, m21 = m[7]!, m22 = m[8]!;
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = 0.25 * s;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s;
    x = 0.25 * s;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    y = 0.25 * s;
    z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    z = 0.25 * s;
  }
  const len = Math.hypot(x, y, z, w);
  return [x / len, y / len, z / len, w / len];
}

/**
 * Inverse of a 3x3 row-major tensor (by the adjugate). Throws RangeError when
 * it is singular relative to its size, which no real body's inertia is.
 */
export function invertInertia(inertia: ArrayLike<number>, out: Float64Array = new Float64Array(9)): Float64Array {
  const a = inertia[0]!, b = inertia[1]!, c = inertia[2]!;
  const d = inertia[3]!, e = inertia[4]!, f = inertia[5]!;
  const g = inertia[6]!, h = inertia[7]!, i = inertia[8]!;
  const A = e * i - f * h;
  const B = f * g - d * i;
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const size = Math.max(Math.abs(a), Math.abs(e), Math.abs(i), Math.abs(b), Math.abs(c), Math.abs(f));
  if (!Number.isFinite(det) || Math.abs(det) <= 1e-14 * size * size * size || size === 0) {
    throw new RangeError(`inertia tensor is singular (determinant ${det}); expected a body with volume in all three directions`);
  }
  const inv = 1 / det;
  out[0] = A * inv;
  out[1] = (c * h - b * i) * inv;
  out[2] = (b * f - c * e) * inv;
  out[3] = B * inv;
  out[4] = (a * i - c * g) * inv;
  out[5] = (c * d - a * f) * inv;
  out[6] = C * inv;
  out[7] = (b * g - a * h) * inv;
  out[8] = (a * e - b * d) * inv;
  return out;
}
