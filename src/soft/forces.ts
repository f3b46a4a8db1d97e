/**
 * Forces on the particles of a SoftStore (the arrays SoftSystem steps) at a given state (x, v), the
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
 *  stretch   stretch prevention (seed 001, "Onemogućavanje izduživanja
 *            opruge"): while L > L0 a spring takes its own, stiffer k and c
 *            (springStretchK, springStretchC) instead of k and c;
 *  volume    a pressure along the gradient of the drawn surface's volume,
 *              f = K / V0 (V0 - V) dV/dx   (the force of the energy K (V - V0)^2 / (2 V0)),
 *            for bodies with volume preservation on (skin.ts);
 *  tets      for bodies whose construction asks for it (SoftModel.tetWeight:
 *            the seed's), each tetrahedron keeps its own signed volume,
 *              f = K / V0 (V0 - V) dV/dx   per tetrahedron, K = tetWeight x stiffness;
 *            its pull grows as a tetrahedron flattens and pushes one that
 *            has turned inside out back, which no spring does (a triangle
 *            of springs has the same lengths mirrored);
 *  perimeter for bodies with perimeter preservation on, each outline loop
 *            acts as one spring of rest length P0 along its perimeter P,
 *              f = -k_P (P - P0) dP/dx,  k_P = K_P s^2 / P0
 *            (the energy k_P (P - P0)^2 / 2; K_P the perimeter modulus, s the
 *            body's spacing: the same rule that gives a spring its k).
 * Every term is a sum of equal and opposite pairs or a translation- and
 * rotation-invariant gradient, so momentum and angular momentum change only
 * through gravity, collisions and pins.
 */
import { addVolumeGradient, volumePass, type VolumeRun } from './skin.ts';
import type { SoftStore } from './store.ts';
import * as det from '../util/detmath.ts';
import { specialisedCopy } from '../util/specialise.ts';

/**
 * f = total force on each particle at state (x, v); 3 floats per particle
 * each (the explicit integrators).
 */
export function computeForces(sys: SoftStore, x: Float64Array, v: Float64Array, f: Float64Array): void {
  externalForces(sys, x, f);
  addSpringForces(sys, x, v, f);
}

/** Gravity, volume pressure, tetrahedron volumes and perimeter preservation (no springs) at positions x, written to f. */
export function externalForces(sys: SoftStore, x: Float64Array, f: Float64Array): void {
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
  for (const b of sys.bodies) {
    if (b.volumeStiffness === 0) continue;
    const coefficient = b.volumeStiffness / b.restVolume, v0 = b.restVolume;
    // The particles' own positions (every substep of the default integrator) take the pass compiled for
    // them; an explicit integrator's stage positions, which alternate with them, take the plain function.
    b.volume = x === sys.pos
      ? volumeRun(b, x, f)(coefficient, v0)
      : addVolumeGradient(b.surface, x, b.scratchPositions, b.scratchGradient, f, coefficient, v0);
  }
  for (const b of sys.bodies) {
    if (b.tetStiffness !== 0) addTetForces(b.tets, b.tetRest, b.tetStiffness, x, f, b.tetScratch);
  }
  for (const b of sys.bodies) {
    if (b.perimeterStiffness === 0) continue;
    const s2 = b.model.spacing * b.model.spacing;
    for (let l = 0; l < b.outlines.length; l++) {
      const p0 = b.restPerimeters[l]!;
      addPerimeterForce(b.outlines[l]!, x, (b.perimeterStiffness * s2) / p0, p0, f);
    }
  }
}

/** Body b's volume pass (skin.ts volumePass) over positions x and forces f, made again when an array is replaced. */
function volumeRun(b: SoftStore['bodies'][number], x: Float64Array, f: Float64Array): VolumeRun {
  let pass = b.volumePass;
  if (!pass || pass.x !== x || pass.f !== f || pass.p !== b.scratchPositions || pass.grad !== b.scratchGradient || pass.surface !== b.surface) {
    pass = { x, f, p: b.scratchPositions, grad: b.scratchGradient, surface: b.surface, run: volumePass(b.surface, x, b.scratchPositions, b.scratchGradient, f) };
    b.volumePass = pass;
  }
  return pass.run;
}

