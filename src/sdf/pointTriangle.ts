/**
 * Closest point on a triangle to a point, with the Voronoi feature it lies on
 * (docs/ALGORITHM.md 1, seed fig. 8): face interior, one of the 3 edges or one of
 * the 3 vertices. The feature picks the pseudonormal that signs the distance.
 *
 * The region tests follow Ericson, "Real-Time Collision Detection" 5.1.5, but
 * rewritten so that only two dot products depend on the query point: with
 * ab = b - a, ac = c - a, ap = p - a and the per-triangle constants
 * uu = ab.ab, uv = ab.ac, vv = ac.ac, Ericson's six dots are
 *   d1 = ab.ap, d2 = ac.ap,
 *   d3 = ab.bp = d1 - uu, d4 = ac.bp = d2 - uv,
 *   d5 = ab.cp = d1 - uv, d6 = ac.cp = d2 - vv,
 * so a baked grid pays 2 dots + a few scalar tests per node and triangle
 * (`prepareTriangles` stores a, ab, ac, uu, uv, vv once per triangle).
 *
 * There is one implementation of the region logic, `preparedClosest`, used by
 * the bakes and (through a one-triangle table) by `closestPointOnTriangle`.
 * It takes the query point and returns its results through Float64Arrays and
 * returns only the small-integer feature code: a V8 call that is not inlined
 * boxes every double argument and double return value into a fresh heap
 * number, and this routine runs millions of times per bake (the boxing showed
 * up as a large share of the bake time spent in garbage collection).
 *
 * Robustness for degenerate-ish triangles: a sliver (|ab x ac|^2 below
 * SLIVER |ab|^2 |ac|^2, including collapsed edges and collinear vertices) is
 * treated as the union of its three edges, which is exact for a zero-area
 * triangle and within rounding for a sliver; edge parameters are clamped to
 * [0, 1]; and if rounding ever puts face-region barycentrics outside the
 * triangle, the nearest edge is used instead.
 */

/** Closest point strictly inside the face. */
export const FEATURE_FACE = 0;
/** Closest point on edge AB (interior). */
export const FEATURE_EDGE_AB = 1;
/** Closest point on edge BC (interior). */
export const FEATURE_EDGE_BC = 2;
/** Closest point on edge CA (interior). */
export const FEATURE_EDGE_CA = 3;
/** Closest point is vertex A. */
export const FEATURE_VERTEX_A = 4;
/** Closest point is vertex B. */
export const FEATURE_VERTEX_B = 5;
/** Closest point is vertex C. */
export const FEATURE_VERTEX_C = 6;

/** Relative |ab x ac|^2 / (|ab|^2 |ac|^2) below which a triangle counts as a sliver (sin^2 of its angle at a). */
const SLIVER = 1e-14;

/** Doubles per prepared triangle (layout at prepareTriangle). */
export const PREPARED_STRIDE = 16;

/**
 * Closest point of prepared triangle `slot` to p = (p[0], p[1], p[2]):
 * out[0] = squared distance, out[1] = v, out[2] = w with closest point
 * a + v ab + w ac; returns the feature code.
 */
