/**
 * Stage "predict": the poses a phase detects at (docs/ALGORITHM.md 4.2).
 * x' = x + h v, q' = q + h/2 (omega, 0) q, with h = dt in the separated
 * scheme and 0 in the standard one (which detects at the already advanced
 * positions); the collision phase also adds h dt g, the velocity the body
 * will have after the velocity update (6.1).
 *
 * The solver masses (solverMasses) are the other half of what a phase needs:
 * the inverse inertia at the *current* orientation (impulses change the
 * current velocities, with lever arms about the current centres), which does
 * not change while a step's velocities do, so it is computed once per step.
 */
import { integrateQuat, quatToMat3, worldInverseInertia } from './math.ts';
import type { StepContext } from './stepContext.ts';

const rot = new Float64Array(9);

/** Starts a phase: every body's predicted pose with horizon h (and h dt g when withGravity). */
export function predictPoses(ctx: StepContext, h: number, withGravity: boolean): void {
  ctx.phase++;
  ctx.predH = h;
  ctx.predGravity = withGravity;
  for (let i = 0; i < ctx.bodies.count; i++) predictBody(ctx, i);
}

/** Recomputes body i's predicted pose if its velocity changed since it was predicted in this phase. */
export function ensurePredicted(ctx: StepContext, i: number): void {
  if (ctx.predPhase[i] === ctx.phase && ctx.predVersion[i] === ctx.version[i]) return;
  predictBody(ctx, i);
}

/** Body i's predicted pose for the current phase, from its current velocity. */
export function predictBody(ctx: StepContext, i: number): void {
  const B = ctx.bodies;
  const g = ctx.gravity;
  const h = ctx.predH;
  const P = ctx.predPos, Q = ctx.predQuat;
  // A sleeping body stands still with infinite mass, like a static one.
  const st = B.isStatic[i] === 1 || B.asleep[i] === 1;
  const vh = st ? 0 : h;
  const gg = st || !ctx.predGravity ? 0 : h * ctx.dt;
  const a = ctx.extAcc;
  P[3 * i] = B.pos[3 * i]! + vh * B.vel[3 * i]! + gg * (g[0] + a[3 * i]!);
  P[3 * i + 1] = B.pos[3 * i + 1]! + vh * B.vel[3 * i + 1]! + gg * (g[1] + a[3 * i + 1]!);
  P[3 * i + 2] = B.pos[3 * i + 2]! + vh * B.vel[3 * i + 2]! + gg * (g[2] + a[3 * i + 2]!);
  if (st || vh === 0) {
    for (let k = 0; k < 4; k++) Q[4 * i + k] = B.quat[4 * i + k]!;
  } else {
    integrateQuat(B.quat, 4 * i, B.angVel[3 * i]!, B.angVel[3 * i + 1]!, B.angVel[3 * i + 2]!, vh, Q, 4 * i);
  }
  quatToMat3(Q, 4 * i, ctx.predRot, 9 * i);
  ctx.predPhase[i] = ctx.phase;
  ctx.predVersion[i] = ctx.version[i]!;
}

/**
 * The masses the solvers use, for every body: inverse mass and world inverse
 * inertia at the current orientation, 0 for static and sleeping bodies. Call
 * when orientations or sleep states change (the start of a step; after
 * bodies wake).
 */
export function solverMasses(ctx: StepContext): void {
  for (let i = 0; i < ctx.bodies.count; i++) restoreSolverMass(ctx, i);
}

/** Gives body i the solver mass of its current state (also undoes a shock-propagation freeze). */
export function restoreSolverMass(ctx: StepContext, i: number): void {
  const B = ctx.bodies;
  if (B.isStatic[i] === 1 || B.asleep[i] === 1) {
    ctx.invMass[i] = 0;
    ctx.invInertia.fill(0, 9 * i, 9 * i + 9);
    return;
  }
  ctx.invMass[i] = B.invMass[i]!;
  quatToMat3(B.quat, 4 * i, rot);
  worldInverseInertia(rot, 0, B.invInertia, 9 * i, ctx.invInertia, 9 * i);
}
