/**
 * External forces besides gravity (docs/forces.md): wind, fluid drag, force
 * fields, forces at a point of a body over a time window, and impulses at a
 * point at a given time.
 *
 * The model, per dynamic body i of mass m, inverse world inertia I^-1:
 *
 *   field      F_field(t) = F0 + A sin(2 pi t / T + phase), at the centre
 *   force      F at a point p, over [from, until): F at the centre, and the
 *              torque tau = r x F, r = p - x (x the centre of mass)
 *   drag       F_drag = -(k + b |v - u|) (v - u),  b = rho Cd A / 2: linear
 *              (k, N s/m) plus quadratic (Cd, the reference area A, the
 *              fluid's density rho), relative to the air velocity u(t) of the
 *              wind (0 without one); at the centre, no torque
 *   impulse    J at a point p at time t: dv = J / m, dw = I^-1 (r x J)
 *
 * Each step, prepare() turns the forces into one linear and one angular
 * acceleration per body (StepContext.extAcc, extAngAcc), added where gravity
 * is: the velocity update (integrate.ts), the collision phase's prediction
 * (predict.ts), the free-flight parabola, and the accumulated contact stage's
 * substeps. Fields and point forces are held constant over the step (their
 * value at its midpoint time; a window is on for a step whose midpoint lies
 * in it, as a motor's is). Drag is integrated exactly over the step for a
 * damping rate frozen at the step's start: with c = (k + b |v - u|) / m and
 * a0 = g + (the other forces) / m,
 *
 *   v(t + dt) = v + (u - v) (1 - e^{-c dt}) + a0 dt (1 - e^{-c dt}) / (c dt),
 *
 * the exact solution for linear drag (terminal velocity u + m a0 / k, the
 * exponential approach at rate k / m), unconditionally stable for quadratic
 * drag, whose fixed point is again exactly the balance of forces.
 *
 * Impulses change velocities at once: from code (World.applyImpulse) when
 * called, from a scene at the start of the step whose start time is nearest
 * their time (t - dt/2 <= at < t + dt/2), so every impulse fires exactly once
 * and going back in time (World.restoreState) fires it again.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import * as det from '../util/detmath.ts';
import type { BodyStore } from './bodies.ts';
import { mulMat3Vec, quatToMat3, rotateByQuat, worldInverseInertia } from './math.ts';

/** A vector of time: base + amplitude sin(2 pi t / period + phase) (phase in radians). */
export interface Gust {
  amplitude: Vec3;
  /** Seconds (> 0). */
  period: number;
  /** Radians. */
  phase: number;
}

/** A wind: the air's velocity u(t) (m/s), acting through each body's drag. */
export interface WindSpec {
  velocity: Vec3;
  gust?: Gust;
  /** Bodies it blows on (indices); absent: every body no other wind names. */
  bodies?: number[];
  from?: number;
  until?: number;
}

/** A uniform force field: the same force (N) on the centre of each body it acts on. */
export interface FieldSpec {
  force: Vec3;
  gust?: Gust;
  /** Bodies it acts on (indices); absent: every dynamic body. */
  bodies?: number[];
  from?: number;
  until?: number;
}

/** Which frame a force's direction is given in: fixed in the world, or turning with the body (a thruster). */
export type ForceFrame = 'world' | 'body';

/** A force at a point of one body over a time window. */
export interface PointForceSpec {
  body: number;
  /** N, in `frame`. */
  force: Vec3;
  /** The point, in the body's frame relative to its centre of mass; absent: the centre. */
  point?: Vec3;
  frame?: ForceFrame;
  from?: number;
  until?: number;
}

/** An impulse at a point of one body at a given time. */
export interface PointImpulseSpec {
  body: number;
  /** N s, in `frame`. */
  impulse: Vec3;
  /** The point, in the body's frame relative to its centre of mass; absent: the centre. */
  point?: Vec3;
  frame?: ForceFrame;
  /** Seconds. */
  at: number;
}

