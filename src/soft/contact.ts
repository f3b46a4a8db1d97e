/**
 * Soft bodies against rigid bodies and against each other, resolved in every
 * substep (a SoftCollider). SoftCoupling (coupling.ts) finds the contacts once
 * per step through the batched penetration query; this file keeps them and
 * enforces them while the soft system substeps. Two kinds:
 *
 * Particle against a rigid body's field. (Or the midpoint of a spring on the
 * surface, whose ends share its pushes and impulses by their weights 1/2:
 * without these a peg thinner than a blob, but wider than its spacing,
 * slipped in between the particles of the blob's underside, impaled it,
 * and tore it apart as it slid down; the rigid bodies' narrow phase samples
 * its edges for the same reason.) The query returns, along the
 * particle's path through the step, the field of the rigid body B (phi_0,
 * normal n_0) at a sample p_0 of the path, in B's frame. Like the rigid
 * narrow phase (src/dynamics/narrowphase.ts) the field is then evaluated to
 * first order wherever the particle is during the step,
 *     phi = phi_0 + n_0 . (p - p_0),   p = R(s)^T (x - c(s)),
 * with B's pose (c, R) interpolated to the substep's time s, so B moves and
 * turns under the particle. phi < 0: the particle is pushed out along
 * n = R n_0 (by -phi, or -(1 + e) phi when it bounces, as the plane collider
 * does), and if it approaches, an impulse along n between the particle and
 * B at the particle's position,
 *     J = -(1 + e) v_n / (1/m + 1/M + (r x n) . I^-1 (r x n)),
 * with Coulomb friction up to mu J in the tangent plane. B takes the opposite
 * impulse at once, so the next particle sees B's new velocity (Gauss-Seidel
 * over particles) and total momentum is kept exactly. B's pose for the rest
 * of the step does not change (World integrates it after its contact phase);
 * its velocity does.
 *
 * A point inside a soft body's tetrahedron. A rigid body's sample, or another
 * soft body's particle, located in tetrahedron T of soft body b (embed.ts)
 * and mapped to the rest shape, where the shape's SDF gave phi_0 and the
 * gradient g_0 at X_0 (through the query too). In a substep the point's
 * barycentric weights w in T's current shape give X = sum w_k X_k and
 *     phi = phi_0 + g_0 . (X - X_0);
 * the deformation gradient F = D D_r^-1 (D, D_r: T's edge matrices now and at
 * rest) turns g_0 into the normal in the world, n ~ F^-T g_0 = D^-T D_r^T g_0,
 * and phi into a depth, -phi / |F^-T g_0|. The material point sum w_k x_k and
 * the point are pushed apart (the soft side's share spread over T's corners
 * by w_k / m_k, the least-squares split; a rigid point does not move, World
 * moves rigid bodies) and an impulse as above acts between the point and the
 * material point, whose inverse mass is sum w_k^2 / m_k. A point located
 * just outside every tetrahedron (between the particles' hull and the drawn
 * surface) has weights that extrapolate, some below zero; the pushes are
 * spread with the weights clipped at zero and renormalised, so no corner is
 * pushed against the others (with the raw weights one corner was driven into
 * the rigid body while the others were pushed out of it, and the net tore).
 *
 * Slop (phi_0 is shifted by it). The particles are the hull of the net; the
 * drawn surface, where the rest SDF is zero, lies up to about 0.35 spacings
 * outside it (lattice.ts). Where a rigid face holds the particles (their
 * own contacts), its samples therefore sit up to that deep in the drawn
 * surface; pushing the net out there fought the particles' contacts (a blob
 * on a peg tore within 0.05 s, and a ball resting on a slab crept sideways).
 * So a rigid point acts only RIGID_SLOP spacings deep, beyond the hull: a
 * rigid corner or edge pressing in between particles (and is only looked for
 * inside the tetrahedra). Another soft body's particle has no contact of its
 * own with this body's surface, so it acts PARTICLE_SLOP spacings deep (and
 * is looked for in the layer outside the hull too).
 *
 * Limits. The field is extrapolated to first order from the rest point the
 * query saw; in a tetrahedron squashed by a load the same motion in the
 * world is a large one in the rest shape (|F^-T g_0| was 50 on a blob
 * draped over a peg), where the extrapolation means nothing, and pushing by
 * it tore the net. A contact whose tetrahedron is squashed more than
 * MAX_SQUASH along its normal is skipped for the substep, and a push is at
 * most MAX_PUSH spacings per substep (the next ones continue it).
 *
 * Soft against soft: particle pairs. Each soft body's surface particles are
 * balls of half a lattice spacing (between them a ball of another body
 * cannot pass: a face of four particles leaves a gap of 0.71 spacings at
 * its centre, less than one diameter); two balls of different bodies closer
 * than their radii are pushed apart, split by inverse mass, with an impulse
 * along the line between them and friction across it. The push is at most
 * PAIR_PUSH_SPEED h per substep, the speed the rigid contacts' push-out is
 * held to (accumulatedSolver.ts, MAX_PUSH); the next substeps continue it.
 * Uncapped, a deep overlap went in one substep: two lattice boxes started
 * one inside the other (resolution 2, 0.25 m spacing) were pushed a whole
 * spacing apart at once, particle by particle along directions their
 * rounding chose, and 2.5 kJ became 34 kJ (30 in the springs) within three
 * steps; capped, at most 4.6 kJ. Landings push faster than the cap (up to
 * 45 m/s in soft-pegs) and now take a few substeps: a blob dropped on a soft
 * pad rests 5 mm lower on it (its centre 0.349 m above the pad's, against
 * 0.354), and the 20 blobs of soft-pegs end with the same volumes within
 * 0.5 %. The pairs are found
 * once per step (coupling.ts) among particles that can come that close
 * within the step. (Pushing other bodies' particles out of a soft body's
 * tetrahedra, through the rest shape's field as for rigid points, was tried
 * first: a particle must be caught in the thin layer between the hull and
 * the drawn surface, and one that got past it was pushed out of the far
 * side or not at all; blobs piled on pegs ended squashed through each other,
 * some to 2 % of their volume.)
 *
 * Materials: friction the larger of the two, restitution the product, as for
 * planes (collide.ts); approaches slower than RESTING_APPROACH g h do not
 * bounce.
 */
