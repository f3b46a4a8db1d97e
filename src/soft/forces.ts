/**
 * Forces on the particles of a SoftSystem at a given state (x, v), the
 * right-hand side every integrator evaluates (once per substep for Euler and
 * semi-implicit Euler, two or four times for RK2 / RK4):
 *
 *  gravity   m g on every particle;
 *  springs   Hooke in vector form with a damper along the spring (seed 001):
 *              d = x_a - x_b, L = |d|, u = d / L,
 *              f_a = -(k (L - L0) + c ((v_a - v_b) . u)) u,  f_b = -f_a;
 *            the damper acts only on the relative velocity along the spring,
 *            so it removes the oscillation that makes stiff springs explode
 *            without slowing a body that moves or spins as a whole;
 *  volume    a pressure along the gradient of the drawn surface's volume,
 *              f = K / V0 (V0 - V) dV/dx   (the force of the energy K (V - V0)^2 / (2 V0)),
 *            for bodies with volume preservation on (skin.ts).
 * Every term is a sum of equal and opposite pairs or a translation- and
 * rotation-invariant gradient, so momentum and angular momentum change only
 * through gravity, collisions and pins.
 */
import { addVolumeGradient } from './skin.ts';
import type { SoftSystem } from './system.ts';

/**
 * f = total force on each particle at state (x, v); 3 floats per particle
 * each. `dampers` false leaves the dampers out, for the semi-implicit
 * integrator that applies them exactly instead (applyDampersExactly).
 */
export function computeForces(sys: SoftSystem, x: Float64Array, v: Float64Array, f: Float64Array, dampers = true): void {
  const n = sys.particleCount;
  const m = sys.mass;
  const [gx, gy, gz] = sys.gravity;
  for (let i = 0; i < n; i++) {
    const mi = m[i]!;
    f[3 * i] = mi * gx;
    f[3 * i + 1] = mi * gy;
    f[3 * i + 2] = mi * gz;
  }
  addSpringForces(sys, x, v, f, dampers);
  for (const b of sys.bodies) {
    if (b.volumeStiffness === 0) continue;
    const coefficient = b.volumeStiffness / b.restVolume;
    const v0 = b.restVolume;
    b.volume = addVolumeGradient(b.surface, x, b.scratchPositions, b.scratchGradient, (vol) => coefficient * (v0 - vol), f);
  }
}

/** Adds every spring's Hooke force and (unless `dampers` is false) its damper force (file comment) into f. */
export function addSpringForces(sys: SoftSystem, x: Float64Array, v: Float64Array, f: Float64Array, dampers = true): void {
  const A = sys.springA, B = sys.springB, L0 = sys.springRest, K = sys.springK, C = sys.springC;
  const count = sys.springCount;
  const damperScale = dampers ? 1 : 0;
  for (let s = 0; s < count; s++) {
    const a = 3 * A[s]!, b = 3 * B[s]!;
    const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    // Coincident ends give the spring no direction to act along: it sits out this evaluation.
    if (len === 0) continue;
    const inv = 1 / len;
    const ux = dx * inv, uy = dy * inv, uz = dz * inv;
    const closing = (v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz;
    const magnitude = K[s]! * (len - L0[s]!) + damperScale * C[s]! * closing;
    const fx = magnitude * ux, fy = magnitude * uy, fz = magnitude * uz;
    f[a] -= fx;
    f[a + 1] -= fy;
    f[a + 2] -= fz;
    f[b] += fx;
    f[b + 1] += fy;
    f[b + 2] += fz;
  }
}

/**
 * The dampers as exact velocity updates, one spring after another (for the
 * semi-implicit integrator). Alone, a damper makes the ends' closing speed
 * w = (v_a - v_b) . u decay as dw/dt = -c (1/m_a + 1/m_b) w, so over h it
 * becomes w exp(-c (1/m_a + 1/m_b) h); the impulse along u that does this
 * keeps momentum and angular momentum and only removes kinetic energy,
 * whatever h is. As forces, the dampers would bound the substep by
 * h c / m < 2 (system.ts) and make stiff damping expensive; applied this way
 * they bound nothing.
 */
export function applyDampersExactly(sys: SoftSystem, h: number): void {
  const A = sys.springA, B = sys.springB, C = sys.springC, w = sys.invMass;
  const x = sys.pos, v = sys.vel;
  for (let s = 0; s < sys.springCount; s++) {
    const c = C[s]!;
    if (c === 0) continue;
    const ia = A[s]!, ib = B[s]!;
    const beta = w[ia]! + w[ib]!;
    if (beta === 0) continue;
    const a = 3 * ia, b = 3 * ib;
    const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (len === 0) continue;
    const ux = dx / len, uy = dy / len, uz = dz / len;
    const closing = (v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz;
    // Impulse (per unit beta) that takes the closing speed from w to w exp(-c beta h).
    const j = (closing * Math.expm1(-c * beta * h)) / beta;
    const ja = j * w[ia]!, jb = j * w[ib]!;
    v[a] += ja * ux;
    v[a + 1] += ja * uy;
    v[a + 2] += ja * uz;
    v[b] -= jb * ux;
    v[b + 1] -= jb * uy;
    v[b + 2] -= jb * uz;
  }
}
