/**
 * The soft-body solver's settings, owned by the soft-body core (as
 * dynamics/settings.ts for the rigid engine); the scene layer fills them from
 * a file's "softSolver" object (scene/softValidate.ts).
 */
export type SoftIntegratorName = 'semiImplicit' | 'euler' | 'rk2' | 'rk4';

export interface SoftSolverSettings {
  integrator: SoftIntegratorName;
  /** Substeps per step: exact for euler / rk2 / rk4, a minimum for semiImplicit (which adds what stability needs). */
  substeps: number;
  /** Most substeps semiImplicit may take; a body needing more is refused. */
  maxSubsteps: number;
  /** A spring stretched past this many times its rest length means the body blew up (a simulation error). */
  maxStretch: number;
}

export const SOFT_INTEGRATORS: readonly SoftIntegratorName[] = ['semiImplicit', 'euler', 'rk2', 'rk4'];

export const DEFAULT_SOFT_SOLVER: Readonly<SoftSolverSettings> = {
  integrator: 'semiImplicit',
  substeps: 1,
  maxSubsteps: 512,
  maxStretch: 10,
};