import type { BodyStore } from '../dynamics/bodies.ts';
import { pointVelocity, quatToMat3 } from '../dynamics/math.ts';
import { grown, growColumns } from '../util/growable.ts';
import { RESTING_APPROACH, type SoftCollider } from './collide.ts';
import { invert3 } from './embed.ts';
import type { SoftStore } from './store.ts';

/** How deep a rigid body's point, and another soft body's particle, may sit inside a soft body before their contact acts, in lattice spacings (file comment). */
export const RIGID_SLOP = 0.4;
export const PARTICLE_SLOP = 0.1;
/** A located point that has left its tetrahedron by more than this (smallest weight) is skipped until the next step finds it again. */
const LEFT_TETRAHEDRON = -0.6;
/** Largest |F^-T g_0| (squash of the tetrahedron along the normal) at which a located point still acts (file comment). */
const MAX_SQUASH = 4;
/** Largest push of a located point per substep, in lattice spacings. */
const MAX_PUSH = 0.25;
/** Fastest a particle pair's overlap is pushed apart (m/s): at most this times h per substep (file comment). */
export const PAIR_PUSH_SPEED = 3;

/** A rigid body's columns in RigidMotion. */
const MOTION_COLUMNS = { c0: 3, q0: 4, c1: 3, q1: 4, c: 3, q: 4, R: 9, Iw: 9, at: 1 } as const;
/** SoftContacts' columns: particle-field contacts, located points, particle pairs, support records. */
const PARTICLE_COLUMNS = { part: 1, part2: 1, body: 1, phi0: 1, n0: 3, p0: 3, mu: 1, e: 1 } as const;
const EMBEDDED_COLUMNS = { eSoft: 1, eTet: 4, eOther: 1, eLocal: 3, ePhi0: 1, eG: 3, eX0: 3, eXa: 3, eDg: 3, eMu: 1, eE: 1, eMaxPush: 1 } as const;
const PAIR_COLUMNS = { pairA: 1, pairB: 1, pairReach: 1, pairMu: 1, pairE: 1 } as const;
const SUPPORT_COLUMNS = { supportPart: 1, supportBody: 1, supportN: 3 } as const;

/**
 * Rigid bodies as the soft bodies see them during one step: the pose at the
 * step's start (0) and the predicted end (1), interpolated per substep, and
 * the world inverse inertia at the start. Indices are World body indices.
 */