/** A body's drag: linear k (N s/m) and quadratic drag coefficient Cd with reference area A (m^2). */
export interface DragSpec {
  linear?: number;
  cd?: number;
  area?: number;
}

/** The density of air at sea level and 15 degrees C (kg/m^3), the default fluid. */
export const AIR_DENSITY = 1.225;

interface Window { from: number; until: number }

/**
 * The world's external forces (World.forces). Bodies are referred to by
 * index; World's methods take names too.
 */
export class ForceSet {
  /** Density of the fluid the bodies move in (kg/m^3), for quadratic drag. */
  density = AIR_DENSITY;
  readonly winds: (WindSpec & Window)[] = [];
  readonly fields: (FieldSpec & Window)[] = [];
  readonly forces: (PointForceSpec & Window)[] = [];
  readonly impulses: PointImpulseSpec[] = [];
  /** Per body: linear drag k (N s/m). */
  linearDrag = new Float64Array(0);
  /** Per body: Cd A (m^2); the quadratic coefficient is rho Cd A / 2. */
  dragArea = new Float64Array(0);
  /**
   * The forces of the last step, for drawing: arrowCount arrows of 6
   * numbers, the world point the force acts at and the force (N). A point
   * force is drawn at its point; the rest of a body's external force
   * (fields, drag) at its centre.
   */
  arrows = new Float64Array(0);
  arrowCount = 0;
  /** Per body (3): the point forces of the step, summed (to leave them out of the centre's arrow). */
  private pointSum = new Float64Array(0);
  /** Forces applied from code for the next step only (World.applyForce): body, force, point (world). */
  private readonly pending: { body: number; force: Vec3; point: Vec3 | null }[] = [];

  /** Whether there is anything at all to apply (the step skips the work otherwise). */
  get empty(): boolean {
    return this.winds.length === 0 && this.fields.length === 0 && this.forces.length === 0 && this.impulses.length === 0 &&
      this.pending.length === 0 && !this.anyDrag;
  }

  private anyDrag = false;

  addWind(w: WindSpec): void {
    this.winds.push({ ...w, from: w.from ?? 0, until: w.until ?? Infinity });
  }

  addField(f: FieldSpec): void {
    this.fields.push({ ...f, from: f.from ?? 0, until: f.until ?? Infinity });
  }

  addForce(f: PointForceSpec): void {
    this.forces.push({ ...f, from: f.from ?? 0, until: f.until ?? Infinity });
  }

  addImpulse(j: PointImpulseSpec): void {
    this.impulses.push({ ...j });
  }

  /** Sets body i's drag (values absent are 0: no drag of that kind). */
  setDrag(i: number, d: DragSpec): void {
    if (this.linearDrag.length <= i) {
      const n = Math.max(i + 1, 2 * this.linearDrag.length);
      const l = new Float64Array(n), a = new Float64Array(n);
      l.set(this.linearDrag);
      a.set(this.dragArea);
      this.linearDrag = l;
      this.dragArea = a;
    }
    this.linearDrag[i] = d.linear ?? 0;
    this.dragArea[i] = (d.cd ?? 0) * (d.area ?? 0);
    this.anyDrag = this.linearDrag.some((x) => x > 0) || this.dragArea.some((x) => x > 0);
  }

  /** A force at a world point (null: the centre) for the next step only. */
  pushForce(body: number, force: Vec3, point: Vec3 | null): void {
    this.pending.push({ body, force: [force[0], force[1], force[2]], point: point ? [point[0], point[1], point[2]] : null });
  }

  /**
   * The air velocity at body i at time t (m/s), into out: the wind naming
   * the body, else the wind naming no bodies, else still air.
   */
  airVelocity(i: number, t: number, out: Float64Array | number[]): void {
    out[0] = 0; out[1] = 0; out[2] = 0;
    let chosen: (WindSpec & Window) | null = null;
    for (const w of this.winds) {
      if (!(t >= w.from && t < w.until)) continue;
      if (w.bodies) {
        if (w.bodies.includes(i)) { chosen = w; break; }
      } else if (!chosen) {
        chosen = w;
      }
    }
    if (chosen) evalGust(chosen.velocity, chosen.gust, t, out);
  }

