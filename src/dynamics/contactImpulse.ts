/**
 * The seed's impulse at one contact point (docs/ALGORITHM.md 5, seed ch. 7):
 * frictionless, sticking (static friction cone, mu_s) or sliding (dynamic
 * friction, mu_d), then rolling and
 * spinning friction for sticking contacts; and the restitution a collision
 * takes so that a pair bounces where its surfaces meet (surfaceRestitution).
 * The sequential solver's contact and collision passes apply it
 * (sequentialSolver.ts); the conventions are impulse.ts's.
 */
import { J3, K, applyAngularImpulsePair, applyImpulsePair, collisionMatrix, kin, pointKinematics, type ImpulseResult, type ImpulseState, type Material } from './impulse.ts';
import { invert3, norm3 } from './math.ts';

/** Energy a friction impulse may add (applyContactImpulse), as a share of |J|^2 N.K.N: round-off. */
const ENERGY_ROUNDOFF = 1e-9;

const Kinv = new Float64Array(9);
const L = new Float64Array(9);
const Linv = new Float64Array(9);

/**
 * The restitution a collision-phase impulse takes so that a pair bounces with
 * `e` where its surfaces meet, not where the step found it. The collision
 * phase resolves a pair at the start of the step in which its prediction
 * first penetrates, when it may still be `gap` apart (up to a step's
 * approach); reversing the approach there with `e` loses only `(1 - e^2)` of
 * the kinetic energy it has at that height, not of what it would have at
 * the surface after falling the gap, so a box of restitution 0.5 dropped
 * 0.5 m at 100 Hz came back to 0.29 of the height instead of 0.25. With `an`
 * the relative acceleration that closes the pair (gravity along -N on the
 * body that falls, 0 between two bodies that fall together), the approach
 * at the surface is `u^2 + 2 an gap`, `e` of it bounces back, and rising
 * the gap again leaves `e^2 u^2 - (1 - e^2) 2 an gap`: the speed returned
 * here as a fraction of `-un`. Restitution 0 and 1 are unchanged (0 stops
 * the approach, 1 keeps the energy wherever it reverses), as is a pair
 * already touching, and an approach no faster than one step's gravity
 * (`an dt`): that is a resting contact's leftover, whose gap is what the
 * position pass left, not a fall; taking it as one moved settled stacks (a
 * cube resting 0.3 m off-centre on another slid 0.2 mm in its first steps).
 */
export function surfaceRestitution(e: number, un: number, gap: number, an: number, dt: number): number {
  if (!(e > 0 && e < 1) || !(gap > 0) || an === 0 || !(un < -Math.abs(an) * dt)) return e;
  // At most what the step closes (a first-order gap may overstate it).
  const d = Math.min(gap, (Math.max(an, 0) * dt - un) * dt);
  if (!(un * un + 2 * an * d >= 0)) return e;
  const back = e * e * un * un - (1 - e * e) * 2 * an * d;
  return back > 0 ? Math.sqrt(back) / -un : 0;
}

/**
 * Applies the impulse for restitution `eps` at the site at[o..o+6) (point p,
 * normal N) if the point approaches (u_rel.N < 0). Returns the normal
 * impulse magnitude j_n (0 when nothing was applied); when it applied one,
 * `out` gets whether it stuck and the size of its tangential impulse
 * (sticking, jt).
 */
