/**
 * Dragging and throwing bodies with the mouse (issue 13). A dragged body is
 * pulled at the point where it was grabbed towards a target that follows the
 * cursor in the plane through the grab point facing the camera, by a
 * critically damped spring: a hand holding the body there, so it swings from
 * that point and pushes what it meets instead of passing through it.
 *
 * The spring acts once per simulation step, on the grab point's effective
 * mass K^-1 (K the collision matrix at the point, docs/ALGORITHM.md 5), and is
 * integrated implicitly: for a spring of angular frequency w and damping
 * ratio z on a point at error e with velocity v, one step of h gives
 *     dv = (h w^2 e - (2 z w h + w^2 h^2) v) / (1 + 2 z w h + w^2 h^2),
 * stable at any w h, so a light body grabbed at its tip does not explode
 * where an explicit spring would. The point's weight is carried too (the
 * hand holds it up), and the impulse is capped so a drag cannot fling a body
 * faster than a strong throw; the held body's spin is damped (a hand steadies
 * what it holds). Every push goes through World.bodyEdited, so a
 * sleeping body wakes when touched and its pairs are evaluated afresh.
 */
import type { World } from '../dynamics/world.ts';
import type { Vec3 } from '../geometry/mesh.ts';
import { addCollisionMatrix, invert3, quatToMat3, worldInverseInertia } from '../dynamics/math.ts';
import type { Hit, Ray } from './picking.ts';

/** Spring frequency (Hz) and damping ratio of the hand. */
export const DRAG_FREQUENCY = 4;
export const DRAG_DAMPING = 1;
/**
 * Rate (1/s) at which a held body's spin dies away: the spring damps only the
 * grab point's velocity, so without it a body would swing about that point
 * for ever, as a pendulum on a frictionless pivot (a hand damps the swing).
 */
export const DRAG_ANGULAR_DAMPING = 12;
/** Largest pull, in units of the body's weight (m |g|, or m 9.81 in zero gravity). */
export const DRAG_MAX_WEIGHTS = 40;
/**
 * The force tool's pull: body weights per metre between the grab point and the
 * cursor's target (capped at DRAG_MAX_WEIGHTS weights). A force, not a hand:
 * it goes through World.applyForce at the grab point (F and tau = r x F), and
 * the forces view draws it as an arrow.
 */
export const FORCE_TOOL_WEIGHTS_PER_M = 4;
/** How the mouse pulls a grabbed body: a critically damped spring (a hand), or a plain force. */
export type DragMode = 'spring' | 'force';
/** Speed (m/s) of a shift-click throw. */
export const THROW_SPEED = 8;

const R = new Float64Array(9);
const IW = new Float64Array(9);
const K = new Float64Array(9);
const KI = new Float64Array(9);
/** The grab point's lever arm (addCollisionMatrix). */
const ARM = new Float64Array(3);

export class SpringDrag {
  /** Where the cursor wants the grab point, world frame. */
  readonly target: Vec3;

  private constructor(
    readonly body: number,
    /** The grab point in the body's frame (relative to its centre of mass). */
    readonly local: Vec3,
    target: Vec3,
    /** The drag plane's unit normal (towards the camera) and its distance from the origin along it. */
    private readonly normal: Vec3,
    private readonly offset: number,
    readonly mode: DragMode,
  ) {
    this.target = [target[0], target[1], target[2]];
  }

  /** A drag of the body a ray hit, in the plane through the hit facing back along the ray. */
  static start(hit: Hit, ray: Ray, mode: DragMode = 'spring'): SpringDrag {
    const n: Vec3 = [-ray.dir[0], -ray.dir[1], -ray.dir[2]];
    return new SpringDrag(hit.body, hit.local, hit.point, n, n[0] * hit.point[0] + n[1] * hit.point[1] + n[2] * hit.point[2], mode);
  }

  /** Moves the target to where a ray meets the drag plane (a ray along the plane leaves it where it is). */
  follow(ray: Ray): void {
    const n = this.normal;
    const dn = n[0] * ray.dir[0] + n[1] * ray.dir[1] + n[2] * ray.dir[2];
    if (!(Math.abs(dn) > 1e-6)) return;
    const t = (this.offset - (n[0] * ray.origin[0] + n[1] * ray.origin[1] + n[2] * ray.origin[2])) / dn;
    if (!(t > 0) || !Number.isFinite(t)) return;
    for (let k = 0; k < 3; k++) this.target[k] = ray.origin[k]! + t * ray.dir[k]!;
  }

  /** The grab point in the world now. */
  anchor(world: World): Vec3 {
    const B = world.bodies, i = this.body;
    quatToMat3(B.quat, 4 * i, R);
    const [x, y, z] = this.local;
    return [
      B.pos[3 * i]! + R[0]! * x + R[1]! * y + R[2]! * z,
      B.pos[3 * i + 1]! + R[3]! * x + R[4]! * y + R[5]! * z,
      B.pos[3 * i + 2]! + R[6]! * x + R[7]! * y + R[8]! * z,
    ];
  }