export class RigidMotion {
  count = 0;
  c0 = new Float64Array(0);
  q0 = new Float64Array(0);
  c1 = new Float64Array(0);
  q1 = new Float64Array(0);
  /** Pose at the current substep: centre (3), quaternion (4) and rotation (9, row-major). */
  c = new Float64Array(0);
  q = new Float64Array(0);
  R = new Float64Array(0);
  /** World inverse inertia (9) at the step's start; zero for static bodies. */
  Iw = new Float64Array(0);
  /** The substep fraction c and R were last computed for, per body (NaN: never). */
  at = new Float64Array(0);
  bodies: BodyStore | null = null;
  private readonly arm = new Float64Array(3);

  resize(n: number): void {
    this.count = n;
    growColumns(this, MOTION_COLUMNS, n);
  }

  /** Centre and rotation of body i at fraction s of the step (quaternions blended linearly and normalised). */
  pose(i: number, s: number): void {
    if (this.at[i] === s) return;
    this.at[i] = s;
    const c0 = this.c0, c1 = this.c1, q0 = this.q0, q1 = this.q1;
    for (let k = 0; k < 3; k++) this.c[3 * i + k] = c0[3 * i + k]! + s * (c1[3 * i + k]! - c0[3 * i + k]!);
    let x = q0[4 * i]! + s * (q1[4 * i]! - q0[4 * i]!);
    let y = q0[4 * i + 1]! + s * (q1[4 * i + 1]! - q0[4 * i + 1]!);
    let z = q0[4 * i + 2]! + s * (q1[4 * i + 2]! - q0[4 * i + 2]!);
    let w = q0[4 * i + 3]! + s * (q1[4 * i + 3]! - q0[4 * i + 3]!);
    const len = Math.hypot(x, y, z, w);
    x /= len;
    y /= len;
    z /= len;
    w /= len;
    this.q[4 * i] = x;
    this.q[4 * i + 1] = y;
    this.q[4 * i + 2] = z;
    this.q[4 * i + 3] = w;
    quatToMat3(this.q, 4 * i, this.R, 9 * i);
  }

  /** Inverse mass of body i along n at arm r: 1/M + (r x n) . I^-1 (r x n) (0 for static bodies). */
  inverseMassAlong(i: number, rx: number, ry: number, rz: number, nx: number, ny: number, nz: number): number {
    const B = this.bodies!;
    const im = B.invMass[i]!;
    if (im === 0) return 0;
    const ax = ry * nz - rz * ny, ay = rz * nx - rx * nz, az = rx * ny - ry * nx;
    const I = this.Iw, o = 9 * i;
    const bx = I[o]! * ax + I[o + 1]! * ay + I[o + 2]! * az;
    const by = I[o + 3]! * ax + I[o + 4]! * ay + I[o + 5]! * az;
    const bz = I[o + 6]! * ax + I[o + 7]! * ay + I[o + 8]! * az;
    return im + ax * bx + ay * by + az * bz;
  }

  /** Applies impulse j (world) to body i at arm r from its centre. */
  applyImpulse(i: number, rx: number, ry: number, rz: number, jx: number, jy: number, jz: number): void {
    const B = this.bodies!;
    const im = B.invMass[i]!;
    if (im === 0) return;
    B.vel[3 * i] += im * jx;
    B.vel[3 * i + 1] += im * jy;
    B.vel[3 * i + 2] += im * jz;
    const tx = ry * jz - rz * jy, ty = rz * jx - rx * jz, tz = rx * jy - ry * jx;
    const I = this.Iw, o = 9 * i;
    B.angVel[3 * i] += I[o]! * tx + I[o + 1]! * ty + I[o + 2]! * tz;
    B.angVel[3 * i + 1] += I[o + 3]! * tx + I[o + 4]! * ty + I[o + 5]! * tz;
    B.angVel[3 * i + 2] += I[o + 6]! * tx + I[o + 7]! * ty + I[o + 8]! * tz;
  }

  /** Velocity of body i's material point at arm r, into out[0..2]. */
  pointVelocity(i: number, rx: number, ry: number, rz: number, out: Float64Array): void {
    const B = this.bodies!, r = this.arm;
    r[0] = rx;
    r[1] = ry;
    r[2] = rz;
    pointVelocity(B.vel, B.angVel, i, r, 0, out);
  }
}