  /**
   * Fills acc and angAcc (3 per body) with the external accelerations of
   * the step [t, t + dt], zero where nothing acts; returns whether any is
   * non-zero. Velocities are read as they are (after this step's impulses).
   */
  accelerations(B: BodyStore, t: number, dt: number, gravity: Readonly<Vec3>, acc: Float64Array, angAcc: Float64Array): boolean {
    acc.fill(0);
    angAcc.fill(0);
    const n = B.count;
    this.arrowCount = 0;
    if (this.pointSum.length < 3 * n) this.pointSum = new Float64Array(3 * n);
    const ps = this.pointSum;
    ps.fill(0, 0, 3 * n);
    const tm = t + 0.5 * dt;
    let any = false;
    const f = tmpF, tq = tmpT;
    // Forces (N) and torques (N m) first, into acc / angAcc; divided below.
    for (const fd of this.fields) {
      if (!(tm >= fd.from && tm < fd.until)) continue;
      evalGust(fd.force, fd.gust, tm, f);
      const each = (i: number): void => {
        if (B.isStatic[i]) return;
        acc[3 * i] += f[0]!; acc[3 * i + 1] += f[1]!; acc[3 * i + 2] += f[2]!;
        any = true;
      };
      if (fd.bodies) for (const i of fd.bodies) each(i);
      else for (let i = 0; i < n; i++) each(i);
    }
    for (const pf of this.forces) {
      if (!(tm >= pf.from && tm < pf.until) || B.isStatic[pf.body]) continue;
      this.worldForce(B, pf.body, pf.force, pf.point ?? null, pf.frame ?? 'world', f, tq);
      addForce(acc, angAcc, pf.body, f, tq);
      const b = pf.body;
      if (pf.point) this.arrow(B.pos[3 * b]! + tmpR[0]!, B.pos[3 * b + 1]! + tmpR[1]!, B.pos[3 * b + 2]! + tmpR[2]!, f);
      else this.arrow(B.pos[3 * b]!, B.pos[3 * b + 1]!, B.pos[3 * b + 2]!, f);
      ps[3 * b] += f[0]!; ps[3 * b + 1] += f[1]!; ps[3 * b + 2] += f[2]!;
      any = true;
    }
    for (const p of this.pending) {
      if (B.isStatic[p.body]) continue;
      const i = p.body;
      f[0] = p.force[0]; f[1] = p.force[1]; f[2] = p.force[2];
      if (p.point) cross(p.point[0] - B.pos[3 * i]!, p.point[1] - B.pos[3 * i + 1]!, p.point[2] - B.pos[3 * i + 2]!, f, tq);
      else { tq[0] = 0; tq[1] = 0; tq[2] = 0; }
      addForce(acc, angAcc, i, f, tq);
      if (p.point) this.arrow(p.point[0], p.point[1], p.point[2], f);
      else this.arrow(B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!, f);
      ps[3 * i] += f[0]!; ps[3 * i + 1] += f[1]!; ps[3 * i + 2] += f[2]!;
      any = true;
    }
    this.pending.length = 0;
    // To accelerations: a = F / m, alpha = I_w^-1 tau.
    if (any) {
      for (let i = 0; i < n; i++) {
        if (B.isStatic[i]) continue;
        const im = B.invMass[i]!;
        acc[3 * i] *= im; acc[3 * i + 1] *= im; acc[3 * i + 2] *= im;
        const tx = angAcc[3 * i]!, ty = angAcc[3 * i + 1]!, tz = angAcc[3 * i + 2]!;
        if (tx === 0 && ty === 0 && tz === 0) continue;
        inverseInertiaTimes(B, i, tx, ty, tz, angAcc, 3 * i);
      }
    }
    if (this.anyDrag) any = this.drag(B, tm, dt, gravity, acc) || any;
    if (!any) return false;
    // What is left of each body's force once its point forces are drawn: at the centre.
    for (let i = 0; i < n; i++) {
      if (B.isStatic[i]) continue;
      const m = B.mass[i]!;
      f[0] = m * acc[3 * i]! - ps[3 * i]!; f[1] = m * acc[3 * i + 1]! - ps[3 * i + 1]!; f[2] = m * acc[3 * i + 2]! - ps[3 * i + 2]!;
      if (Math.abs(f[0]!) + Math.abs(f[1]!) + Math.abs(f[2]!) > 1e-9 * m) this.arrow(B.pos[3 * i]!, B.pos[3 * i + 1]!, B.pos[3 * i + 2]!, f);
    }
    return true;
  }