export function preparedClosest(tris: Float64Array, slot: number, p: Float64Array, out: Float64Array): number {
  const o = slot * PREPARED_STRIDE;
  const apx = p[0]! - tris[o]!;
  const apy = p[1]! - tris[o + 1]!;
  const apz = p[2]! - tris[o + 2]!;
  const abx = tris[o + 3]!;
  const aby = tris[o + 4]!;
  const abz = tris[o + 5]!;
  const acx = tris[o + 6]!;
  const acy = tris[o + 7]!;
  const acz = tris[o + 8]!;
  const uu = tris[o + 9]!;
  const uv = tris[o + 10]!;
  const vv = tris[o + 11]!;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  let v = 0;
  let w = 0;
  let code: number;
  const d3 = d1 - uu;
  const d4 = d2 - uv;
  if (uu * vv - uv * uv <= SLIVER * uu * vv) {
    // |ab x ac|^2 (Lagrange's identity) ~ 0: a collapsed edge or collinear
    // vertices make the region tests meaningless (e.g. a == b passes the AB
    // test for every point); the triangle is the union of its edges.
    code = nearestEdge(apx, apy, apz, abx, aby, abz, acx, acy, acz, uu, vv, d1, d2, out);
    v = out[1]!;
    w = out[2]!;
  } else if (d1 <= 0 && d2 <= 0) {
    code = FEATURE_VERTEX_A;
  } else if (d3 >= 0 && d4 <= d3) {
    code = FEATURE_VERTEX_B;
    v = 1;
  } else {
    const vc = d1 * d4 - d3 * d2;
    const d5 = d1 - uv;
    const d6 = d2 - vv;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
      code = FEATURE_EDGE_AB;
      v = uu > 0 ? d1 / uu : 0;
      v = v < 0 ? 0 : v > 1 ? 1 : v;
    } else if (d6 >= 0 && d5 <= d6) {
      code = FEATURE_VERTEX_C;
      w = 1;
    } else {
      const vb = d5 * d2 - d1 * d6;
      const va = d3 * d6 - d5 * d4;
      const e43 = d4 - d3;
      const e56 = d5 - d6;
      if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        code = FEATURE_EDGE_CA;
        w = vv > 0 ? d2 / vv : 0;
        w = w < 0 ? 0 : w > 1 ? 1 : w;
      } else if (va <= 0 && e43 >= 0 && e56 >= 0) {
        // |bc|^2 = e43 + e56 in exact arithmetic; the sum keeps w in [0, 1].
        code = FEATURE_EDGE_BC;
        const sum = e43 + e56;
        w = sum > 0 ? e43 / sum : 0;
        v = 1 - w;
      } else {
        const sum = va + vb + vc;
        v = vb / sum;
        w = vc / sum;
        code = FEATURE_FACE;
        if (!(v >= 0 && w >= 0 && v + w <= 1)) {
          // Rounding put the barycentrics outside (near-sliver): nearest edge (rare, so a call is fine).
          code = nearestEdge(apx, apy, apz, abx, aby, abz, acx, acy, acz, uu, vv, d1, d2, out);
          v = out[1]!;
          w = out[2]!;
        }
      }
    }
  }
  const ex = apx - v * abx - w * acx;
  const ey = apy - v * aby - w * acy;
  const ez = apz - v * abz - w * acz;
  out[0] = ex * ex + ey * ey + ez * ez;
  out[1] = v;
  out[2] = w;
  return code;
}

