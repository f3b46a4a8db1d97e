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
 * integrator that applies them exactly instead (applyDampersExactly, which
 * takes the spring directions written to `directions`).
 */
export function computeForces(sys: SoftSystem, x: Float64Array, v: Float64Array, f: Float64Array, dampers = true, directions?: Float64Array): void {
  const n = sys.particleCount;
  const m = sys.mass;
  const g = sys.gravity;
  const gx = g[0], gy = g[1], gz = g[2];
  for (let i = 0; i < n; i++) {
    const mi = m[i]!;
    f[3 * i] = mi * gx;
    f[3 * i + 1] = mi * gy;
    f[3 * i + 2] = mi * gz;
  }
  addSpringForces(sys, x, v, f, dampers, directions);
  for (const b of sys.bodies) {
    if (b.volumeStiffness === 0) continue;
    const coefficient = b.volumeStiffness / b.restVolume;
    const v0 = b.restVolume;
    b.volume = addVolumeGradient(b.surface, x, b.scratchPositions, b.scratchGradient, (vol) => coefficient * (v0 - vol), f);
  }
}

/**
 * Adds every spring's Hooke force and (unless `dampers` is false) its damper
 * force (file comment) into f. With `directions`, also writes each spring's
 * unit direction there (3 per spring; zero for coincident ends), for the exact
 * dampers that follow within the same substep.
 */
export function addSpringForces(sys: SoftSystem, x: Float64Array, v: Float64Array, f: Float64Array, dampers = true, directions?: Float64Array): void {
  if (!dampers && directions) {
    addHookeForces(sys, x, f, directions);
    return;
  }
  const A = sys.springA, B = sys.springB, L0 = sys.springRest, K = sys.springK, C = sys.springC;
  const count = sys.springCount;
  const damperScale = dampers ? 1 : 0;
  for (let s = 0; s < count; s++) {
    const a = 3 * A[s]!, b = 3 * B[s]!;
    const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    // Coincident ends give the spring no direction to act along: it sits out this evaluation.
    const inv = len === 0 ? 0 : 1 / len;
    const ux = dx * inv, uy = dy * inv, uz = dz * inv;
    if (directions) {
      directions[3 * s] = ux;
      directions[3 * s + 1] = uy;
      directions[3 * s + 2] = uz;
    }
    if (len === 0) continue;
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
 * The Hooke forces alone, writing directions: the semi-implicit path, where
 * not reading velocities at all makes the hottest loop about a third faster
 * (measured 18 -> 12 ns per spring).
 */
function addHookeForces(sys: SoftSystem, x: Float64Array, f: Float64Array, directions: Float64Array): void {
  const A = sys.springA, B = sys.springB, L0 = sys.springRest, K = sys.springK;
  const count = sys.springCount;
  for (let s = 0; s < count; s++) {
    const a = 3 * A[s]!, b = 3 * B[s]!;
    const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const inv = len === 0 ? 0 : 1 / len;
    const ux = dx * inv, uy = dy * inv, uz = dz * inv;
    const o = 3 * s;
    directions[o] = ux;
    directions[o + 1] = uy;
    directions[o + 2] = uz;
    // With len = 0 the direction is zero and so is the force.
    const magnitude = K[s]! * (len - L0[s]!);
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
 * they bound nothing. `directions` are the springs' unit directions at the
 * substep's positions (addSpringForces); the per-spring factor
 * expm1(-c beta h) / beta is computed once per substep length.
 */
export function applyDampersExactly(sys: SoftSystem, h: number, directions: Float64Array): void {
  const A = sys.springA, B = sys.springB, w = sys.invMass;
  const v = sys.vel;
  const factor = damperFactors(sys, h);
  for (let s = 0; s < sys.springCount; s++) {
    const k = factor[s]!;
    if (k === 0) continue;
    const ia = A[s]!, ib = B[s]!;
    const a = 3 * ia, b = 3 * ib;
    const ux = directions[3 * s]!, uy = directions[3 * s + 1]!, uz = directions[3 * s + 2]!;
    const closing = (v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz;
    // The impulse (per unit beta) that takes the closing speed from w to w exp(-c beta h).
    const j = closing * k;
    const ja = j * w[ia]!, jb = j * w[ib]!;
    v[a] += ja * ux;
    v[a + 1] += ja * uy;
    v[a + 2] += ja * uz;
    v[b] -= jb * ux;
    v[b + 1] -= jb * uy;
    v[b + 2] -= jb * uz;
  }
}

/** expm1(-c beta h) / beta per spring (0 where nothing can move), cached on the system for this h. */
function damperFactors(sys: SoftSystem, h: number): Float64Array {
  const cache = sys.damperCache;
  if (cache.h === h && cache.factor.length === sys.springCount && cache.version === sys.massVersion) return cache.factor;
  const factor = cache.factor.length === sys.springCount ? cache.factor : new Float64Array(sys.springCount);
  const A = sys.springA, B = sys.springB, C = sys.springC, w = sys.invMass;
  for (let s = 0; s < sys.springCount; s++) {
    const beta = w[A[s]!]! + w[B[s]!]!;
    factor[s] = beta === 0 || C[s] === 0 ? 0 : Math.expm1(-C[s]! * beta * h) / beta;
  }
  sys.damperCache = { h, version: sys.massVersion, factor };
  return factor;
}
