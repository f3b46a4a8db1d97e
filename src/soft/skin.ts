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

import { specialisedCopy } from '../util/specialise.ts';

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
 * Volume of the skinned surface, with `scale * dV/dx` added into force (3 per
 * particle, global indices), where scale = coefficient (v0 - V), or `fixed`
 * when given. `p` and `grad` are scratch arrays of 3 floats per surface
 * vertex. Returns the volume. (The solver's substeps use volumePass, the
 * same loops compiled for one body.)
 */
export function addVolumeGradient(s: SkinnedSurface, x: Float64Array, p: Float64Array, grad: Float64Array, force: Float64Array,
  coefficient: number, v0: number, fixed = NaN): number {
  return volumeGradientLoops(s.indices, s.skinIndex, s.skinWeight, x, p, grad, force)(coefficient, v0, fixed);
}

/**
 * addVolumeGradient for one body, bound to its surface, its scratch arrays,
 * the particle positions x and the force array f (src/util/specialise.ts:
 * compiled for those arrays, the same numbers to the bit): each call returns
 * the volume and adds `scale(V) dV/dx` into f, where scale(V) = coefficient
 * (v0 - V).
 */
export function volumePass(s: SkinnedSurface, x: Float64Array, p: Float64Array, grad: Float64Array, f: Float64Array): VolumeRun {
  const make = specialisedCopy(volumeGradientLoops, volumeLoopsAgree);
  return make(s.indices, s.skinIndex, s.skinWeight, x, p, grad, f);
}

/** One body's volume pass (volumePass): the volume, with coefficient (v0 - V) dV/dx (or fixed dV/dx) added into the force array. */
export type VolumeRun = (coefficient: number, v0: number, fixed?: number) => number;

/**
 * The skinning, the volume and its gradient, as a closure over one body's
 * arrays; it refers to nothing outside itself, so specialisedCopy can
 * compile a copy per body (volumePass).
 */
function volumeGradientLoops(I: Uint32Array, SI: Uint32Array, SW: Float64Array, x: Float64Array, p: Float64Array, grad: Float64Array,
  force: Float64Array): VolumeRun {
  return (coefficient: number, v0: number, fixed = NaN): number => {
    const n = SW.length / 4;
    for (let v = 0; v < n; v++) {
      let px = 0, py = 0, pz = 0;
      for (let k = 4 * v; k < 4 * v + 4; k++) {
        const w = SW[k]!;
        if (w === 0) continue;
        const i = 3 * SI[k]!;
        px += w * x[i]!;
        py += w * x[i + 1]!;
        pz += w * x[i + 2]!;
      }
      p[3 * v] = px;
      p[3 * v + 1] = py;
      p[3 * v + 2] = pz;
    }
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
    const scale = (fixed === fixed ? fixed : coefficient * (v0 - volume)) / 6;
    if (scale === 0) return volume;
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
  };
}

/** Whether `copy` gives volumeGradientLoops' numbers on a tetrahedron's surface (specialisedCopy's check). */
function volumeLoopsAgree(copy: typeof volumeGradientLoops): boolean {
  const run = (make: typeof volumeGradientLoops): number[] => {
    const I = new Uint32Array([0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2]);
    const SI = new Uint32Array([0, 1, 0, 0, 1, 2, 0, 0, 2, 3, 0, 0, 3, 0, 0, 0]);
    const SW = new Float64Array([0.9, 0.1, 0, 0, 0.8, 0.2, 0, 0, 0.7, 0.3, 0, 0, 1, 0, 0, 0]);
    const x = new Float64Array([0, 0, 0, 1.1, 0.1, 0, 0.2, 0.9, 0.1, 0.1, 0.2, 1.3]);
    const f = new Float64Array(12);
    const volume = make(I, SI, SW, x, new Float64Array(12), new Float64Array(12), f)(3.5, 0.4);
    const fixed = make(I, SI, SW, x, new Float64Array(12), new Float64Array(12), f)(0, 0, 0.75);
    return [volume, fixed, ...f];
  };
  const a = run(volumeGradientLoops), b = run(copy);
  return a.every((v, i) => Object.is(v, b[i]));
}