/** The contacts of one step and their enforcement per substep (file comment). */
export class SoftContacts implements SoftCollider {
  // Particle against a rigid body's field: particle, body, phi_0, n_0 and p_0 in the body's frame, materials.
  count = 0;
  part = new Int32Array(0);
  /** The other end when the point is a spring's midpoint, else -1. */
  part2 = new Int32Array(0);
  body = new Int32Array(0);
  phi0 = new Float64Array(0);
  n0 = new Float64Array(0);
  p0 = new Float64Array(0);
  mu = new Float64Array(0);
  e = new Float64Array(0);

  // A rigid point in a soft body's tetrahedron: the body (soft index), the tetrahedron's 4 global particles and
  // its rest edge matrix transposed times g_0 (3), the point (a rigid body and its local point),
  // phi_0, g_0 and X_0 in the rest frame, the rest corner X_a (3), materials.
  embeddedCount = 0;
  eSoft = new Int32Array(0);
  eTet = new Int32Array(0);
  eOther = new Int32Array(0);
  eLocal = new Float64Array(0);
  ePhi0 = new Float64Array(0);
  eG = new Float64Array(0);
  eX0 = new Float64Array(0);
  eXa = new Float64Array(0);
  /** D_r^T g_0: the rest edges of the tetrahedron dotted with g_0 (3). */
  eDg = new Float64Array(0);
  eMu = new Float64Array(0);
  eE = new Float64Array(0);
  /** Largest push per substep (MAX_PUSH spacings of the soft body). */
  eMaxPush = new Float64Array(0);

  // Particle pairs of different soft bodies: the two particles, the sum of their radii, materials.
  pairCount = 0;
  pairA = new Int32Array(0);
  pairB = new Int32Array(0);
  pairReach = new Float64Array(0);
  pairMu = new Float64Array(0);
  pairE = new Float64Array(0);

  /** Contacts that pushed or stopped something during the last step (all substeps). */
  active = 0;
  /**
   * Particle-field contacts that acted in the last substep of the step: the
   * particle, the rigid body and the world normal. SoftCoupling passes on to
   * these particles what World's solver does to their rigid body until the
   * next soft stage (its support; coupling.ts, transmitSupport).
   */
  supportCount = 0;
  supportPart = new Int32Array(0);
  supportBody = new Int32Array(0);
  supportN = new Float64Array(0);
  /** Rigid bodies that took an impulse this step (1 per World body index). */
  touched = new Uint8Array(0);

  private readonly v = new Float64Array(3);
  private readonly inv = new Float64Array(9);

  constructor(readonly rigid: RigidMotion) {}

  clear(bodies: number): void {
    this.supportCount = 0;
    this.pairCount = 0;
    this.count = 0;
    this.embeddedCount = 0;
    this.active = 0;
    this.touched = grown(this.touched, bodies);
    this.touched.fill(0, 0, bodies);
  }

  addParticle(part: number, part2: number, body: number, phi0: number, n: ArrayLike<number>, no: number, p: ArrayLike<number>, po: number, mu: number, e: number): void {
    const i = this.count++;
    if (i >= this.part.length) growColumns(this, PARTICLE_COLUMNS, Math.max(64, 2 * i));
    this.part[i] = part;
    this.part2[i] = part2;
    this.body[i] = body;
    this.phi0[i] = phi0;
    for (let k = 0; k < 3; k++) {
      this.n0[3 * i + k] = n[no + k]!;
      this.p0[3 * i + k] = p[po + k]!;
    }
    this.mu[i] = mu;
    this.e[i] = e;
  }