/**
 * Adds K / V0 (V0 - V) dV/dx into f for every tetrahedron (4 particle
 * indices each in `tets`, rest volumes `rest`; file comment); g is scratch
 * of 12.
 */
export function addTetForces(tets: Uint32Array, rest: Float64Array, stiffness: number, x: Float64Array, f: Float64Array, g: Float64Array): void {
  for (let t = 0; t < tets.length; t += 4) {
    const v0 = rest[t >> 2]!;
    const m = (stiffness * (v0 - tetVolumeGradient(x, tets[t]!, tets[t + 1]!, tets[t + 2]!, tets[t + 3]!, g))) / v0;
    for (let k = 0; k < 4; k++) {
      const o = 3 * tets[t + k]!;
      f[o] += m * g[3 * k]!;
      f[o + 1] += m * g[3 * k + 1]!;
      f[o + 2] += m * g[3 * k + 2]!;
    }
  }
}

/**
 * Signed volume of tetrahedron (a, b, c, d) (particle indices) at positions
 * x, and its gradient dV/dx at a, b, c, d into out[0..11] (addTetForces).
 */
export function tetVolumeGradient(x: Float64Array, a: number, b: number, c: number, d: number, out: Float64Array): number {
  const o = 3 * a, p = 3 * b, q = 3 * c, r = 3 * d;
  const bx = x[p]! - x[o]!, by = x[p + 1]! - x[o + 1]!, bz = x[p + 2]! - x[o + 2]!;
  const cx = x[q]! - x[o]!, cy = x[q + 1]! - x[o + 1]!, cz = x[q + 2]! - x[o + 2]!;
  const dx = x[r]! - x[o]!, dy = x[r + 1]! - x[o + 1]!, dz = x[r + 2]! - x[o + 2]!;
  out[3] = (cy * dz - cz * dy) / 6;
  out[4] = (cz * dx - cx * dz) / 6;
  out[5] = (cx * dy - cy * dx) / 6;
  out[6] = (dy * bz - dz * by) / 6;
  out[7] = (dz * bx - dx * bz) / 6;
  out[8] = (dx * by - dy * bx) / 6;
  out[9] = (by * cz - bz * cy) / 6;
  out[10] = (bz * cx - bx * cz) / 6;
  out[11] = (bx * cy - by * cx) / 6;
  for (let k = 0; k < 3; k++) out[k] = -(out[3 + k]! + out[6 + k]! + out[9 + k]!);
  return bx * out[3]! + by * out[4]! + bz * out[5]!;
}

/** Perimeter of the closed loop of particles `loop` at positions x. */
export function loopPerimeter(loop: Uint32Array, x: Float64Array): number {
  const n = loop.length;
  let perimeter = 0;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = 3 * loop[j]!, b = 3 * loop[i]!;
    perimeter += Math.sqrt((x[b]! - x[a]!) ** 2 + (x[b + 1]! - x[a + 1]!) ** 2 + (x[b + 2]! - x[a + 2]!) ** 2);
  }
  return perimeter;
}

/**
 * Adds -k (P - P0) dP/dx into f for one loop (file comment): dP/dx at a
 * particle is the unit vector of its incoming edge minus that of its outgoing
 * one, so each edge (a, b) with unit vector t from a to b pushes a along
 * +k (P - P0) t and b along -k (P - P0) t. Returns P.
 */
function addPerimeterForce(loop: Uint32Array, x: Float64Array, k: number, p0: number, f: Float64Array): number {
  const perimeter = loopPerimeter(loop, x);
  const scale = k * (perimeter - p0);
  const n = loop.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = 3 * loop[j]!, b = 3 * loop[i]!;
    const dx = x[b]! - x[a]!, dy = x[b + 1]! - x[a + 1]!, dz = x[b + 2]! - x[a + 2]!;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (len === 0) continue;
    const m = scale / len;
    f[a] += m * dx;
    f[a + 1] += m * dy;
    f[a + 2] += m * dz;
    f[b] -= m * dx;
    f[b + 1] -= m * dy;
    f[b + 2] -= m * dz;
  }
  return perimeter;
}

