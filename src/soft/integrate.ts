/**
 * One substep of length h for the particles of a SoftSystem, by the
 * integrator the scene picks (softSolver.integrator):
 *
 *  euler         explicit Euler: x += h v(t), v += h a(t). The seed's first
 *                integrator; it adds energy to every undamped oscillation
 *                (by a factor sqrt(1 + (omega h)^2) per step), so stiff springs
 *                at low frame rates explode. Kept for the seed's comparison.
 *  rk2           the midpoint method: two force evaluations per substep.
 *  rk4           classic fourth-order Runge-Kutta: four evaluations, what the
 *                seed moved to for very stiff springs.
 *  semiImplicit  semi-implicit (symplectic) Euler with exact dampers: the
 *                dampers as exact velocity updates, then v += h a(t)
 *                (gravity, volume and the springs' Hooke impulses;
 *                forces.ts, springImpulses), then x += h v(t + h). One
 *                evaluation, no energy drift for oscillations, and a
 *                stability limit known in closed form that holds at any
 *                damping (system.ts picks enough substeps to stay inside
 *                it). The default.
 *
 * Pinned particles have inverse mass 0, so no force moves them; the pins set
 * their positions after the substep.
 */
import { computeForces, externalForces, springImpulses } from './forces.ts';
import type { SoftStore } from './store.ts';

import type { SoftIntegratorName } from './settings.ts';

export type SoftIntegrator = SoftIntegratorName;
export const INTEGRATORS: readonly SoftIntegrator[] = ['semiImplicit', 'euler', 'rk2', 'rk4'];

/** Force evaluations per substep, for cost estimates and the profile. */
export const EVALUATIONS: Readonly<Record<SoftIntegrator, number>> = { semiImplicit: 1, euler: 1, rk2: 2, rk4: 4 };

/** Scratch arrays, 3 floats per particle, reused across substeps. */
export class IntegratorScratch {
  f = new Float64Array(0);
  xs = new Float64Array(0);
  vs = new Float64Array(0);
  accX = new Float64Array(0);
  accV = new Float64Array(0);

  ensure(n3: number, rk: boolean): void {
    if (this.f.length !== n3) this.f = new Float64Array(n3);
    if (rk && this.xs.length !== n3) {
      this.xs = new Float64Array(n3);
      this.vs = new Float64Array(n3);
      this.accX = new Float64Array(n3);
      this.accV = new Float64Array(n3);
    }
  }
}

export function integrateSubstep(sys: SoftStore, kind: SoftIntegrator, h: number, s: IntegratorScratch): void {
  const x = sys.pos, v = sys.vel, w = sys.invMass;
  const n = sys.particleCount;
  s.ensure(3 * n, kind === 'rk2' || kind === 'rk4');
  const f = s.f;
  if (kind === 'semiImplicit') {
    // f: gravity and volume only (the springs act as impulses); springImpulses applies it after the dampers.
    externalForces(sys, x, f);
    springImpulses(sys, h, f);
    for (let c = 0; c < 3 * n; c++) x[c] += h * v[c]!;
    return;
  }
  computeForces(sys, x, v, f);
  switch (kind) {
    case 'euler':
      for (let i = 0; i < n; i++) {
        const hw = h * w[i]!;
        for (let c = 3 * i; c < 3 * i + 3; c++) {
          x[c] += h * v[c]!;
          v[c] += hw * f[c]!;
        }
      }
      return;
    case 'rk2': {
      const { xs, vs } = s;
      for (let i = 0; i < n; i++) {
        const hw = 0.5 * h * w[i]!;
        for (let c = 3 * i; c < 3 * i + 3; c++) {
          xs[c] = x[c]! + 0.5 * h * v[c]!;
          vs[c] = v[c]! + hw * f[c]!;
        }
      }
      computeForces(sys, xs, vs, f);
      for (let i = 0; i < n; i++) {
        const hw = h * w[i]!;
        for (let c = 3 * i; c < 3 * i + 3; c++) {
          x[c] += h * vs[c]!;
          v[c] += hw * f[c]!;
        }
      }
      return;
    }
    case 'rk4': {
      const { xs, vs, accX, accV } = s;
      // Stage 1 is f at (x, v); accX / accV collect k1 + 2 k2 + 2 k3 + k4 (x' = v, v' = f / m).
      for (let i = 0; i < n; i++) {
        const wi = w[i]!;
        for (let c = 3 * i; c < 3 * i + 3; c++) {
          const a = wi * f[c]!;
          accX[c] = v[c]!;
          accV[c] = a;
          xs[c] = x[c]! + 0.5 * h * v[c]!;
          vs[c] = v[c]! + 0.5 * h * a;
        }
      }
      for (const [weight, next] of [[2, 0.5], [2, 1], [1, 0]] as const) {
        computeForces(sys, xs, vs, f);
        for (let i = 0; i < n; i++) {
          const wi = w[i]!;
          for (let c = 3 * i; c < 3 * i + 3; c++) {
            const a = wi * f[c]!;
            const stageV = vs[c]!;
            accX[c] += weight * stageV;
            accV[c] += weight * a;
            // The next stage's state from this stage's derivative (stage 4 has none).
            if (next !== 0) {
              xs[c] = x[c]! + next * h * stageV;
              vs[c] = v[c]! + next * h * a;
            }
          }
        }
      }
      const h6 = h / 6;
      for (let c = 0; c < 3 * n; c++) {
        x[c] += h6 * accX[c]!;
        v[c] += h6 * accV[c]!;
      }
      return;
    }
  }
}