  /** Drag, exactly over the step for the rate at its start (file comment), into acc; whether any body has some. */
  private drag(B: BodyStore, tm: number, dt: number, gravity: Readonly<Vec3>, acc: Float64Array): boolean {
    const n = B.count;
    let any = false;
    const u = tmpU;
    for (let i = 0; i < n; i++) {
      if (B.isStatic[i]) continue;
      const k = i < this.linearDrag.length ? this.linearDrag[i]! : 0;
      const ca = i < this.dragArea.length ? this.dragArea[i]! : 0;
      if (!(k > 0) && !(ca > 0)) continue;
      this.airVelocity(i, tm, u);
      // A sleeping body is at rest: in still air nothing acts on it; in a wind it wakes (World).
      if (B.asleep[i] && u[0] === 0 && u[1] === 0 && u[2] === 0) continue;
      const rx = B.vel[3 * i]! - u[0]!, ry = B.vel[3 * i + 1]! - u[1]!, rz = B.vel[3 * i + 2]! - u[2]!;
      const c = (k + 0.5 * this.density * ca * Math.hypot(rx, ry, rz)) * B.invMass[i]!;
      const x = c * dt;
      if (!(x > 0)) continue;
      const decay = -det.expm1(-x); // 1 - e^{-c dt}
      const phi = decay / x; // (1 - e^{-c dt}) / (c dt)
      for (let d = 0; d < 3; d++) {
        const a0 = gravity[d]! + acc[3 * i + d]!;
        const rel = d === 0 ? rx : d === 1 ? ry : rz;
        // (v' - v) / dt - g, the acceleration the velocity update adds to g.
        acc[3 * i + d] = (-rel * decay) / dt + a0 * phi - gravity[d]!;
      }
      any = true;
    }
    return any;
  }

  /** Records an arrow: force f at (x, y, z). */
  private arrow(x: number, y: number, z: number, f: ArrayLike<number>): void {
    if (this.arrows.length < 6 * (this.arrowCount + 1)) {
      const a = new Float64Array(Math.max(48, 2 * this.arrows.length));
      a.set(this.arrows);
      this.arrows = a;
    }
    const a = this.arrows, o = 6 * this.arrowCount++;
    a[o] = x; a[o + 1] = y; a[o + 2] = z; a[o + 3] = f[0]!; a[o + 4] = f[1]!; a[o + 5] = f[2]!;
  }

  /**
   * Applies the impulses due at the start of the step at time t (those with
   * t - dt/2 <= at < t + dt/2) to the velocities; returns the bodies they
   * touched (none: an empty list).
   */
  applyDueImpulses(B: BodyStore, t: number, dt: number): number[] {
    const touched: number[] = [];
    for (const j of this.impulses) {
      if (!(j.at >= t - 0.5 * dt && j.at < t + 0.5 * dt) || B.isStatic[j.body]) continue;
      this.worldForce(B, j.body, j.impulse, j.point ?? null, j.frame ?? 'world', tmpF, tmpT);
      applyImpulseAt(B, j.body, tmpF, tmpT);
      touched.push(j.body);
    }
    return touched;
  }