/**
 * Adds every spring's Hooke force and its damper force (file comment) into f,
 * with the stretch coefficients while a spring under stretch prevention is
 * longer than its rest length: the seed's forces, as the explicit integrators
 * take them.
 */
export function addSpringForces(sys: SoftStore, x: Float64Array, v: Float64Array, f: Float64Array): void {
  const A = sys.springA, B = sys.springB, L0 = sys.springRest, K = sys.springK, C = sys.springC;
  const KS = sys.springStretchK, CS = sys.springStretchC;
  const count = sys.springCount;
  for (let s = 0; s < count; s++) {
    const a = 3 * A[s]!, b = 3 * B[s]!;
    const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    // Coincident ends give the spring no direction to act along: it sits out this evaluation.
    if (len === 0) continue;
    const inv = 1 / len;
    const ux = dx * inv, uy = dy * inv, uz = dz * inv;
    const closing = (v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz;
    const stretch = len - L0[s]!;
    const stiff = stretch > 0 && KS[s]! > 0;
    const magnitude = (stiff ? KS[s]! : K[s]!) * stretch + (stiff ? CS[s]! : C[s]!) * closing;
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
 * The Hooke force on particle i's end of spring s (no damper), into out[0..2]:
 * with k, or 0 for a stretched spring under stretch prevention (the
 * semi-implicit substep gives that one an implicit impulse instead,
 * springImpulses).
 */
export function hookeForceOn(sys: SoftStore, s: number, i: number, out: Float64Array): void {
  const a = 3 * sys.springA[s]!, b = 3 * sys.springB[s]!, x = sys.pos;
  const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  const stretch = len - sys.springRest[s]!;
  const implicit = stretch > 0 && sys.springStretchK[s]! > 0;
  const scale = len === 0 || implicit ? 0 : ((sys.springA[s] === i ? -1 : 1) * sys.springK[s]! * stretch) / len;
  out[0] = scale * dx;
  out[1] = scale * dy;
  out[2] = scale * dz;
}

/**
 * The velocity half of the semi-implicit substep: the springs as impulses
 * and the forces f (gravity and volume at the substep's positions, from
 * externalForces; none when null), in this order:
 *
 * 1. every damper as an exact velocity update, one spring after another.
 *    Alone, a damper makes the ends' closing speed w = (v_a - v_b) . u decay
 *    as dw/dt = -c (1/m_a + 1/m_b) w, so over h it becomes
 *    w exp(-c (1/m_a + 1/m_b) h); the impulse along u that does this keeps
 *    momentum and angular momentum and only removes kinetic energy, whatever
 *    h is. As forces, the dampers would bound the substep by h c / m < 2
 *    (system.ts) and make stiff damping expensive. The sweep is symmetric:
 *    every damper over h / 2 forward through the springs, then over h / 2
 *    backward;
 * 2. every spring's Hooke impulse h k (L - L0) u at the substep's positions
 *    (together, the velocity half of symplectic Euler; their order does not
 *    matter) and h f / m;
 * 3. the stiff springs that are stretched (stretch prevention, below).
 *
 * Why symmetric. Each exact damper is a symmetric contraction of the
 * velocities (in the mass inner product), and so is a forward sweep followed
 * by its mirror, and with that the substep is stable at any damping
 * (system.ts). A forward sweep alone is a contraction that is not
 * symmetric, and nothing bounds the substep's eigenvalues then: swept one
 * way after the Hooke impulses, the 27-particle lattice of a 0.5 m cube at
 * damping 10 (5 substeps of 1/300 s) grew by a factor of 1.062 per substep,
 * the largest eigenvalue of the linearised substep (1.045 at damping 3; 1 up
 * to about 1.5): squashed to 80 % of its height in free space, its 1 kJ of
 * spring energy became 57 kJ in 10 steps. (Swept one way but first, the
 * lattices tried held, but products of such updates along random directions
 * reached eigenvalues of 1.36 at h omega = 1.4.)
 *
 * Why first. On the velocities the last substep's collisions and pins left,
 * before gravity and the Hooke impulses. After the Hooke impulses (and
 * before the collisions), a stiff damper shared a particle's velocity into
 * the ground with its neighbours before the ground stopped it, so the
 * ground took back the springs' push on the neighbours too: a column on the
 * ground sank at 2 g h whatever its springs, storing energy no force had put
 * in (the cube dropped 3 m at damping 10 to 1e6: 3.7 kJ to 6.4-7.2 kJ while it
 * crushed; now it rests at 99.6 % of its volume, as at damping 0.1). After
 * gravity, dampers carry part of a static load: gravity's h g on the
 * particles beside a pinned one is a closing speed (a hanging cube at
 * damping 0.5 passed 97.6 % of its weight to its pins). First, at rest, they
 * see no velocity and carry nothing.
 *
 * Stretch prevention: a spring with stretch coefficients (k_s, c_s) that is
 * longer than its rest length (e = L - L0 > 0) at the substep's start has
 * neither damper nor Hooke impulse in 1 and 2; in 3 it takes the
 * backward-Euler step of the spring and damper alone: with
 * beta = 1/m_a + 1/m_b, the change of its closing speed is
 *   dw = -beta h (k_s (e + h (w + dw)) + c_s (w + dw)),
 *   dw = -beta h (k_s (e + h w) + c_s w) / (1 + beta h (h k_s + c_s)),
 * an impulse dw / beta along u. It never overshoots the rest length however
 * stiff k_s is (as k_s grows, it takes the spring back to L0 in one substep),
 * so the stretch coefficients leave the substep bound (system.ts), which
 * counts k alone, as it is: the seed's "stiff spring" costs no substeps. One
 * spring after another, like the dampers, the stiff springs converge where
 * all at once (each from the same velocities) springs sharing a particle
 * would overshoot together. The impulse is kept (springStretchImpulse) for
 * the pins (system.ts).
 *
 * Speed (the solver's hot loop): two passes over the springs. The forward
 * sweep keeps 1 / L per spring (negated for a stiff stretched spring); the
 * backward sweep rebuilds u from the positions, which have not moved, and
 * gathers each spring's Hooke impulse in springKick, which reaches the
 * velocities after the sweep, so no damper sees a Hooke impulse. (Applied
 * to the velocities at once, a damper later in the sweep sees the Hooke
 * impulses of the springs before it and carries part of a static load: a
 * pinned cube passed 100.8 % of its weight to its pins.) The second damper
 * sweep costs: a whole substep of the 512-particle bench cube took 16.5 ns
 * per spring against 12 with one sweep after the Hooke impulses (the two
 * run alternately in one process, best of 15). The same loops
 * over module-level constant arrays ran 1.6 times faster (V8 folds the
 * arrays in), and so does a closure over the arrays whose code was compiled
 * for that closure alone: the plain passes are such a closure, compiled
 * afresh from their own source for each store (plainSpringPasses): 19.5 ->
 * 10 ns a spring in Node, 18 -> 11 in Chromium, the soft-pegs step 24 -> 18
 * ms, the same numbers to the bit. A closure compiled once and made for many
 * stores (or arguments) does not get there.
 */
export function springImpulses(sys: SoftStore, h: number, f: Float64Array | null = null): void {
  const count = sys.springCount, n = sys.particleCount;
  if (sys.springInvLength.length !== count) sys.springInvLength = new Float64Array(count);
  if (sys.springStretchImpulse.length !== count) sys.springStretchImpulse = new Float64Array(count);
  if (sys.springKick.length !== 3 * n) sys.springKick = new Float64Array(3 * n);
  const factor = damperFactors(sys, h / 2);
  // Body by body (bodies share no particles, so this is the same as all springs at once): a body
  // without stretch prevention runs the plain passes, which do not pay for its test.
  let stiff = false;
  for (const body of sys.bodies) {
    const from = body.springStart, to = from + body.springCount;
    if (body.stretchStiffness > 0) {
      stretchSpringPasses(sys, h, factor, from, to);
      stiff = true;
    } else {
      plainPasses(sys, factor)(h, from, to);
    }
  }
  const v = sys.vel, kick = sys.springKick, w = sys.invMass;
  for (let i = 0; i < n; i++) {
    const hw = f === null ? 0 : h * w[i]!;
    for (let c = 3 * i; c < 3 * i + 3; c++) {
      v[c] += kick[c]! + (f === null ? 0 : hw * f[c]!);
      kick[c] = 0;
    }
  }
  if (!stiff) return;
  for (const body of sys.bodies) {
    if (body.stretchStiffness > 0) stiffSpringImpulses(sys, h, body.springStart, body.springStart + body.springCount);
  }
}

/** The plain spring passes bound to the store's arrays (plainSpringPasses), made again when one of them is replaced. */
function plainPasses(sys: SoftStore, factor: Float64Array): PlainSpringRun {
  let pass = sys.springPass;
  if (!pass || pass.A !== sys.springA || pass.B !== sys.springB || pass.L0 !== sys.springRest || pass.K !== sys.springK ||
    pass.w !== sys.invMass || pass.x !== sys.pos || pass.v !== sys.vel || pass.kick !== sys.springKick ||
    pass.inv !== sys.springInvLength || pass.factor !== factor) {
    pass = {
      A: sys.springA, B: sys.springB, L0: sys.springRest, K: sys.springK, w: sys.invMass, x: sys.pos, v: sys.vel,
      kick: sys.springKick, inv: sys.springInvLength, factor,
      run: specialisedCopy(plainSpringPasses, springsAgree)(sys.springA, sys.springB, sys.springRest, sys.springK, sys.invMass, sys.pos, sys.vel,
        sys.springKick, sys.springInvLength, factor),
    };
    sys.springPass = pass;
  }
  return pass.run;
}

/** The plain spring passes over [from, to), bound to a store's arrays (plainSpringPasses). */
type PlainSpringRun = (h: number, from: number, to: number) => void;

/**
 * The two passes of springImpulses for springs without stretch prevention
 * (the dampers forward; the dampers backward, gathering the Hooke impulses
 * in `kick`), as a closure over the store's arrays. It refers to nothing
 * outside itself but Math: specialisedCopy (src/util/specialise.ts) compiles a copy of it per store
 * from its own source. A copy of its own, made once and bound to one
 * store's arrays, is code V8 specialises on those arrays (they become
 * constants of the compiled loop): 1.7-1.9 times as fast as with the arrays
 * as arguments (the soft-pegs lattice of 101 440 springs, measured with the
 * one-way damper sweep: 10 against 17-19 ns a spring), the arithmetic the
 * same to the bit.
 */
function plainSpringPasses(A: Uint32Array, B: Uint32Array, L0: Float64Array, K: Float64Array, w: Float64Array,
  x: Float64Array, v: Float64Array, kick: Float64Array, inv: Float64Array, factor: Float64Array): PlainSpringRun {
  return (h: number, from: number, to: number): void => {
    for (let s = from; s < to; s++) {
      const ia = A[s]!, ib = B[s]!;
      const a = 3 * ia, b = 3 * ib;
      const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      // Coincident ends give the spring no direction to act along: it sits out this substep.
      const il = len === 0 ? 0 : 1 / len;
      inv[s] = il;
      const k = factor[s]!;
      if (k === 0) continue;
      const ux = dx * il, uy = dy * il, uz = dz * il;
      // The impulse (per unit beta) that takes the closing speed from w to w exp(-c beta h / 2).
      const j = ((v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz) * k;
      const ja = j * w[ia]!, jb = j * w[ib]!;
      v[a] += ja * ux;
      v[a + 1] += ja * uy;
      v[a + 2] += ja * uz;
      v[b] -= jb * ux;
      v[b + 1] -= jb * uy;
      v[b + 2] -= jb * uz;
    }
    for (let s = to - 1; s >= from; s--) {
      const ia = A[s]!, ib = B[s]!;
      const a = 3 * ia, b = 3 * ib;
      const il = inv[s]!;
      const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
      const k = factor[s]!;
      if (k !== 0) {
        const ux = dx * il, uy = dy * il, uz = dz * il;
        const j = ((v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz) * k;
        const ja = j * w[ia]!, jb = j * w[ib]!;
        v[a] += ja * ux;
        v[a + 1] += ja * uy;
        v[a + 2] += ja * uz;
        v[b] -= jb * ux;
        v[b + 1] -= jb * uy;
        v[b + 2] -= jb * uz;
      }
      // Impulse -h k (L - L0) u on a, the opposite on b; (L - L0) u = (1 - L0 / L) d (0 for coincident ends).
      const m = il === 0 ? 0 : h * K[s]! * (1 - L0[s]! * il);
      const ma = m * w[ia]!, mb = m * w[ib]!;
      kick[a] -= ma * dx;
      kick[a + 1] -= ma * dy;
      kick[a + 2] -= ma * dz;
      kick[b] += mb * dx;
      kick[b + 1] += mb * dy;
      kick[b + 2] += mb * dz;
    }
  };
}

/** Whether `copy` moves two springs' ends exactly as plainSpringPasses does (specialisedCopy's check). */
function springsAgree(copy: typeof plainSpringPasses): boolean {
  const run = (f: typeof plainSpringPasses): Float64Array | null => {
    const v = new Float64Array([0.1, -0.2, 0.3, 0, 0.5, 0, -0.4, 0, 0.2]);
    const kick = new Float64Array(9);
    try {
      f(new Uint32Array([0, 1]), new Uint32Array([1, 2]), new Float64Array([1, 0.7]), new Float64Array([50, 80]),
        new Float64Array([1, 0.5, 2]), new Float64Array([0, 0, 0, 1.2, 0.1, 0, 1.3, 0.9, 0.2]), v, kick, new Float64Array(2),
        new Float64Array([0.01, 0.02]))(0.001, 0, 2);
    } catch {
      return null;
    }
    return Float64Array.of(...v, ...kick);
  };
  const a = run(plainSpringPasses), b = run(copy);
  return a !== null && b !== null && a.every((x, i) => Object.is(x, b[i]));
}

/**
 * springImpulses' two passes over the springs [from, to) of a body with
 * stretch prevention: as plainSpringPasses, leaving out the stiff springs
 * that are stretched (1 / L negated marks them for stiffSpringImpulses).
 */
function stretchSpringPasses(sys: SoftStore, h: number, factor: Float64Array, from: number, to: number): void {
  const A = sys.springA, B = sys.springB, L0 = sys.springRest, K = sys.springK, KS = sys.springStretchK, w = sys.invMass;
  const x = sys.pos, v = sys.vel, kick = sys.springKick;
  const inv = sys.springInvLength;
  for (let s = from; s < to; s++) {
    const a = 3 * A[s]!, b = 3 * B[s]!;
    const len = Math.sqrt((x[a]! - x[b]!) ** 2 + (x[a + 1]! - x[b + 1]!) ** 2 + (x[a + 2]! - x[b + 2]!) ** 2);
    const il = len === 0 ? 0 : 1 / len;
    const stiff = len > L0[s]! && KS[s]! > 0;
    inv[s] = stiff ? -il : il;
    if (!stiff) dampSpring(A, B, w, x, v, s, il, factor[s]!);
  }
  for (let s = to - 1; s >= from; s--) {
    const il = inv[s]!;
    if (il < 0) continue;
    dampSpring(A, B, w, x, v, s, il, factor[s]!);
    if (il === 0) continue;
    const ia = A[s]!, ib = B[s]!;
    const a = 3 * ia, b = 3 * ib;
    const dx = x[a]! - x[b]!, dy = x[a + 1]! - x[b + 1]!, dz = x[a + 2]! - x[b + 2]!;
    const m = h * K[s]! * (1 - L0[s]! * il);
    const ma = m * w[ia]!, mb = m * w[ib]!;
    kick[a] -= ma * dx;
    kick[a + 1] -= ma * dy;
    kick[a + 2] -= ma * dz;
    kick[b] += mb * dx;
    kick[b + 1] += mb * dy;
    kick[b + 2] += mb * dz;
  }
}

/** Spring s's damper as the exact decay its factor k = expm1(-c beta h') / beta gives over h' (springImpulses); il = 1 / L. */
function dampSpring(A: Uint32Array, B: Uint32Array, w: Float64Array, x: Float64Array, v: Float64Array, s: number, il: number, k: number): void {
  if (k === 0) return;
  const ia = A[s]!, ib = B[s]!;
  const a = 3 * ia, b = 3 * ib;
  const ux = (x[a]! - x[b]!) * il, uy = (x[a + 1]! - x[b + 1]!) * il, uz = (x[a + 2]! - x[b + 2]!) * il;
  const j = ((v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz) * k;
  const ja = j * w[ia]!, jb = j * w[ib]!;
  v[a] += ja * ux;
  v[a + 1] += ja * uy;
  v[a + 2] += ja * uz;
  v[b] -= jb * ux;
  v[b + 1] -= jb * uy;
  v[b + 2] -= jb * uz;
}

/** springImpulses' part 3 for the springs [from, to): the backward-Euler step of each stiff stretched one. */
function stiffSpringImpulses(sys: SoftStore, h: number, from: number, to: number): void {
  const A = sys.springA, B = sys.springB, L0 = sys.springRest, w = sys.invMass;
  const KS = sys.springStretchK, CS = sys.springStretchC;
  const x = sys.pos, v = sys.vel;
  const inv = sys.springInvLength;
  const stretchImpulse = sys.springStretchImpulse;
  for (let s = from; s < to; s++) {
    if (!(inv[s]! < 0)) continue;
    const il = -inv[s]!;
    const ia = A[s]!, ib = B[s]!;
    const a = 3 * ia, b = 3 * ib;
    const ux = (x[a]! - x[b]!) * il, uy = (x[a + 1]! - x[b + 1]!) * il, uz = (x[a + 2]! - x[b + 2]!) * il;
    const closing = (v[a]! - v[b]!) * ux + (v[a + 1]! - v[b + 1]!) * uy + (v[a + 2]! - v[b + 2]!) * uz;
    const beta = w[ia]! + w[ib]!;
    const ks = KS[s]!, cs = CS[s]!;
    // dw / beta (comment above); 0 when both ends are pinned.
    const j = beta === 0 ? 0 : (-h * (ks * (1 / il - L0[s]! + h * closing) + cs * closing)) / (1 + beta * h * (h * ks + cs));
    stretchImpulse[s] = j;
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
function damperFactors(sys: SoftStore, h: number): Float64Array {
  const cache = sys.damperCache;
  if (cache.h === h && cache.factor.length === sys.springCount && cache.version === sys.massVersion) return cache.factor;
  const factor = cache.factor.length === sys.springCount ? cache.factor : new Float64Array(sys.springCount);
  const A = sys.springA, B = sys.springB, C = sys.springC, w = sys.invMass;
  for (let s = 0; s < sys.springCount; s++) {
    const beta = w[A[s]!]! + w[B[s]!]!;
    factor[s] = beta === 0 || C[s] === 0 ? 0 : det.expm1(-C[s]! * beta * h) / beta;
  }
  sys.damperCache = { h, version: sys.massVersion, factor };
  return factor;
}