  /** `slop`: how deep (rest units) the point may sit before the contact acts; `spacing`: the soft body's (file comment). */
  addEmbedded(
    soft: number, corners: ArrayLike<number>, rest: Float64Array, restOffset: number, other: number, local: ArrayLike<number>,
    phi0: number, g: ArrayLike<number>, go: number, X0: ArrayLike<number>, mu: number, e: number, slop: number, spacing: number,
  ): void {
    const i = this.embeddedCount++;
    if (i >= this.eSoft.length) growColumns(this, EMBEDDED_COLUMNS, Math.max(64, 2 * i));
    this.eSoft[i] = soft;
    for (let k = 0; k < 4; k++) this.eTet[4 * i + k] = corners[k]!;
    this.eOther[i] = other;
    this.ePhi0[i] = phi0 + slop;
    const a = 3 * (corners[0]! - restOffset);
    const gx = g[go]!, gy = g[go + 1]!, gz = g[go + 2]!;
    for (let k = 0; k < 3; k++) {
      this.eLocal[3 * i + k] = local[k]!;
      this.eG[3 * i + k] = g[go + k]!;
      this.eX0[3 * i + k] = X0[k]!;
      this.eXa[3 * i + k] = rest[a + k]!;
      // Column k of D_r is X_{k+1} - X_0; (D_r^T g)_k is that edge dotted with g.
      const b = 3 * (corners[k + 1]! - restOffset);
      this.eDg[3 * i + k] = (rest[b]! - rest[a]!) * gx + (rest[b + 1]! - rest[a + 1]!) * gy + (rest[b + 2]! - rest[a + 2]!) * gz;
    }
    this.eMu[i] = mu;
    this.eE[i] = e;
    this.eMaxPush[i] = MAX_PUSH * spacing;
  }

  addPair(a: number, b: number, reach: number, mu: number, e: number): void {
    const i = this.pairCount++;
    if (i >= this.pairA.length) growColumns(this, PAIR_COLUMNS, Math.max(64, 2 * i));
    this.pairA[i] = a;
    this.pairB[i] = b;
    this.pairReach[i] = reach;
    this.pairMu[i] = mu;
    this.pairE[i] = e;
  }

  resolve(sys: SoftStore, _x0: Float64Array, h: number, s: number): void {
    const g = Math.hypot(sys.gravity[0], sys.gravity[1], sys.gravity[2]);
    const resting = RESTING_APPROACH * g * h;
    this.resolveParticles(sys, s, resting);
    this.resolveEmbedded(sys, s, resting);
    this.resolvePairs(sys, resting, h);
  }

  /** Soft-soft particle pairs (file comment). */
  private resolvePairs(sys: SoftStore, resting: number, h: number): void {
    const most = PAIR_PUSH_SPEED * h;
    const x = sys.pos, v = sys.vel, im = sys.invMass;
    for (let k = 0; k < this.pairCount; k++) {
      const i = this.pairA[k]!, j = this.pairB[k]!;
      const o = 3 * i, p = 3 * j;
      let nx = x[o]! - x[p]!, ny = x[o + 1]! - x[p + 1]!, nz = x[o + 2]! - x[p + 2]!;
      const d2 = nx * nx + ny * ny + nz * nz;
      const reach = this.pairReach[k]!;
      if (!(d2 < reach * reach) || d2 === 0) continue;
      const wi = im[i]!, wj = im[j]!, W = wi + wj;
      if (W === 0) continue;
      const d = Math.sqrt(d2);
      nx /= d;
      ny /= d;
      nz /= d;
      this.active++;
      // Apart by the overlap (at most PAIR_PUSH_SPEED h), split by inverse mass (n points from j to i).
      const push = Math.min(reach - d, most) / W;
      addScaled(x, i, push * wi, nx, ny, nz);
      addScaled(x, j, -push * wj, nx, ny, nz);
      let tx = v[o]! - v[p]!, ty = v[o + 1]! - v[p + 1]!, tz = v[o + 2]! - v[p + 2]!;
      const vn = tx * nx + ty * ny + tz * nz;
      if (vn >= 0) continue;
      const e = vn < -resting ? this.pairE[k]! : 0;
      const jn = (-(1 + e) * vn) / W;
      tx -= vn * nx;
      ty -= vn * ny;
      tz -= vn * nz;
      const vt = Math.hypot(tx, ty, tz);
      let jt = 0;
      if (vt > 0) {
        jt = Math.min(vt / W, this.pairMu[k]! * jn) / vt;
      }
      // J = jn n - jt (t vt) on i, -J on j.
      const Jx = jn * nx - jt * tx, Jy = jn * ny - jt * ty, Jz = jn * nz - jt * tz;
      addScaled(v, i, wi, Jx, Jy, Jz);
      addScaled(v, j, -wj, Jx, Jy, Jz);
    }
  }