/** Nearest of the three edges (segments): exact for zero-area triangles. Writes v, w to out[1], out[2]. */
function nearestEdge(
  apx: number,
  apy: number,
  apz: number,
  abx: number,
  aby: number,
  abz: number,
  acx: number,
  acy: number,
  acz: number,
  uu: number,
  vv: number,
  d1: number,
  d2: number,
  out: Float64Array,
): number {
  // AB: a + s ab
  const s = clamp01(uu > 0 ? d1 / uu : 0);
  let best = sq(apx - s * abx, apy - s * aby, apz - s * abz);
  let code = FEATURE_EDGE_AB;
  let v = s;
  let w = 0;
  // CA: a + t ac
  const t = clamp01(vv > 0 ? d2 / vv : 0);
  const dca = sq(apx - t * acx, apy - t * acy, apz - t * acz);
  if (dca < best) {
    best = dca;
    code = FEATURE_EDGE_CA;
    v = 0;
    w = t;
  }
  // BC: b + r (c - b) = a + (1 - r) ab + r ac
  const bcx = acx - abx;
  const bcy = acy - aby;
  const bcz = acz - abz;
  const bpx = apx - abx;
  const bpy = apy - aby;
  const bpz = apz - abz;
  const bb = bcx * bcx + bcy * bcy + bcz * bcz;
  const r = clamp01(bb > 0 ? (bcx * bpx + bcy * bpy + bcz * bpz) / bb : 0);
  const dbc = sq(bpx - r * bcx, bpy - r * bcy, bpz - r * bcz);
  if (dbc < best) {
    code = FEATURE_EDGE_BC;
    v = 1 - r;
    w = r;
  }
  // An edge parameter of exactly 0 or 1 is a vertex; report it as such.
  if (v === 0 && w === 0) code = FEATURE_VERTEX_A;
  else if (v === 1 && w === 0) code = FEATURE_VERTEX_B;
  else if (v === 0 && w === 1) code = FEATURE_VERTEX_C;
  out[1] = v;
  out[2] = w;
  return code;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

function sq(x: number, y: number, z: number): number {
  return x * x + y * y + z * z;
}

/**
 * Writes the PREPARED_STRIDE constants of triangle abc at out[o..]:
 *   0..2 a, 3..5 ab, 6..8 ac, 9 uu = ab.ab, 10 uv = ab.ac, 11 vv = ac.ac,
 *   12..14 unit normal n (zero for a zero-area triangle), 15 n.a.
 * The plane (n, n.a) gives the cheap lower bound |n.p - n.a| <= distance that
 * the bakes test before the full routine.
 */
export function prepareTriangle(
  out: Float64Array,
  o: number,
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
): void {
  const abx = bx - ax;
  const aby = by - ay;
  const abz = bz - az;
  const acx = cx - ax;
  const acy = cy - ay;
  const acz = cz - az;
  let nx = aby * acz - abz * acy;
  let ny = abz * acx - abx * acz;
  let nz = abx * acy - aby * acx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (len > 0) {
    nx /= len;
    ny /= len;
    nz /= len;
  }
  out[o] = ax;
  out[o + 1] = ay;
  out[o + 2] = az;
  out[o + 3] = abx;
  out[o + 4] = aby;
  out[o + 5] = abz;
  out[o + 6] = acx;
  out[o + 7] = acy;
  out[o + 8] = acz;
  out[o + 9] = abx * abx + aby * aby + abz * abz;
  out[o + 10] = abx * acx + aby * acy + abz * acz;
  out[o + 11] = acx * acx + acy * acy + acz * acz;
  out[o + 12] = nx;
  out[o + 13] = ny;
  out[o + 14] = nz;
  out[o + 15] = nx * ax + ny * ay + nz * az;
}

/**
 * Prepared constants for many triangles: slot s holds mesh triangle order[s]
 * (default: all triangles in mesh order).
 */
export function prepareTriangles(positions: Float64Array, indices: Uint32Array, order?: Uint32Array): Float64Array {
  const n = order ? order.length : indices.length / 3;
  const out = new Float64Array(n * PREPARED_STRIDE);
  for (let s = 0; s < n; s++) {
    const t = order ? order[s]! : s;
    const ia = 3 * indices[3 * t]!;
    const ib = 3 * indices[3 * t + 1]!;
    const ic = 3 * indices[3 * t + 2]!;
    prepareTriangle(
      out,
      s * PREPARED_STRIDE,
      positions[ia]!,
      positions[ia + 1]!,
      positions[ia + 2]!,
      positions[ib]!,
      positions[ib + 1]!,
      positions[ib + 2]!,
      positions[ic]!,
      positions[ic + 1]!,
      positions[ic + 2]!,
    );
  }
  return out;
}

const oneTriangle = new Float64Array(PREPARED_STRIDE);
const onePoint = new Float64Array(3);
const oneResult = new Float64Array(3);

/**
 * Closest point on triangle abc to p, written to out[0..2]; returns the feature
 * code (FEATURE_FACE, FEATURE_EDGE_*, FEATURE_VERTEX_*). Vertices come back
 * exactly (not as a + 1 * ab, which may round).
 */
export function closestPointOnTriangle(
  px: number,
  py: number,
  pz: number,
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
  out: Float64Array | number[],
): number {
  prepareTriangle(oneTriangle, 0, ax, ay, az, bx, by, bz, cx, cy, cz);
  onePoint[0] = px;
  onePoint[1] = py;
  onePoint[2] = pz;
  const code = preparedClosest(oneTriangle, 0, onePoint, oneResult);
  const v = oneResult[1]!;
  const w = oneResult[2]!;
  if (code === FEATURE_VERTEX_A) {
    out[0] = ax;
    out[1] = ay;
    out[2] = az;
  } else if (code === FEATURE_VERTEX_B) {
    out[0] = bx;
    out[1] = by;
    out[2] = bz;
  } else if (code === FEATURE_VERTEX_C) {
    out[0] = cx;
    out[1] = cy;
    out[2] = cz;
  } else {
    out[0] = ax + v * (bx - ax) + w * (cx - ax);
    out[1] = ay + v * (by - ay) + w * (cy - ay);
    out[2] = az + v * (bz - az) + w * (cz - az);
  }
  return code;
}

/** Squared distance from p to triangle abc. */
export function pointTriangleDistanceSquared(
  px: number,
  py: number,
  pz: number,
  ax: number,
  ay: number,
  az: number,
  bx: number,
  by: number,
  bz: number,
  cx: number,
  cy: number,
  cz: number,
): number {
  prepareTriangle(oneTriangle, 0, ax, ay, az, bx, by, bz, cx, cy, cz);
  onePoint[0] = px;
  onePoint[1] = py;
  onePoint[2] = pz;
  preparedClosest(oneTriangle, 0, onePoint, oneResult);
  return oneResult[0]!;
}