  /** The world-frame force f and torque about the centre t of a force given in `frame` at a body-frame point. */
  private worldForce(B: BodyStore, i: number, force: Vec3, point: Vec3 | null, frame: ForceFrame, f: Float64Array, t: Float64Array): void {
    if (frame === 'body') rotateByQuat(B.quat, 4 * i, force[0], force[1], force[2], f, 0);
    else { f[0] = force[0]; f[1] = force[1]; f[2] = force[2]; }
    if (!point) { t[0] = 0; t[1] = 0; t[2] = 0; return; }
    rotateByQuat(B.quat, 4 * i, point[0], point[1], point[2], tmpR, 0);
    cross(tmpR[0]!, tmpR[1]!, tmpR[2]!, f, t);
  }
}

/**
 * Changes body i's velocities by the impulse j (world, N s) with the
 * angular impulse t = r x j about its centre: dv = j / m, dw = I_w^-1 t at
 * the body's current orientation.
 */
export function applyImpulseAt(B: BodyStore, i: number, j: ArrayLike<number>, t: ArrayLike<number>): void {
  const im = B.invMass[i]!;
  B.vel[3 * i] += j[0]! * im;
  B.vel[3 * i + 1] += j[1]! * im;
  B.vel[3 * i + 2] += j[2]! * im;
  if (t[0] === 0 && t[1] === 0 && t[2] === 0) return;
  inverseInertiaTimes(B, i, t[0]!, t[1]!, t[2]!, tmpW, 0);
  B.angVel[3 * i] += tmpW[0]!;
  B.angVel[3 * i + 1] += tmpW[1]!;
  B.angVel[3 * i + 2] += tmpW[2]!;
}

/** out[o..] = I_w^-1 (x, y, z) for body i at its current orientation. */
function inverseInertiaTimes(B: BodyStore, i: number, x: number, y: number, z: number, out: Float64Array, o: number): void {
  quatToMat3(B.quat, 4 * i, tmpRot);
  worldInverseInertia(tmpRot, 0, B.invInertia, 9 * i, tmpIw, 0);
  mulMat3Vec(tmpIw, 0, x, y, z, out, o);
}

/** base + gust.amplitude sin(2 pi t / period + phase), into out. */
export function evalGust(base: Readonly<Vec3>, gust: Gust | undefined, t: number, out: Float64Array | number[]): void {
  out[0] = base[0]; out[1] = base[1]; out[2] = base[2];
  if (!gust) return;
  // The fraction of a period, reduced first so long runs keep their accuracy.
  // A period so short that t / period overflows (5e-324 s) has no fraction
  // left to take: the gust reads as at its phase, not NaN.
  const cycles = t / gust.period;
  const frac = Number.isFinite(cycles) ? cycles - Math.floor(cycles) : 0;
  const s = det.sin(2 * Math.PI * frac + gust.phase);
  out[0] += gust.amplitude[0] * s;
  out[1] += gust.amplitude[1] * s;
  out[2] += gust.amplitude[2] * s;
}

function addForce(acc: Float64Array, angAcc: Float64Array, i: number, f: Float64Array, t: Float64Array): void {
  acc[3 * i] += f[0]!; acc[3 * i + 1] += f[1]!; acc[3 * i + 2] += f[2]!;
  angAcc[3 * i] += t[0]!; angAcc[3 * i + 1] += t[1]!; angAcc[3 * i + 2] += t[2]!;
}

/** out = (rx, ry, rz) x f. */
function cross(rx: number, ry: number, rz: number, f: ArrayLike<number>, out: Float64Array): void {
  out[0] = ry * f[2]! - rz * f[1]!;
  out[1] = rz * f[0]! - rx * f[2]!;
  out[2] = rx * f[1]! - ry * f[0]!;
}

const tmpF = new Float64Array(3);
const tmpT = new Float64Array(3);
const tmpR = new Float64Array(3);
const tmpU = new Float64Array(3);
const tmpW = new Float64Array(3);
const tmpRot = new Float64Array(9);
const tmpIw = new Float64Array(9);
