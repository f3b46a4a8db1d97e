/**
 * Stages "velocityUpdate" and "integrate" (ALGORITHM.md 3, 4.2): the forces
 * of the step (gravity, motors) as velocity changes, and the advance of
 * positions and orientations with the final velocities.
 */
import type { ConstraintSystem } from './constraints.ts';
import { integrateQuat } from './math.ts';
import type { StepContext } from './stepContext.ts';

/** v += dt g for every dynamic body; then the motors' torques (constraints). */
export function velocityUpdate(ctx: StepContext, c: ConstraintSystem | null): void {
  const B = ctx.bodies;
  const g = ctx.gravity;
  const dt = ctx.dt;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    B.vel[3 * i] += dt * g[0];
    B.vel[3 * i + 1] += dt * g[1];
    B.vel[3 * i + 2] += dt * g[2];
  }
  if (c && c.applyForces(ctx, dt)) {
    // Motors changed angular velocities: every cached prediction is stale.
    for (let i = 0; i < B.count; i++) ctx.version[i]++;
  }
}

/** x += dt v, q += dt/2 (omega, 0) q (renormalised). */
export function integratePositions(ctx: StepContext): void {
  const B = ctx.bodies;
  const dt = ctx.dt;
  for (let i = 0; i < B.count; i++) {
    if (B.isStatic[i]) continue;
    B.pos[3 * i] += dt * B.vel[3 * i]!;
    B.pos[3 * i + 1] += dt * B.vel[3 * i + 1]!;
    B.pos[3 * i + 2] += dt * B.vel[3 * i + 2]!;
    integrateQuat(B.quat, 4 * i, B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!, dt, B.quat, 4 * i);
  }
}