  private resolveParticles(sys: SoftStore, s: number, resting: number): void {
    const x = sys.pos, v = sys.vel, im = sys.invMass;
    const rigid = this.rigid, R = rigid.R, C = rigid.c, vr = this.v;
    for (let k = 0; k < this.count; k++) {
      // The point: particle i, or the midpoint of the spring i-j (weights 1/2 each).
      const i = this.part[k]!, j = this.part2[k]!;
      const two = j >= 0;
      const si = two ? 0.5 : 1, sj = two ? 0.5 : 0;
      const wi = si * im[i]!, wj = two ? sj * im[j]! : 0;
      const wm = si * wi + sj * wj;
      if (wm === 0) continue; // pinned: the pin decides
      const o = 3 * i, q = two ? 3 * j : o;
      const b = this.body[k]!;
      rigid.pose(b, s);
      const ro = 9 * b;
      const rx = si * x[o]! + sj * x[q]! - C[3 * b]!, ry = si * x[o + 1]! + sj * x[q + 1]! - C[3 * b + 1]!, rz = si * x[o + 2]! + sj * x[q + 2]! - C[3 * b + 2]!;
      // p = R^T r, the point in the body's frame.
      const px = R[ro]! * rx + R[ro + 3]! * ry + R[ro + 6]! * rz;
      const py = R[ro + 1]! * rx + R[ro + 4]! * ry + R[ro + 7]! * rz;
      const pz = R[ro + 2]! * rx + R[ro + 5]! * ry + R[ro + 8]! * rz;
      const n0x = this.n0[3 * k]!, n0y = this.n0[3 * k + 1]!, n0z = this.n0[3 * k + 2]!;
      const phi = this.phi0[k]! + n0x * (px - this.p0[3 * k]!) + n0y * (py - this.p0[3 * k + 1]!) + n0z * (pz - this.p0[3 * k + 2]!);
      if (!(phi < 0)) continue;
      const nx = R[ro]! * n0x + R[ro + 1]! * n0y + R[ro + 2]! * n0z;
      const ny = R[ro + 3]! * n0x + R[ro + 4]! * n0y + R[ro + 5]! * n0z;
      const nz = R[ro + 6]! * n0x + R[ro + 7]! * n0y + R[ro + 8]! * n0z;
      rigid.pointVelocity(b, rx, ry, rz, vr);
      const vn = (si * v[o]! + sj * v[q]! - vr[0]!) * nx + (si * v[o + 1]! + sj * v[q + 1]! - vr[1]!) * ny + (si * v[o + 2]! + sj * v[q + 2]! - vr[2]!) * nz;
      const e = vn < -resting ? this.e[k]! : 0;
      // Out by -(1 + e) phi, spread over the ends by inverse mass (the least-squares split).
      const push = (-(1 + e) * phi) / wm;
      addScaled(x, i, push * wi, nx, ny, nz);
      if (two) addScaled(x, j, push * wj, nx, ny, nz);
      this.active++;
      if (s === 1 && !two) this.addSupport(i, b, nx, ny, nz);
      if (vn >= 0) continue;
      const wb = rigid.inverseMassAlong(b, rx, ry, rz, nx, ny, nz);
      const jn = (-(1 + e) * vn) / (wm + wb);
      this.impulseOnPoint(sys, i, j, wi, wj, b, rx, ry, rz, jn * nx, jn * ny, jn * nz);
      // Friction: the tangential relative velocity after the normal impulse, stopped up to mu jn.
      rigid.pointVelocity(b, rx, ry, rz, vr);
      let tx = si * v[o]! + sj * v[q]! - vr[0]!, ty = si * v[o + 1]! + sj * v[q + 1]! - vr[1]!, tz = si * v[o + 2]! + sj * v[q + 2]! - vr[2]!;
      const vn2 = tx * nx + ty * ny + tz * nz;
      tx -= vn2 * nx;
      ty -= vn2 * ny;
      tz -= vn2 * nz;
      const vt = Math.hypot(tx, ty, tz);
      if (vt === 0) continue;
      tx /= vt;
      ty /= vt;
      tz /= vt;
      const wt = wm + rigid.inverseMassAlong(b, rx, ry, rz, tx, ty, tz);
      const jt = Math.min(vt / wt, this.mu[k]! * jn);
      this.impulseOnPoint(sys, i, j, wi, wj, b, rx, ry, rz, -jt * tx, -jt * ty, -jt * tz);
    }
  }