export function applyContactImpulse(
  s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number,
  eps: number, m: Material, out: ImpulseResult, close = 0,
): number {
  const im = s.invMass;
  if (im[b1] === 0 && im[b2] === 0) return 0;
  pointKinematics(s, b1, b2, at, o);
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const ux = kin[6]!, uy = kin[7]!, uz = kin[8]!;
  const un = ux * nx + uy * ny + uz * nz;
  // Target normal velocity: -eps u_n (restitution; a negative eps, the
  // contact passes' ramp, stops the approach), measured from -close, the
  // approach speed that just closes the pair's present gap this step.
  if (!(un < -close)) return 0;
  const target = Math.max(-eps * (un + close), 0) - close;
  const dun = target - un;

  collisionMatrix(s, b1, b2);

  // Sticking within the static cone (mu_s), else sliding on the dynamic one (mu_d).
  const mu = m.friction, muS = m.staticFriction;
  const KNx = K[0]! * nx + K[1]! * ny + K[2]! * nz;
  const KNy = K[3]! * nx + K[4]! * ny + K[5]! * nz;
  const KNz = K[6]! * nx + K[7]! * ny + K[8]! * nz;
  const nKn = nx * KNx + ny * KNy + nz * KNz;
  if (!(nKn > 0)) return 0;
  // Frictionless (7.15-7.16), unless friction below finds its impulse.
  let jn = dun / nKn;
  let Jx = jn * nx, Jy = jn * ny, Jz = jn * nz;
  let sticking = false, friction = false;
  if ((mu > 0 || muS > 0) && invert3(K, Kinv)) {
    // Sticking: u_rel' = -eps u_n N (7.20), i.e. (target - u_n) N - u_t.
    const dx = (dun + un) * nx - ux, dy = (dun + un) * ny - uy, dz = (dun + un) * nz - uz;
    const sx = Kinv[0]! * dx + Kinv[1]! * dy + Kinv[2]! * dz;
    const sy = Kinv[3]! * dx + Kinv[4]! * dy + Kinv[5]! * dz;
    const sz = Kinv[6]! * dx + Kinv[7]! * dy + Kinv[8]! * dz;
    const sn = sx * nx + sy * ny + sz * nz;
    const tx = sx - sn * nx, ty = sy - sn * ny, tz = sz - sn * nz;
    const jt = norm3(tx, ty, tz);
    if (sn > 0 && jt <= muS * sn) {
      sticking = true;
      friction = true;
      jn = sn;
      Jx = sx;
      Jy = sy;
      Jz = sz;
    } else {
      // Sliding (7.25-7.26): friction opposes the tangential velocity.
      let Tx = ux - un * nx, Ty = uy - un * ny, Tz = uz - un * nz;
      let tl = norm3(Tx, Ty, Tz);
      if (tl < 1e-12 && jt > 0) {
        // No tangential motion yet, but sticking needed more than the cone:
        // the friction impulse would point along -T, so take T from it.
        Tx = -tx;
        Ty = -ty;
        Tz = -tz;
        tl = jt;
      }
      if (tl > 0) {
        Tx /= tl;
        Ty /= tl;
        Tz /= tl;
        const ax = nx - mu * Tx, ay = ny - mu * Ty, az = nz - mu * Tz;
        const den = KNx * ax + KNy * ay + KNz * az; // N^T K (N - mu T), K symmetric
        if (den > 1e-12 * nKn) {
          friction = true;
          jn = dun / den;
          Jx = jn * ax;
          Jy = jn * ay;
          Jz = jn * az;
        }
      }
    }
  }

  if (friction) {
    // An impulse J at the point changes the pair's kinetic energy by
    // J . u + J . K J / 2. Friction that would add energy (the sliding
    // impulse opposes the slip before it; where the point's motion couples
    // strongly to a small moment of inertia, it can more than reverse it) is
    // dropped: the frictionless impulse, which cannot, goes in instead. A
    // 2 m rod 3 cm thick, spinning into a plane at 200 m/s end first, took
    // 66 000 rad/s about its own axis from one sliding impulse (17 kJ to 686).
    const KJx = K[0]! * Jx + K[1]! * Jy + K[2]! * Jz;
    const KJy = K[3]! * Jx + K[4]! * Jy + K[5]! * Jz;
    const KJz = K[6]! * Jx + K[7]! * Jy + K[8]! * Jz;
    const dE = Jx * (ux + 0.5 * KJx) + Jy * (uy + 0.5 * KJy) + Jz * (uz + 0.5 * KJz);
    if (dE > ENERGY_ROUNDOFF * (Jx * Jx + Jy * Jy + Jz * Jz) * nKn) {
      jn = dun / nKn;
      Jx = jn * nx;
      Jy = jn * ny;
      Jz = jn * nz;
      sticking = false;
    }
  }
  J3[0] = Jx; J3[1] = Jy; J3[2] = Jz;
  applyImpulsePair(s, b1, b2);
  if (sticking && (m.rolling > 0 || m.spinning > 0)) applyRollingFriction(s, b1, b2, at, o, jn, m);
  out.sticking = sticking;
  out.jt = norm3(Jx - jn * nx, Jy - jn * ny, Jz - jn * nz);
  return jn;
}

/**
 * Rolling and spinning friction (7.27-7.28): shrink the spin part of the
 * relative angular velocity by mu_spin * j_n and the rolling part by
 * mu_roll * j_n (clamped at zero, never reversed), through the angular
 * impulse L_T^-1 (w' - w) with L_T = I1^-1 + I2^-1.
 */
export function applyRollingFriction(s: ImpulseState, b1: number, b2: number, at: Float64Array, o: number, jn: number, m: Material): void {
  const w = s.angVel, I = s.invInertiaW;
  const nx = at[o + 3]!, ny = at[o + 4]!, nz = at[o + 5]!;
  const wx = w[3 * b1]! - w[3 * b2]!, wy = w[3 * b1 + 1]! - w[3 * b2 + 1]!, wz = w[3 * b1 + 2]! - w[3 * b2 + 2]!;
  const wn = wx * nx + wy * ny + wz * nz;
  const snx = wn * nx, sny = wn * ny, snz = wn * nz;
  const rx = wx - snx, ry = wy - sny, rz = wz - snz;
  const sMag = Math.abs(wn);
  const rMag = norm3(rx, ry, rz);
  const sScale = sMag > 0 ? Math.max(0, sMag - m.spinning * jn) / sMag : 1;
  const rScale = rMag > 0 ? Math.max(0, rMag - m.rolling * jn) / rMag : 1;
  const dx = (sScale - 1) * snx + (rScale - 1) * rx;
  const dy = (sScale - 1) * sny + (rScale - 1) * ry;
  const dz = (sScale - 1) * snz + (rScale - 1) * rz;
  if (dx === 0 && dy === 0 && dz === 0) return;
  L.fill(0);
  if (s.invMass[b1] !== 0) for (let k = 0; k < 9; k++) L[k] += I[9 * b1 + k]!;
  if (s.invMass[b2] !== 0) for (let k = 0; k < 9; k++) L[k] += I[9 * b2 + k]!;
  if (!invert3(L, Linv)) return;
  J3[0] = Linv[0]! * dx + Linv[1]! * dy + Linv[2]! * dz;
  J3[1] = Linv[3]! * dx + Linv[4]! * dy + Linv[5]! * dz;
  J3[2] = Linv[6]! * dx + Linv[7]! * dy + Linv[8]! * dz;
  applyAngularImpulsePair(s, b1, b2, J3, 1);
}