  /** One step's pull (call between steps, with the step's dt). Static bodies are not moved. */
  apply(world: World, dt: number): void {
    const B = world.bodies, i = this.body;
    if (i >= B.count || B.isStatic[i] || !(B.invMass[i]! > 0)) return;
    world.bodyEdited(i);
    if (this.mode === 'force') {
      // F = k m |g| (target - grab point), at the grab point, for the next step.
      const p = this.anchor(world);
      const gm = B.mass[i]! * Math.max(9.81, Math.hypot(world.gravity[0], world.gravity[1], world.gravity[2]));
      let fx = FORCE_TOOL_WEIGHTS_PER_M * gm * (this.target[0] - p[0]);
      let fy = FORCE_TOOL_WEIGHTS_PER_M * gm * (this.target[1] - p[1]);
      let fz = FORCE_TOOL_WEIGHTS_PER_M * gm * (this.target[2] - p[2]);
      const f = Math.hypot(fx, fy, fz), cap = DRAG_MAX_WEIGHTS * gm;
      if (f > cap) { fx *= cap / f; fy *= cap / f; fz *= cap / f; }
      world.applyForce(i, [fx, fy, fz], p);
      return;
    }
    quatToMat3(B.quat, 4 * i, R);
    worldInverseInertia(R, 0, B.invInertia, 9 * i, IW, 0);
    const [lx, ly, lz] = this.local;
    const rx = R[0]! * lx + R[1]! * ly + R[2]! * lz, ry = R[3]! * lx + R[4]! * ly + R[5]! * lz, rz = R[6]! * lx + R[7]! * ly + R[8]! * lz;
    const v = B.vel, w = B.angVel;
    const keep = Math.exp(-DRAG_ANGULAR_DAMPING * dt);
    for (let k = 0; k < 3; k++) w[3 * i + k] *= keep;
    // Velocity of the grab point: v + omega x r.
    const vx = v[3 * i]! + w[3 * i + 1]! * rz - w[3 * i + 2]! * ry;
    const vy = v[3 * i + 1]! + w[3 * i + 2]! * rx - w[3 * i]! * rz;
    const vz = v[3 * i + 2]! + w[3 * i]! * ry - w[3 * i + 1]! * rx;
    const ex = this.target[0] - (B.pos[3 * i]! + rx), ey = this.target[1] - (B.pos[3 * i + 1]! + ry), ez = this.target[2] - (B.pos[3 * i + 2]! + rz);
    const om = 2 * Math.PI * DRAG_FREQUENCY;
    const a = 2 * DRAG_DAMPING * om * dt, b = om * om * dt * dt, den = 1 + a + b;
    const g = world.gravity;
    // The velocity change the point needs: the spring's, plus what holds up its weight for the step.
    const dvx = (om * om * dt * ex - (a + b) * vx) / den - dt * g[0];
    const dvy = (om * om * dt * ey - (a + b) * vy) / den - dt * g[1];
    const dvz = (om * om * dt * ez - (a + b) * vz) / den - dt * g[2];
    K.fill(0);
    ARM[0] = rx; ARM[1] = ry; ARM[2] = rz;
    addCollisionMatrix(B.invMass[i]!, IW, 0, ARM, 0, K);
    if (!invert3(K, KI)) return;
    let jx = KI[0]! * dvx + KI[1]! * dvy + KI[2]! * dvz;
    let jy = KI[3]! * dvx + KI[4]! * dvy + KI[5]! * dvz;
    let jz = KI[6]! * dvx + KI[7]! * dvy + KI[8]! * dvz;
    const cap = DRAG_MAX_WEIGHTS * B.mass[i]! * Math.max(9.81, Math.hypot(g[0], g[1], g[2])) * dt;
    const j = Math.hypot(jx, jy, jz);
    if (j > cap) {
      jx *= cap / j; jy *= cap / j; jz *= cap / j;
    }
    applyImpulse(world, i, rx, ry, rz, jx, jy, jz);
  }
}

/** An impulse j at arm r (world) from body i's centre: v += j / m, omega += I^-1 (r x j). */
function applyImpulse(world: World, i: number, rx: number, ry: number, rz: number, jx: number, jy: number, jz: number): void {
  const B = world.bodies;
  const im = B.invMass[i]!;
  B.vel[3 * i] += im * jx;
  B.vel[3 * i + 1] += im * jy;
  B.vel[3 * i + 2] += im * jz;
  const tx = ry * jz - rz * jy, ty = rz * jx - rx * jz, tz = rx * jy - ry * jx;
  quatToMat3(B.quat, 4 * i, R);
  worldInverseInertia(R, 0, B.invInertia, 9 * i, IW, 0);
  B.angVel[3 * i] += IW[0]! * tx + IW[1]! * ty + IW[2]! * tz;
  B.angVel[3 * i + 1] += IW[3]! * tx + IW[4]! * ty + IW[5]! * tz;
  B.angVel[3 * i + 2] += IW[6]! * tx + IW[7]! * ty + IW[8]! * tz;
}

/** Shift-click: the body flies off along the ray at THROW_SPEED (its spin kept), woken. */
export function throwBody(world: World, body: number, dir: Vec3, speed = THROW_SPEED): void {
  const B = world.bodies;
  if (B.isStatic[body]) return;
  world.bodyEdited(body);
  for (let k = 0; k < 3; k++) B.vel[3 * body + k] = speed * dir[k]!;
}