  /** Impulse J on the point (particle i, or the spring i-j: each end gets its weight times J, wi / wj = weight / mass) and -J on rigid body b at arm r. */
  private impulseOnPoint(sys: SoftStore, i: number, j: number, wi: number, wj: number, b: number, rx: number, ry: number, rz: number, jx: number, jy: number, jz: number): void {
    addScaled(sys.vel, i, wi, jx, jy, jz);
    if (j >= 0) addScaled(sys.vel, j, wj, jx, jy, jz);
    if (this.rigid.bodies!.invMass[b] === 0) return;
    this.rigid.applyImpulse(b, rx, ry, rz, -jx, -jy, -jz);
    this.touched[b] = 1;
  }

  /** Records that particle i rests on rigid body b along n (coupling.ts, transmitSupport; also its restoreState). */
  addSupportRecord(i: number, b: number, nx: number, ny: number, nz: number): void {
    this.addSupport(i, b, nx, ny, nz);
  }

  private addSupport(i: number, b: number, nx: number, ny: number, nz: number): void {
    const k = this.supportCount++;
    if (k >= this.supportPart.length) growColumns(this, SUPPORT_COLUMNS, Math.max(64, 2 * k));
    this.supportPart[k] = i;
    this.supportBody[k] = b;
    this.supportN[3 * k] = nx;
    this.supportN[3 * k + 1] = ny;
    this.supportN[3 * k + 2] = nz;
  }

