/**
 * The drawn surface of a soft body and its enclosed volume.
 *
 * Each surface vertex is an affine combination of four particles
 * (SoftModel.skinIndex / skinWeight), so the surface, and the volume it
 * encloses, are smooth functions of the particle positions. Volume
 * preservation works on that volume, the one the user sees:
 *   V = 1/6 sum over triangles (a, b, c) of p_a . (p_b x p_c)
 *   dV/dp_a = 1/6 sum over the triangles at a of (p_b x p_c), in the
 *   triangle's cyclic order (b, c following a),
 *   dV/dx_i = sum over vertices v of w_vi dV/dp_v.
 * The gradient sums to zero over the particles (the weights of a vertex sum
 * to 1 and V does not change under translation) and produces no torque
 * (V does not change under rotation), so a pressure force along it keeps
 * momentum and angular momentum.
 */

/** A body's surface as the solver sees it: indices into the system's particle arrays. */
export interface SkinnedSurface {
  /** Triangles over surface vertices, counter-clockwise from outside. */
  indices: Uint32Array;
  /** Four particle indices (global, into the system) per surface vertex. */
  skinIndex: Uint32Array;
  /** Four weights per surface vertex, summing to 1. */
  skinWeight: Float64Array;
}

export function surfaceVertexCount(s: SkinnedSurface): number {
  return s.skinWeight.length / 4;
}

/** Surface vertex positions from particle positions x (3 per particle), into out (3 per vertex). */
export function skinPositions(s: SkinnedSurface, x: Float64Array, out: Float64Array | Float32Array): void {
  const n = s.skinWeight.length / 4;
  const I = s.skinIndex, W = s.skinWeight;
  for (let v = 0; v < n; v++) {
    let px = 0, py = 0, pz = 0;
    for (let k = 4 * v; k < 4 * v + 4; k++) {
      const w = W[k]!;
      if (w === 0) continue;
      const i = 3 * I[k]!;
      px += w * x[i]!;
      py += w * x[i + 1]!;
      pz += w * x[i + 2]!;
    }
    out[3 * v] = px;
    out[3 * v + 1] = py;
    out[3 * v + 2] = pz;
  }
}

/** Enclosed volume of skinned vertex positions p (3 per vertex). */
export function enclosedVolume(indices: Uint32Array, p: Float64Array): number {
  let six = 0;
  for (let t = 0; t < indices.length; t += 3) {
    const a = 3 * indices[t]!, b = 3 * indices[t + 1]!, c = 3 * indices[t + 2]!;
    const bx = p[b]!, by = p[b + 1]!, bz = p[b + 2]!, cx = p[c]!, cy = p[c + 1]!, cz = p[c + 2]!;
    six += p[a]! * (by * cz - bz * cy) + p[a + 1]! * (bz * cx - bx * cz) + p[a + 2]! * (bx * cy - by * cx);
  }
  return six / 6;
}

/**
 * Volume of the skinned surface and `scale * dV/dx` added into force (3 per
 * particle, global indices). `p` and `grad` are scratch arrays of 3 floats
 * per surface vertex. Returns the volume.
 */
export function addVolumeGradient(
  s: SkinnedSurface,
  x: Float64Array,
  p: Float64Array,
  grad: Float64Array,
  volumeToScale: (volume: number) => number,
  force: Float64Array,
): number {
  skinPositions(s, x, p);
  const I = s.indices;
  grad.fill(0);
  let six = 0;
  for (let t = 0; t < I.length; t += 3) {
    const a = 3 * I[t]!, b = 3 * I[t + 1]!, c = 3 * I[t + 2]!;
    const ax = p[a]!, ay = p[a + 1]!, az = p[a + 2]!;
    const bx = p[b]!, by = p[b + 1]!, bz = p[b + 2]!;
    const cx = p[c]!, cy = p[c + 1]!, cz = p[c + 2]!;
    // b x c, c x a, a x b: the gradients of a . (b x c) with respect to a, b, c.
    const bcx = by * cz - bz * cy, bcy = bz * cx - bx * cz, bcz = bx * cy - by * cx;
    six += ax * bcx + ay * bcy + az * bcz;
    grad[a] += bcx;
    grad[a + 1] += bcy;
    grad[a + 2] += bcz;
    grad[b] += cy * az - cz * ay;
    grad[b + 1] += cz * ax - cx * az;
    grad[b + 2] += cx * ay - cy * ax;
    grad[c] += ay * bz - az * by;
    grad[c + 1] += az * bx - ax * bz;
    grad[c + 2] += ax * by - ay * bx;
  }
  const volume = six / 6;
  const scale = volumeToScale(volume) / 6;
  if (scale === 0) return volume;
  const n = s.skinWeight.length / 4;
  const SI = s.skinIndex, SW = s.skinWeight;
  for (let v = 0; v < n; v++) {
    const gx = scale * grad[3 * v]!, gy = scale * grad[3 * v + 1]!, gz = scale * grad[3 * v + 2]!;
    for (let k = 4 * v; k < 4 * v + 4; k++) {
      const w = SW[k]!;
      if (w === 0) continue;
      const i = 3 * SI[k]!;
      force[i] += w * gx;
      force[i + 1] += w * gy;
      force[i + 2] += w * gz;
    }
  }
  return volume;
}
