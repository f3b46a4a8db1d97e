/**
 * A contact row as the accumulated solvers store it (pgs.ts,
 * accumulatedSolver.ts): one direction d at a point with lever arms r1, r2
 * from the two bodies' centres, as ROW_FLOATS numbers: d (3), r1 x d (3),
 * r2 x d (3), I1^-1 (r1 x d) (3), I2^-1 (r2 x d) (3). The relative velocity
 * along the row is J v = d . (v1 - v2) + (r1 x d) . w1 - (r2 x d) . w2, and an
 * impulse lambda along it changes v1 by lambda d / m1, w1 by lambda
 * I1^-1 (r1 x d), and body 2 the opposite way.
 */

/** Floats per row direction. */
export const ROW_FLOATS = 15;

/** Writes the row of direction d at j[o..o+15) for bodies a, b (world inverse inertias in II; a body with inverse mass 0 gets no angular part). */
export function setRow(j: Float64Array, o: number, dx: number, dy: number, dz: number,
  r1x: number, r1y: number, r1z: number, r2x: number, r2y: number, r2z: number,
  a: number, b: number, II: Float64Array, ima: number, imb: number): void {
  j[o] = dx; j[o + 1] = dy; j[o + 2] = dz;
  const c1x = r1y * dz - r1z * dy, c1y = r1z * dx - r1x * dz, c1z = r1x * dy - r1y * dx;
  const c2x = r2y * dz - r2z * dy, c2y = r2z * dx - r2x * dz, c2z = r2x * dy - r2y * dx;
  j[o + 3] = c1x; j[o + 4] = c1y; j[o + 5] = c1z;
  j[o + 6] = c2x; j[o + 7] = c2y; j[o + 8] = c2z;
  // I^-1 (r x d): the angular velocity change per unit impulse (0 for static/frozen bodies).
  const ia = 9 * a, ib = 9 * b;
  const sa = ima !== 0 ? 1 : 0, sb = imb !== 0 ? 1 : 0;
  j[o + 9] = sa * (II[ia]! * c1x + II[ia + 1]! * c1y + II[ia + 2]! * c1z);
  j[o + 10] = sa * (II[ia + 3]! * c1x + II[ia + 4]! * c1y + II[ia + 5]! * c1z);
  j[o + 11] = sa * (II[ia + 6]! * c1x + II[ia + 7]! * c1y + II[ia + 8]! * c1z);
  j[o + 12] = sb * (II[ib]! * c2x + II[ib + 1]! * c2y + II[ib + 2]! * c2z);
  j[o + 13] = sb * (II[ib + 3]! * c2x + II[ib + 4]! * c2y + II[ib + 5]! * c2z);
  j[o + 14] = sb * (II[ib + 6]! * c2x + II[ib + 7]! * c2y + II[ib + 8]! * c2z);
}

/** J v of the row at o. */
export function rowVel(j: Float64Array, o: number, v: Float64Array, w: Float64Array, a: number, b: number): number {
  return j[o]! * (v[3 * a]! - v[3 * b]!) + j[o + 1]! * (v[3 * a + 1]! - v[3 * b + 1]!) + j[o + 2]! * (v[3 * a + 2]! - v[3 * b + 2]!)
    + j[o + 3]! * w[3 * a]! + j[o + 4]! * w[3 * a + 1]! + j[o + 5]! * w[3 * a + 2]!
    - j[o + 6]! * w[3 * b]! - j[o + 7]! * w[3 * b + 1]! - j[o + 8]! * w[3 * b + 2]!;
}

/**
 * Impulse lam along the row at o: equal and opposite on the two bodies.
 * (The accumulated stage's twin, with each body's share scaled for shock
 * propagation, is accumulatedSolver.ts applyScaled, written out there.)
 */
export function applyRow(j: Float64Array, o: number, lam: number, v: Float64Array, w: Float64Array, im: Float64Array, a: number, b: number): void {
  const ia = im[a]! * lam, ib = im[b]! * lam;
  v[3 * a] += ia * j[o]!;
  v[3 * a + 1] += ia * j[o + 1]!;
  v[3 * a + 2] += ia * j[o + 2]!;
  v[3 * b] -= ib * j[o]!;
  v[3 * b + 1] -= ib * j[o + 1]!;
  v[3 * b + 2] -= ib * j[o + 2]!;
  w[3 * a] += lam * j[o + 9]!;
  w[3 * a + 1] += lam * j[o + 10]!;
  w[3 * a + 2] += lam * j[o + 11]!;
  w[3 * b] -= lam * j[o + 12]!;
  w[3 * b + 1] -= lam * j[o + 13]!;
  w[3 * b + 2] -= lam * j[o + 14]!;
}