  private resolveEmbedded(sys: SoftStore, s: number, resting: number): void {
    const x = sys.pos, v = sys.vel, im = sys.invMass;
    const rigid = this.rigid, inv = this.inv, vr = this.v;
    for (let k = 0; k < this.embeddedCount; k++) {
      const a = this.eTet[4 * k]!, b = this.eTet[4 * k + 1]!, c = this.eTet[4 * k + 2]!, d = this.eTet[4 * k + 3]!;
      const ax = x[3 * a]!, ay = x[3 * a + 1]!, az = x[3 * a + 2]!;
      if (!invert3(
        x[3 * b]! - ax, x[3 * c]! - ax, x[3 * d]! - ax,
        x[3 * b + 1]! - ay, x[3 * c + 1]! - ay, x[3 * d + 1]! - ay,
        x[3 * b + 2]! - az, x[3 * c + 2]! - az, x[3 * d + 2]! - az, inv, 0,
      )) continue; // a flattened tetrahedron has no inside this substep
      // The rigid point now.
      const other = this.eOther[k]!;
      rigid.pose(other, s);
      const R = rigid.R, ro = 9 * other;
      const lx = this.eLocal[3 * k]!, ly = this.eLocal[3 * k + 1]!, lz = this.eLocal[3 * k + 2]!;
      const rx = R[ro]! * lx + R[ro + 1]! * ly + R[ro + 2]! * lz;
      const ry = R[ro + 3]! * lx + R[ro + 4]! * ly + R[ro + 5]! * lz;
      const rz = R[ro + 6]! * lx + R[ro + 7]! * ly + R[ro + 8]! * lz;
      const fx = rigid.c[3 * other]! + rx, fy = rigid.c[3 * other + 1]! + ry, fz = rigid.c[3 * other + 2]! + rz;
      const qx = fx - ax, qy = fy - ay, qz = fz - az;
      const l1 = inv[0]! * qx + inv[1]! * qy + inv[2]! * qz;
      const l2 = inv[3]! * qx + inv[4]! * qy + inv[5]! * qz;
      const l3 = inv[6]! * qx + inv[7]! * qy + inv[8]! * qz;
      const w0 = 1 - l1 - l2 - l3;
      if (Math.min(w0, l1, l2, l3) < LEFT_TETRAHEDRON) continue;
      // phi = phi_0 + g_0 . (X - X_0), X = X_a + D_r lambda: g_0 . X = g_0 . X_a + (D_r^T g_0) . lambda.
      const gx = this.eG[3 * k]!, gy = this.eG[3 * k + 1]!, gz = this.eG[3 * k + 2]!;
      const dg0 = this.eDg[3 * k]!, dg1 = this.eDg[3 * k + 1]!, dg2 = this.eDg[3 * k + 2]!;
      const phi =
        this.ePhi0[k]! +
        gx * (this.eXa[3 * k]! - this.eX0[3 * k]!) + gy * (this.eXa[3 * k + 1]! - this.eX0[3 * k + 1]!) + gz * (this.eXa[3 * k + 2]! - this.eX0[3 * k + 2]!) +
        dg0 * l1 + dg1 * l2 + dg2 * l3;
      if (!(phi < 0)) continue;
      // n ~ D^-T (D_r^T g_0): the gradient of phi with respect to the point's world position.
      let nx = inv[0]! * dg0 + inv[3]! * dg1 + inv[6]! * dg2;
      let ny = inv[1]! * dg0 + inv[4]! * dg1 + inv[7]! * dg2;
      let nz = inv[2]! * dg0 + inv[5]! * dg1 + inv[8]! * dg2;
      const len = Math.hypot(nx, ny, nz);
      if (!(len > 0 && len < MAX_SQUASH)) continue;
      nx /= len;
      ny /= len;
      nz /= len;
      const depth = Math.min(-phi / len, this.eMaxPush[k]!);
      // Spreading weights: clipped at zero and renormalised (file comment).
      const c0 = Math.max(0, w0), c1 = Math.max(0, l1), c2 = Math.max(0, l2), c3 = Math.max(0, l3);
      const cs = 1 / (c0 + c1 + c2 + c3);
      const s0 = c0 * cs, s1 = c1 * cs, s2 = c2 * cs, s3 = c3 * cs;
      const wa = s0 * im[a]!, wb = s1 * im[b]!, wc = s2 * im[c]!, wd = s3 * im[d]!;
      const wm = s0 * wa + s1 * wb + s2 * wc + s3 * wd;
      const W = wm + rigid.inverseMassAlong(other, rx, ry, rz, nx, ny, nz);
      if (!(wm > 0)) continue;
      this.active++;
      // Positions: the rigid point stays (World moves rigid bodies), so the soft side takes the whole depth.
      const softShare = depth / wm;
      addScaled(x, a, -softShare * wa, nx, ny, nz);
      addScaled(x, b, -softShare * wb, nx, ny, nz);
      addScaled(x, c, -softShare * wc, nx, ny, nz);
      addScaled(x, d, -softShare * wd, nx, ny, nz);
      // Relative velocity of the rigid point against the material point.
      rigid.pointVelocity(other, rx, ry, rz, vr);
      const ux = vr[0]!, uy = vr[1]!, uz = vr[2]!;
      const mx = s0 * v[3 * a]! + s1 * v[3 * b]! + s2 * v[3 * c]! + s3 * v[3 * d]!;
      const my = s0 * v[3 * a + 1]! + s1 * v[3 * b + 1]! + s2 * v[3 * c + 1]! + s3 * v[3 * d + 1]!;
      const mz = s0 * v[3 * a + 2]! + s1 * v[3 * b + 2]! + s2 * v[3 * c + 2]! + s3 * v[3 * d + 2]!;
      let tx = ux - mx, ty = uy - my, tz = uz - mz;
      const vn = tx * nx + ty * ny + tz * nz;
      if (vn >= 0) continue;
      const e = vn < -resting ? this.eE[k]! : 0;
      const jn = (-(1 + e) * vn) / W;
      // Friction from the tangential relative velocity after the normal impulse (which changes only v_n).
      tx -= vn * nx;
      ty -= vn * ny;
      tz -= vn * nz;
      const vt = Math.hypot(tx, ty, tz);
      let jt = 0;
      if (vt > 0) {
        tx /= vt;
        ty /= vt;
        tz /= vt;
        jt = Math.min(vt / (wm + rigid.inverseMassAlong(other, rx, ry, rz, tx, ty, tz)), this.eMu[k]! * jn);
      }
      // Impulse J = jn n - jt t on the point, -J on the material point.
      const Jx = jn * nx - jt * tx, Jy = jn * ny - jt * ty, Jz = jn * nz - jt * tz;
      addScaled(v, a, -wa, Jx, Jy, Jz);
      addScaled(v, b, -wb, Jx, Jy, Jz);
      addScaled(v, c, -wc, Jx, Jy, Jz);
      addScaled(v, d, -wd, Jx, Jy, Jz);
      if (rigid.bodies!.invMass[other] !== 0) {
        rigid.applyImpulse(other, rx, ry, rz, Jx, Jy, Jz);
        this.touched[other] = 1;
      }
    }
  }
}

function addScaled(a: Float64Array, i: number, s: number, x: number, y: number, z: number): void {
  a[3 * i] += s * x;
  a[3 * i + 1] += s * y;
  a[3 * i + 2] += s * z;
}
