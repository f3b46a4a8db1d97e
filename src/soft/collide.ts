/**
 * What keeps particles out of obstacles.
 *
 * A SoftCollider runs after every substep with the positions at the start of
 * the substep (x0) and at its end (sys.pos): whatever a particle's path went
 * through or into is resolved there, so nothing tunnels however fast it
 * moves (the seed tests the particle's displacement segment against each
 * obstacle, for the same reason). The analytic static planes below are one
 * collider; the rigid bodies' fields and the soft bodies' own insides
 * (contact.ts, found through the batched query by coupling.ts) the other.
 *
 * Planes: signed distance d(x) = n . x - offset. A particle that ends the
 * substep behind a plane has crossed it or was already there (a plane is a
 * half-space, so the end point alone decides; no sweep can miss it). Its
 * displacement is reflected at the plane as in the seed, scaled by the
 * restitution (x -= (1 + e) d n; e = 0 puts it on the plane), the normal
 * velocity is reversed and scaled by e, and Coulomb friction takes up to
 * mu times the normal velocity change from the tangential velocity. Slow
 * approaches (resting contact, where gravity alone accumulates a normal
 * velocity of about g h per substep) get e = 0 so a resting body does not
 * jitter.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { SoftStore } from './store.ts';

export interface SoftCollider {
  /**
   * Called after each substep of length h, which ends at fraction s (0..1]
   * of the step: particles moved from x0 to sys.pos. Moves particles out of
   * obstacles and changes their velocities.
   */
  resolve(sys: SoftStore, x0: Float64Array, h: number, s: number): void;
}

export interface StaticPlane {
  /** Unit normal, pointing to the free side. */
  normal: Vec3;
  /** A point on the plane. */
  point: Vec3;
  friction: number;
  restitution: number;
  /** For messages: the rigid body the plane belongs to. */
  name: string;
}

/** Approach speeds below this many g h (h = substep) are treated as resting contact (no bounce). */
export const RESTING_APPROACH = 4;

export class PlaneCollider implements SoftCollider {
  /** Contacts resolved in the last step (all substeps), for the profile and views. */
  contacts = 0;

  constructor(readonly planes: readonly StaticPlane[]) {}

  resolve(sys: SoftStore, _x0: Float64Array, h: number): void {
    const x = sys.pos, v = sys.vel, w = sys.invMass, owner = sys.owner;
    const g = Math.hypot(sys.gravity[0], sys.gravity[1], sys.gravity[2]);
    const restingSpeed = RESTING_APPROACH * g * h;
    for (const plane of this.planes) {
      const [nx, ny, nz] = plane.normal;
      const offset = nx * plane.point[0] + ny * plane.point[1] + nz * plane.point[2];
      for (let i = 0; i < sys.particleCount; i++) {
        if (w[i] === 0) continue; // pinned: the pin decides
        const o = 3 * i;
        const d = nx * x[o]! + ny * x[o + 1]! + nz * x[o + 2]! - offset;
        if (d >= 0) continue;
        const body = sys.bodies[owner[i]!]!;
        const vn = nx * v[o]! + ny * v[o + 1]! + nz * v[o + 2]!;
        const e = vn < -restingSpeed ? body.restitution * plane.restitution : 0;
        const push = -(1 + e) * d;
        x[o] += push * nx;
        x[o + 1] += push * ny;
        x[o + 2] += push * nz;
        this.contacts++;
        if (vn >= 0) continue;
        const dvn = -(1 + e) * vn;
        v[o] += dvn * nx;
        v[o + 1] += dvn * ny;
        v[o + 2] += dvn * nz;
        // Tangential velocity after the normal change; friction the larger of the two (as for rigid pairs).
        const vn2 = nx * v[o]! + ny * v[o + 1]! + nz * v[o + 2]!;
        const tx = v[o]! - vn2 * nx, ty = v[o + 1]! - vn2 * ny, tz = v[o + 2]! - vn2 * nz;
        const vt = Math.hypot(tx, ty, tz);
        if (vt === 0) continue;
        const mu = Math.max(body.friction, plane.friction);
        const keep = Math.max(0, vt - mu * dvn) / vt;
        v[o] = vn2 * nx + keep * tx;
        v[o + 1] = vn2 * ny + keep * ty;
        v[o + 2] = vn2 * nz + keep * tz;
      }
    }
  }
}
