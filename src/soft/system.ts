/**
 * SoftSystem: every soft body of a scene as one set of particles and springs
 * in structure-of-arrays storage (SoftStore, store.ts: one range of particles
 * and springs per body, so a whole-system loop needs no per-body dispatch,
 * and the coupling, coupling.ts, hands `pos` to the batched penetration query
 * as one sample set; docs/soft-bodies.md), with pins, colliders and its time
 * step.
 *
 * One step of length dt (`step`):
 *   substeps  n = softSolver.substeps, raised for "semiImplicit" to what its
 *             stability limit needs (below); h = dt / n
 *   per substep:
 *     pins        pinned particles to their anchors' positions at the end of the substep
 *     integrate   the scene's integrator (integrate.ts): forces.ts, then x, v
 *     collide     every SoftCollider, with the positions before and after
 *   check     blow-up: a non-finite state, or a spring stretched past
 *             softSolver.maxStretch times its rest length, is a
 *             SimulationError naming the soft body
 *
 * Stability of semi-implicit Euler. For one oscillator x'' = -omega^2 x, a
 * substep maps (x, v) by a matrix with determinant 1 and trace
 * 2 - h^2 omega^2, stable iff h omega < 2. The exact dampers act first
 * (forces.ts, springImpulses) and multiply the velocity by
 * e = exp(-gamma h) <= 1: determinant e, trace 1 + e - h^2 omega^2, stable iff
 * h^2 omega^2 < 2 (1 + e), so h omega < sqrt 2 is stable at any damping. For
 * the net (W = M^-1 K, G the dampers' map of the velocities): an eigenvalue
 * lambda of the substep, with x its eigenvector's positions, solves
 * lambda^2 - (1 + g - h^2 w) lambda + g = 0 with w = x* W x / x* x in
 * [0, omega^2] and g = x* G x / x* x (mass inner product). The dampers'
 * symmetric sweep makes G symmetric with eigenvalues in [0, 1], so g is in
 * [0, 1] and both roots lie in the unit circle when h^2 w <= 2 (1 + g):
 * again h omega <= sqrt 2 at any damping. (A forward sweep alone makes G
 * unsymmetric, g complex, and the bound is lost: forces.ts.) Next,
 * M^-1/2 K M^-1/2 is a sum of rank-one spring
 * terms k_s g_s g_s^T with (g_s . y)^2 <= 2 (|y_a|^2 / m_a + |y_b|^2 / m_b),
 * so omega^2 <= 2 max_i sum_{springs at i} k_s / m_i; volume preservation adds
 * at most K / V0 sum_i |dV/dx_i|^2 / m_i (its rank-one term), perimeter
 * preservation k_P sum_i |dP/dx_i|^2 / m_i per outline (forces.ts), the
 * tetrahedron volumes of a seed body a Gershgorin bound (addBody). Stretch
 * prevention's stiffer coefficients add nothing: the substep steps them
 * implicitly (forces.ts, springImpulses). The substep is
 * h = 2 s / omega with the safety factor s = STABILITY_SAFETY, so
 * h omega = 1.4 with this bound on omega, inside sqrt 2. The bound is
 * 1.7 to 1.9 times the true highest frequency of lattice bodies (measured by
 * power iteration), and that margin is needed: with the true value and the
 * same s, a soft ball dropped 0.7 m blew up on impact, where compressed
 * springs add transverse stiffness (k (L0 / L - 1)) that the rest state does
 * not have.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import { SimulationError } from '../errors.ts';
import type { Quat } from '../scene/types.ts';
import { DEFAULT_SOFT_SOLVER, type SoftSolverSettings } from './settings.ts';
import { SoftStore, type SoftBody } from './store.ts';
import { EVALUATIONS, IntegratorScratch, integrateSubstep } from './integrate.ts';
import { hookeForceOn, loopPerimeter, tetVolumeGradient } from './forces.ts';
import type { SoftCollider } from './collide.ts';
import { SPRING_WEIGHT, particleCount, springCount, type SoftModel, type SpringKind } from './model.ts';
import { addVolumeGradient, enclosedVolume, skinPositions, type SkinnedSurface } from './skin.ts';

/** Fraction of the undamped stability limit h omega = 2 the automatic substep count aims for; 2 x 0.7 = 1.4 is also inside the limit sqrt 2 of any damping (file comment). */
export const STABILITY_SAFETY = 0.7;

export type { SoftBody, SoftSolverSettings };
export { DEFAULT_SOFT_SOLVER };

export interface SoftMaterial {
  /** Stiffness scale of the net (Pa): a spring of rest length L gets k = stiffness * spacing^2 / L * weight (a lattice body's Young's modulus is about 2.4 times it: docs/soft-bodies.md). */
  stiffness: number;
  /** Damper of each spring as a fraction of its critical damping, c = 2 damping sqrt(k m_a m_b / (m_a + m_b)). */
  damping: number;
  /** Stiffness factor of outer springs (outside the shape). */
  outerScale: number;
  friction: number;
  restitution: number;
  /** Bulk modulus of the volume preservation (Pa); 0 turns it off. */
  volumeStiffness: number;
  /**
   * Stretch prevention: the modulus (Pa) that gives a spring its k while it
   * is longer than its rest length (k_s = stretchStiffness * spacing^2 / L *
   * weight, like k), and that k_s's damping ratio; 0 turns it off.
   */
  stretchStiffness: number;
  stretchDamping: number;
  /** Modulus (Pa) of perimeter preservation on the model's outlines (forces.ts); 0 turns it off. */
  perimeterStiffness: number;
}

/** Where and how a soft body starts. */
export interface SoftPlacement {
  /** World position of the model frame's origin. */
  origin: Vec3;
  orientation: Quat;
  /** Velocity of the centre of mass. */
  velocity: Vec3;
  /** Angular velocity about the centre of mass (rad/s). */
  angularVelocity: Vec3;
}

export interface SoftBodyInit {
  name: string;
  model: SoftModel;
  /** Total mass (kg). */
  mass: number;
  material: SoftMaterial;
  placement: SoftPlacement;
}

/**
 * Where pinned particles' rigid bodies are: fixed poses (StaticPinFrames) for
 * a system alone, World's bodies through the step in a World (coupling.ts, WorldPinFrames).
 */
export interface PinFrames {
  /**
   * World pose of rigid body `body`'s shape frame (the frame pin anchors are
   * written in) at fraction `s` (0..1) through the current step:
   * out[0..2] position, out[3..6] quaternion [x, y, z, w].
   */
  frame(body: number, s: number, out: Float64Array): void;
}

export class StaticPinFrames implements PinFrames {
  constructor(readonly poses: readonly { position: Vec3; orientation: Quat }[]) {}
  frame(body: number, _s: number, out: Float64Array): void {
    const p = this.poses[body]!;
    out.set(p.position, 0);
    out.set(p.orientation, 3);
  }
}

/** Per-stage time of the last step (ms), and what it did. */
export interface SoftProfile {
  integrate: number;
  collide: number;
  check: number;
  total: number;
  substeps: number;
  /** Force evaluations of particles in the last step (particles x evaluations x substeps). */
  particleEvaluations: number;
}

/** Saved dynamic state (SoftSystem.saveState / restoreState). */
export interface SoftState {
  pos: Float64Array;
  vel: Float64Array;
  time: number;
  stepCount: number;
}

function rotate(q: ArrayLike<number>, x: number, y: number, z: number, out: Float64Array | number[], o = 0): void {
  const qx = q[0]!, qy = q[1]!, qz = q[2]!, qw = q[3]!;
  // v + 2 w (u x v) + 2 u x (u x v), u = q.xyz
  const tx = 2 * (qy * z - qz * y), ty = 2 * (qz * x - qx * z), tz = 2 * (qx * y - qy * x);
  out[o] = x + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = y + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = z + qw * tz + (qx * ty - qy * tx);
}

function grow<T extends Float64Array | Uint32Array | Uint8Array>(a: T, length: number): T {
  const b = new (a.constructor as new (n: number) => T)(length);
  b.set(a.subarray(0, Math.min(a.length, length)));
  return b;
}

export class SoftSystem extends SoftStore {
  settings: SoftSolverSettings;
  colliders: SoftCollider[] = [];

  /** Pins: particle, rigid body, particle position in that body's shape frame (3 per pin). */
  pinParticle = new Uint32Array(0);
  pinBody = new Uint32Array(0);
  pinLocal = new Float64Array(0);
  pinFrames: PinFrames | null = null;
  /**
   * Force the net exerted on each pin during the last step, times dt
   * (3 per pin, world frame): the impulse the pin's rigid body must take
   * (in a World the coupling applies it to the body; coupling.ts).
   */
  pinImpulse = new Float64Array(0);

  time = 0;
  stepCount = 0;
  profile: SoftProfile = { integrate: 0, collide: 0, check: 0, total: 0, substeps: 0, particleEvaluations: 0 };

  private scratch = new IntegratorScratch();
  /** (pin, spring) pairs of the springs at pinned particles, for massVersion pinSpringVersion. */
  private pinSprings = new Uint32Array(0);
  private pinSpringVersion = -1;
  private x0 = new Float64Array(0);
  private frameScratch = new Float64Array(7);

  constructor(settings: Partial<SoftSolverSettings> = {}) {
    super();
    this.settings = { ...DEFAULT_SOFT_SOLVER, ...settings };
  }

  /** Adds a body; returns its index. Particles start in the placement's rigid motion. */
  addBody(init: SoftBodyInit): number {
    const { model, material, placement } = init;
    if (!(init.mass > 0 && Number.isFinite(init.mass))) throw new RangeError(`soft body "${init.name}": mass must be positive and finite, got ${init.mass}`);
    const np = particleCount(model), ns = springCount(model);
    const p0 = this.particleCount, s0 = this.springCount;
    const index = this.bodies.length;
    this.particleCount += np;
    this.springCount += ns;
    this.pos = grow(this.pos, 3 * this.particleCount);
    this.vel = grow(this.vel, 3 * this.particleCount);
    this.mass = grow(this.mass, this.particleCount);
    this.invMass = grow(this.invMass, this.particleCount);
    this.owner = grow(this.owner, this.particleCount);
    this.springA = grow(this.springA, this.springCount);
    this.springB = grow(this.springB, this.springCount);
    this.springRest = grow(this.springRest, this.springCount);
    this.springK = grow(this.springK, this.springCount);
    this.springC = grow(this.springC, this.springCount);
    this.springStretchK = grow(this.springStretchK, this.springCount);
    this.springStretchC = grow(this.springStretchC, this.springCount);

    const q = placement.orientation;
    let cx = 0, cy = 0, cz = 0;
    for (let i = 0; i < np; i++) {
      const g = p0 + i;
      const m = init.mass * model.massShare[i]!;
      if (!(m > 0)) throw new RangeError(`soft body "${init.name}": particle ${i} has no mass`);
      this.mass[g] = m;
      this.invMass[g] = 1 / m;
      this.owner[g] = index;
      rotate(q, model.rest[3 * i]!, model.rest[3 * i + 1]!, model.rest[3 * i + 2]!, this.pos, 3 * g);
      this.pos[3 * g] += placement.origin[0];
      this.pos[3 * g + 1] += placement.origin[1];
      this.pos[3 * g + 2] += placement.origin[2];
      cx += m * this.pos[3 * g]!;
      cy += m * this.pos[3 * g + 1]!;
      cz += m * this.pos[3 * g + 2]!;
    }
    cx /= init.mass;
    cy /= init.mass;
    cz /= init.mass;
    const [vx, vy, vz] = placement.velocity;
    const [wx, wy, wz] = placement.angularVelocity;
    for (let g = p0; g < p0 + np; g++) {
      const rx = this.pos[3 * g]! - cx, ry = this.pos[3 * g + 1]! - cy, rz = this.pos[3 * g + 2]! - cz;
      this.vel[3 * g] = vx + wy * rz - wz * ry;
      this.vel[3 * g + 1] = vy + wz * rx - wx * rz;
      this.vel[3 * g + 2] = vz + wx * ry - wy * rx;
    }

    // Springs: k from the material (SoftMaterial.stiffness), c from the damping ratio.
    const spacing2 = model.spacing * model.spacing;
    const springSum = new Float64Array(np);
    for (let s = 0; s < ns; s++) {
      const a = model.springs[2 * s]!, b = model.springs[2 * s + 1]!;
      const g = s0 + s;
      const rest = Math.hypot(
        model.rest[3 * a]! - model.rest[3 * b]!,
        model.rest[3 * a + 1]! - model.rest[3 * b + 1]!,
        model.rest[3 * a + 2]! - model.rest[3 * b + 2]!,
      );
      if (!(rest > 0)) throw new RangeError(`soft body "${init.name}": spring ${s} has zero rest length`);
      const weight = SPRING_WEIGHT[model.kind[s] as SpringKind] * (model.outer[s] ? material.outerScale : 1);
      const k = ((material.stiffness * spacing2) / rest) * weight;
      const ma = this.mass[p0 + a]!, mb = this.mass[p0 + b]!;
      const c = 2 * material.damping * Math.sqrt((k * ma * mb) / (ma + mb));
      this.springA[g] = p0 + a;
      this.springB[g] = p0 + b;
      this.springRest[g] = rest;
      this.springK[g] = k;
      this.springC[g] = c;
      const ks = ((material.stretchStiffness * spacing2) / rest) * weight;
      this.springStretchK[g] = ks;
      this.springStretchC[g] = 2 * material.stretchDamping * Math.sqrt((ks * ma * mb) / (ma + mb));
      springSum[a] += k;
      springSum[b] += k;
    }
    let omega2Springs = 0;
    for (let i = 0; i < np; i++) omega2Springs = Math.max(omega2Springs, (2 * springSum[i]!) / this.mass[p0 + i]!);
    let omega2Volume = 0;

    const nv = model.skinWeight.length / 4;
    const surface: SkinnedSurface = {
      indices: model.surface.indices,
      skinIndex: model.skinIndex.map((i) => i + p0),
      skinWeight: model.skinWeight,
    };
    const scratchPositions = new Float64Array(3 * nv);
    const scratchGradient = new Float64Array(3 * nv);
    skinPositions(surface, this.pos, scratchPositions);
    const restVolume = enclosedVolume(surface.indices, scratchPositions);
    // A net without a closed surface (a rope, a single spring) is fine as long as nothing needs its volume.
    if (material.volumeStiffness > 0 && !(restVolume > 0)) {
      throw new RangeError(`soft body "${init.name}": volume preservation needs a surface that encloses a volume`);
    }
    if (material.volumeStiffness > 0) {
      // The volume term's share of omega^2: K / V0 sum_i |dV/dx_i|^2 / m_i at rest.
      const grad = new Float64Array(3 * this.particleCount);
      addVolumeGradient(surface, this.pos, scratchPositions, scratchGradient, grad, 0, 0, 1);
      let sum = 0;
      for (let i = p0; i < p0 + np; i++) {
        const gx = grad[3 * i]!, gy = grad[3 * i + 1]!, gz = grad[3 * i + 2]!;
        sum += (gx * gx + gy * gy + gz * gz) / this.mass[i]!;
      }
      omega2Volume = (material.volumeStiffness / restVolume) * sum;
    }

    // Perimeter preservation: each outline as one spring of rest length P0 (forces.ts); its share of
    // omega^2 is k_P sum_i |dP/dx_i|^2 / m_i at rest, with |dP/dx_i| the length of the difference of
    // the unit vectors along the two outline edges at particle i.
    const outlines = material.perimeterStiffness > 0 ? (model.outlines ?? []).map((loop) => loop.map((i) => i + p0)) : [];
    if (material.perimeterStiffness > 0 && outlines.length === 0) {
      throw new RangeError(`soft body "${init.name}": perimeter preservation needs a net built on an outline (the seed construction)`);
    }
    const restPerimeters = Float64Array.from(outlines, (loop) => loopPerimeter(loop, this.pos));
    let omega2Perimeter = 0;
    outlines.forEach((loop, l) => {
      const kp = (material.perimeterStiffness * spacing2) / restPerimeters[l]!;
      const n = loop.length, x = this.pos;
      const unit = (i: number, j: number): Vec3 => {
        const d: Vec3 = [x[3 * j]! - x[3 * i]!, x[3 * j + 1]! - x[3 * i + 1]!, x[3 * j + 2]! - x[3 * i + 2]!];
        const len = Math.hypot(d[0], d[1], d[2]);
        return [d[0] / len, d[1] / len, d[2] / len];
      };
      let sum = 0;
      for (let k = 0; k < n; k++) {
        const i = loop[k]!;
        const t0 = unit(loop[(k + n - 1) % n]!, i), t1 = unit(i, loop[(k + 1) % n]!);
        sum += ((t0[0] - t1[0]) ** 2 + (t0[1] - t1[1]) ** 2 + (t0[2] - t1[2]) ** 2) / this.mass[i]!;
      }
      omega2Perimeter += kp * sum;
    });

    // Tetrahedron volumes (forces.ts), K = tetWeight x stiffness. Their share of omega^2: in
    // mass-scaled coordinates a tetrahedron is the rank-one term (K / V0) h h^T with h_k = |dV/dx_k| / sqrt(m_k)
    // at its corners k, so block (i, k) of their sum has norm at most sum_t (K / V0) h_i h_k, and by
    // Gershgorin omega^2 <= max_i sum_{tetrahedra at i} (K / V0) h_i (h_1 + ... + h_4). (The springs'
    // form of the bound, 4 max_i sum (K / V0) h_i^2, came out up to 1.3 times higher on the thin
    // tetrahedra of the soft-outlines star and horseshoe.)
    const tetStiffness = material.stiffness * (model.tetWeight ?? 0);
    const tets = tetStiffness > 0 ? model.tets.map((i) => i + p0) : new Uint32Array(0);
    const tetRest = new Float64Array(tets.length / 4);
    const tetScratch = new Float64Array(12);
    let omega2Tets = 0;
    if (tetStiffness > 0) {
      const row = new Float64Array(np);
      const h = [0, 0, 0, 0];
      for (let t = 0; t < tets.length; t += 4) {
        const v0 = tetVolumeGradient(this.pos, tets[t]!, tets[t + 1]!, tets[t + 2]!, tets[t + 3]!, tetScratch);
        if (!(v0 > 0)) throw new RangeError(`soft body "${init.name}": tetrahedron ${t / 4} is flat or inverted`);
        tetRest[t / 4] = v0;
        let sum = 0;
        for (let k = 0; k < 4; k++) {
          h[k] = Math.hypot(tetScratch[3 * k]!, tetScratch[3 * k + 1]!, tetScratch[3 * k + 2]!) / Math.sqrt(this.mass[tets[t + k]!]!);
          sum += h[k]!;
        }
        for (let k = 0; k < 4; k++) row[tets[t + k]! - p0] += (tetStiffness / v0) * h[k]! * sum;
      }
      for (let i = 0; i < np; i++) omega2Tets = Math.max(omega2Tets, row[i]!);
    }

    this.massVersion++;
    this.bodies.push({
      name: init.name,
      particleStart: p0,
      particleCount: np,
      springStart: s0,
      springCount: ns,
      mass: init.mass,
      friction: material.friction,
      restitution: material.restitution,
      volumeStiffness: material.volumeStiffness,
      stretchStiffness: material.stretchStiffness,
      stretchDamping: material.stretchDamping,
      perimeterStiffness: material.perimeterStiffness,
      outlines,
      restPerimeters,
      restVolume,
      volume: restVolume,
      surface,
      model,
      omega2: omega2Springs + omega2Volume + omega2Perimeter + omega2Tets,
      omega2Springs,
      omega2Volume,
      omega2Perimeter,
      omega2Tets,
      tetStiffness,
      tets,
      tetRest,
      tetScratch,
      stiffness: material.stiffness,
      damping: material.damping,
      scratchPositions,
      scratchGradient,
    });
    return index;
  }

  /**
   * Changes body b's modulus and damping ratio while it runs (the app's
   * panel): every spring's k scales with the modulus (k = stiffness s^2 / L
   * weight), the volume, stretch and perimeter moduli too (they default to
   * multiples of the modulus), each damper follows from its new k and the
   * damping ratio, and the substep bound from both. Values must be positive
   * (damping >= 0) and finite.
   */
  setMaterial(b: number, stiffness: number, damping: number): void {
    const body = this.bodies[b]!;
    if (!(stiffness > 0 && Number.isFinite(stiffness))) throw new RangeError(`soft body "${body.name}": stiffness must be positive and finite, got ${stiffness}`);
    if (!(damping >= 0 && Number.isFinite(damping))) throw new RangeError(`soft body "${body.name}": damping must be >= 0 and finite, got ${damping}`);
    const scale = stiffness / body.stiffness;
    for (let s = body.springStart; s < body.springStart + body.springCount; s++) {
      const k = this.springK[s]! * scale;
      const ma = this.mass[this.springA[s]!]!, mb = this.mass[this.springB[s]!]!;
      this.springK[s] = k;
      this.springC[s] = 2 * damping * Math.sqrt((k * ma * mb) / (ma + mb));
      const ks = this.springStretchK[s]! * scale;
      this.springStretchK[s] = ks;
      this.springStretchC[s] = 2 * body.stretchDamping * Math.sqrt((ks * ma * mb) / (ma + mb));
    }
    body.volumeStiffness *= scale;
    body.stretchStiffness *= scale;
    body.perimeterStiffness *= scale;
    body.tetStiffness *= scale;
    body.omega2Springs *= scale;
    body.omega2Volume *= scale;
    body.omega2Perimeter *= scale;
    body.omega2Tets *= scale;
    body.omega2 = body.omega2Springs + body.omega2Volume + body.omega2Perimeter + body.omega2Tets;
    body.stiffness = stiffness;
    body.damping = damping;
    // The exact dampers' factors depend on c.
    this.massVersion++;
  }

  /**
   * Pins particle `particle` (global index) to rigid body `body`: it keeps its
   * current position relative to the body's shape frame, given by `frames`.
   */
  addPin(particle: number, body: number, frames: PinFrames): void {
    if (!(particle >= 0 && particle < this.particleCount)) throw new RangeError(`no particle ${particle}`);
    this.pinFrames = frames;
    for (let p = 0; p < this.pinParticle.length; p++) if (this.pinParticle[p] === particle) return;
    const n = this.pinParticle.length + 1;
    this.pinParticle = grow(this.pinParticle, n);
    this.pinBody = grow(this.pinBody, n);
    this.pinLocal = grow(this.pinLocal, 3 * n);
    this.pinImpulse = grow(this.pinImpulse, 3 * n);
    this.pinParticle[n - 1] = particle;
    this.pinBody[n - 1] = body;
    const f = this.frameScratch;
    frames.frame(body, 0, f);
    // local = R^T (x - p): rotate by the conjugate quaternion.
    const inv = [-f[3]!, -f[4]!, -f[5]!, f[6]!];
    rotate(inv, this.pos[3 * particle]! - f[0]!, this.pos[3 * particle + 1]! - f[1]!, this.pos[3 * particle + 2]! - f[2]!, this.pinLocal, 3 * (n - 1));
    this.invMass[particle] = 0;
    this.massVersion++;
    this.vel[3 * particle] = this.vel[3 * particle + 1] = this.vel[3 * particle + 2] = 0;
  }

  /** Substeps the next step of length dt takes (file comment). */
  substepsFor(dt: number): number {
    const { integrator, substeps } = this.settings;
    if (integrator !== 'semiImplicit') return substeps;
    const h = this.stableSubstep();
    return Math.max(substeps, Math.ceil(dt / h - 1e-9));
  }

  /** Longest stable semi-implicit substep over all bodies (file comment); Infinity with no springs. */
  stableSubstep(): number {
    let h = Infinity;
    for (let b = 0; b < this.bodies.length; b++) h = Math.min(h, this.stableSubstepOf(b));
    return h;
  }

  /** Longest stable semi-implicit substep for body b alone. */
  stableSubstepOf(b: number): number {
    const { omega2 } = this.bodies[b]!;
    return omega2 > 0 ? (2 * STABILITY_SAFETY) / Math.sqrt(omega2) : Infinity;
  }

  /** Advances every soft body by dt (file comment). */
  step(dt: number): void {
    if (!(dt > 0 && Number.isFinite(dt))) throw new RangeError(`a soft step needs a positive, finite dt, got ${dt}`);
    const t0 = performance.now();
    const n = this.substepsFor(dt);
    if (n > this.settings.maxSubsteps) {
      const stiffest = this.bodies.reduce((a, b) => (b.omega2 > a.omega2 ? b : a));
      throw new SimulationError(
        `soft body "${stiffest.name}" needs ${n < 1e9 ? n : n.toExponential(2)} substeps per step of ${dt} s to stay stable, more than softSolver.maxSubsteps = ${this.settings.maxSubsteps}; ` +
          'lower its stiffness or volumeStiffness, raise maxSubsteps, or shorten dt',
      );
    }
    const h = dt / n;
    const x0 = this.x0.length === this.pos.length ? this.x0 : (this.x0 = new Float64Array(this.pos.length));
    this.pinImpulse.fill(0);
    let integrateMs = 0, collideMs = 0;
    for (let s = 0; s < n; s++) {
      const a = performance.now();
      x0.set(this.pos);
      if (this.settings.integrator === 'semiImplicit') this.addPinSpringForces(h);
      integrateSubstep(this, this.settings.integrator, h, this.scratch);
      if (this.settings.integrator === 'semiImplicit') this.addPinStretchImpulses(x0);
      this.accumulatePinForces(h);
      this.movePins(h, (s + 1) / n);
      const b = performance.now();
      for (const c of this.colliders) c.resolve(this, x0, h, (s + 1) / n);
      collideMs += performance.now() - b;
      integrateMs += b - a;
    }
    this.time += dt;
    this.stepCount++;
    const c0 = performance.now();
    this.checkBlowUp(n);
    const end = performance.now();
    this.profile = {
      integrate: integrateMs,
      collide: collideMs,
      check: end - c0,
      total: end - t0,
      substeps: n,
      particleEvaluations: this.particleCount * n * EVALUATIONS[this.settings.integrator],
    };
  }

  /**
   * The semi-implicit substep applies springs as impulses, so its force array
   * has gravity and volume only: the springs' Hooke forces on each pinned
   * particle at the substep's start are added here (the dampers do not move
   * a pinned particle, whose inverse mass is 0, and pull nothing on its pin).
   */
  private addPinSpringForces(h: number): void {
    const n = this.pinParticle.length;
    if (n === 0) return;
    if (this.pinSpringVersion !== this.massVersion) {
      const list: number[] = [];
      for (let p = 0; p < n; p++) {
        const i = this.pinParticle[p]!;
        for (let s = 0; s < this.springCount; s++) if (this.springA[s] === i || this.springB[s] === i) list.push(p, s);
      }
      this.pinSprings = Uint32Array.from(list);
      this.pinSpringVersion = this.massVersion;
    }
    const f = this.frameScratch;
    for (let k = 0; k < this.pinSprings.length; k += 2) {
      const p = this.pinSprings[k]!;
      hookeForceOn(this, this.pinSprings[k + 1]!, this.pinParticle[p]!, f);
      for (let c = 0; c < 3; c++) this.pinImpulse[3 * p + c] += f[c]! * h;
    }
  }

  /**
   * The implicit impulses of the stretched stiff springs at pinned particles
   * (forces.ts, springImpulses; addPinSpringForces left them out), along each
   * spring's direction at the substep's start (x0): what the pins hold of them.
   */
  private addPinStretchImpulses(x0: Float64Array): void {
    const inv = this.springInvLength;
    for (let k = 0; k < this.pinSprings.length; k += 2) {
      const p = this.pinSprings[k]!, s = this.pinSprings[k + 1]!;
      if (!(inv[s]! < 0)) continue;
      const i = this.pinParticle[p]!;
      const a = 3 * this.springA[s]!, b = 3 * this.springB[s]!;
      // Impulse j u on end A, -j u on end B (u from B to A).
      const scale = (this.springA[s] === i ? 1 : -1) * this.springStretchImpulse[s]! * -inv[s]!;
      for (let c = 0; c < 3; c++) this.pinImpulse[3 * p + c] += scale * (x0[a + c]! - x0[b + c]!);
    }
  }

  /** The force on each pinned particle (last evaluation of the substep) is what its pin holds: impulse += f h. */
  private accumulatePinForces(h: number): void {
    const f = this.scratch.f;
    for (let p = 0; p < this.pinParticle.length; p++) {
      const i = this.pinParticle[p]!;
      for (let c = 0; c < 3; c++) this.pinImpulse[3 * p + c] += f[3 * i + c]! * h;
    }
  }

  /** Pinned particles to their anchors at fraction s of the step; their velocity is the anchor's over the substep. */
  private movePins(h: number, s: number): void {
    if (!this.pinFrames) return;
    const f = this.frameScratch;
    const target = [0, 0, 0];
    for (let p = 0; p < this.pinParticle.length; p++) {
      const i = this.pinParticle[p]!;
      this.pinFrames.frame(this.pinBody[p]!, s, f);
      rotate(f.subarray(3, 7), this.pinLocal[3 * p]!, this.pinLocal[3 * p + 1]!, this.pinLocal[3 * p + 2]!, target);
      for (let c = 0; c < 3; c++) {
        const x = f[c]! + target[c]!;
        // Integration moved the particle by h v (v = last substep's anchor velocity); undo that, then move to the anchor.
        const start = this.pos[3 * i + c]! - h * this.vel[3 * i + c]!;
        this.vel[3 * i + c] = (x - start) / h;
        this.pos[3 * i + c] = x;
      }
    }
  }

  /** Throws a SimulationError naming the soft body whose state is not finite or whose springs tore far past their rest length. */
  private checkBlowUp(substeps: number): void {
    const x = this.pos, v = this.vel;
    const limit = this.settings.maxStretch;
    const when = () =>
      `at step ${this.stepCount} (t = ${this.time.toFixed(4)} s; integrator "${this.settings.integrator}", ${substeps} substep${substeps === 1 ? '' : 's'} per step)`;
    // (Naming the default integrator only where another is in use.)
    const advice = this.settings.integrator === 'semiImplicit'
      ? 'use more substeps, a smaller dt, or softer springs'
      : 'use the default integrator "semiImplicit", more substeps, a smaller dt, or softer springs';
    for (const b of this.bodies) {
      let sum = 0;
      for (let c = 3 * b.particleStart; c < 3 * (b.particleStart + b.particleCount); c++) sum += x[c]! + v[c]!;
      if (!Number.isFinite(sum)) throw new SimulationError(`soft body "${b.name}" blew up ${when()}: its state is no longer finite; ${advice}`);
      const [worst, worstSpring] = this.worstStretch(b);
      if (worst > limit) {
        const a = this.springA[worstSpring]! - b.particleStart, c = this.springB[worstSpring]! - b.particleStart;
        throw new SimulationError(
          `soft body "${b.name}" blew up ${when()}: the spring between its particles ${a} and ${c} is ${pastLimit(worst, limit)} times its rest length (softSolver.maxStretch = ${limit}); ${advice}, or allow more (softSolver.maxStretch)`,
        );
      }
    }
  }

  /**
   * Body b's spring stretched most against its rest length: [L / L0, spring]
   * ([0, -1] without springs). The default integrator's last substep has the
   * lengths at its start (forces.ts, springImpulses: 1 / L per spring, negated
   * for a stiff stretched one, 0 for coincident ends), one substep behind the
   * step's end, which is all a blow-up check needs: one pass in spring order,
   * with no particle to fetch (0.1 against 0.55 ms a step for the 101 440
   * springs of soft-pegs). The others measure the springs at the positions.
   */
  private worstStretch(b: SoftBody): [number, number] {
    let worst = 0, worstSpring = -1;
    const from = b.springStart, to = b.springStart + b.springCount;
    const inv = this.springInvLength, rest = this.springRest;
    if (this.settings.integrator === 'semiImplicit' && inv.length === this.springCount) {
      // Smallest L0 / L (= L0 |1 / L|) over springs of nonzero length.
      let least = Infinity;
      for (let s = from; s < to; s++) {
        const q = rest[s]! * Math.abs(inv[s]!);
        if (q < least && q > 0) {
          least = q;
          worstSpring = s;
        }
      }
      return worstSpring < 0 ? [0, -1] : [1 / least, worstSpring];
    }
    // Squared lengths against squared rest lengths.
    const x = this.pos;
    for (let s = from; s < to; s++) {
      const a = 3 * this.springA[s]!, c = 3 * this.springB[s]!;
      const dx = x[a]! - x[c]!, dy = x[a + 1]! - x[c + 1]!, dz = x[a + 2]! - x[c + 2]!;
      const ratio2 = (dx * dx + dy * dy + dz * dz) / (rest[s]! * rest[s]!);
      if (ratio2 > worst) {
        worst = ratio2;
        worstSpring = s;
      }
    }
    return [Math.sqrt(worst), worstSpring];
  }

  // ------------------------------------------------------------------ measurements

  /** Volume enclosed by body b's drawn surface now. */
  volumeOf(b: number): number {
    const body = this.bodies[b]!;
    skinPositions(body.surface, this.pos, body.scratchPositions);
    return enclosedVolume(body.surface.indices, body.scratchPositions);
  }

  /** Body b's drawn surface now: 3 floats per vertex of model.surface (triangles: model.surface.indices). */
  surfacePositions(b: number, out?: Float32Array | Float64Array): Float32Array | Float64Array {
    const body = this.bodies[b]!;
    const o = out ?? new Float32Array(body.scratchPositions.length);
    skinPositions(body.surface, this.pos, o);
    return o;
  }

  /** Centre of mass of body b. */
  centroid(b: number): Vec3 {
    const body = this.bodies[b]!;
    const c: Vec3 = [0, 0, 0];
    for (let i = body.particleStart; i < body.particleStart + body.particleCount; i++) {
      for (let k = 0; k < 3; k++) c[k] += this.mass[i]! * this.pos[3 * i + k]!;
    }
    return [c[0] / body.mass, c[1] / body.mass, c[2] / body.mass];
  }

  /** Linear momentum of all particles (or of body b). */
  momentum(b?: number): Vec3 {
    const [start, end] = this.range(b);
    const p: Vec3 = [0, 0, 0];
    for (let i = start; i < end; i++) for (let k = 0; k < 3; k++) p[k] += this.mass[i]! * this.vel[3 * i + k]!;
    return p;
  }

  /** Angular momentum about the world origin of all particles (or of body b). */
  angularMomentum(b?: number): Vec3 {
    const [start, end] = this.range(b);
    const L: Vec3 = [0, 0, 0];
    const x = this.pos, v = this.vel;
    for (let i = start; i < end; i++) {
      const m = this.mass[i]!, o = 3 * i;
      L[0] += m * (x[o + 1]! * v[o + 2]! - x[o + 2]! * v[o + 1]!);
      L[1] += m * (x[o + 2]! * v[o]! - x[o]! * v[o + 2]!);
      L[2] += m * (x[o]! * v[o + 1]! - x[o + 1]! * v[o]!);
    }
    return L;
  }

  /**
   * Kinetic energy (J) of the particles: what the app's HUD and the
   * benchmarks read every step, without the springs' and volumes' terms:
   * energy() sums those too, which on the 20 blobs of soft-pegs costs a
   * fifth of a whole step (10 ms against 0.03).
   */
  kineticEnergy(): number {
    const v = this.vel;
    let kinetic = 0;
    for (let i = 0; i < this.particleCount; i++) {
      const o = 3 * i;
      kinetic += 0.5 * this.mass[i]! * (v[o]! * v[o]! + v[o + 1]! * v[o + 1]! + v[o + 2]! * v[o + 2]!);
    }
    return kinetic;
  }

  /**
   * Mechanical energy (J): kinetic, gravitational (zero at the origin),
   * elastic (springs, with the stretch k while stretched under stretch
   * prevention, and the perimeter term k_P (P - P0)^2 / 2) and volume
   * (K (V - V0)^2 / (2 V0)). Damping and
   * collisions can only lower the sum; the integrators' own error aside.
   */
  energy(): { kinetic: number; gravity: number; springs: number; volume: number; total: number } {
    const x = this.pos;
    const [gx, gy, gz] = this.gravity;
    const kinetic = this.kineticEnergy();
    let gravity = 0, springs = 0, volume = 0;
    for (let i = 0; i < this.particleCount; i++) {
      const o = 3 * i;
      gravity -= this.mass[i]! * (gx * x[o]! + gy * x[o + 1]! + gz * x[o + 2]!);
    }
    for (let s = 0; s < this.springCount; s++) {
      const a = 3 * this.springA[s]!, b = 3 * this.springB[s]!;
      const stretch = Math.hypot(x[a]! - x[b]!, x[a + 1]! - x[b + 1]!, x[a + 2]! - x[b + 2]!) - this.springRest[s]!;
      const k = stretch > 0 && this.springStretchK[s]! > 0 ? this.springStretchK[s]! : this.springK[s]!;
      springs += 0.5 * k * stretch * stretch;
    }
    for (const b of this.bodies) {
      if (b.perimeterStiffness === 0) continue;
      const s2 = b.model.spacing * b.model.spacing;
      b.outlines.forEach((loop, l) => {
        const p0 = b.restPerimeters[l]!, dp = loopPerimeter(loop, x) - p0;
        springs += (0.5 * b.perimeterStiffness * s2 * dp * dp) / p0;
      });
    }
    for (const b of this.bodies) {
      for (let t = 0; t < b.tets.length; t += 4) {
        const v0 = b.tetRest[t / 4]!;
        const dv = tetVolumeGradient(x, b.tets[t]!, b.tets[t + 1]!, b.tets[t + 2]!, b.tets[t + 3]!, b.tetScratch) - v0;
        volume += (0.5 * b.tetStiffness * dv * dv) / v0;
      }
    }
    this.bodies.forEach((b, i) => {
      if (b.volumeStiffness === 0) return;
      const dv = this.volumeOf(i) - b.restVolume;
      volume += (0.5 * b.volumeStiffness * dv * dv) / b.restVolume;
    });
    return { kinetic, gravity, springs, volume, total: kinetic + gravity + springs + volume };
  }

  /** Index of the body named `name`, or -1. */
  bodyIndex(name: string): number {
    return this.bodies.findIndex((b) => b.name === name);
  }

  saveState(): SoftState {
    return { pos: this.pos.slice(), vel: this.vel.slice(), time: this.time, stepCount: this.stepCount };
  }

  restoreState(s: SoftState): void {
    if (s.pos.length !== this.pos.length) throw new RangeError(`state has ${s.pos.length / 3} particles, the system ${this.particleCount}`);
    this.pos.set(s.pos);
    this.vel.set(s.vel);
    this.time = s.time;
    this.stepCount = s.stepCount;
  }

  private range(b?: number): [number, number] {
    if (b === undefined) return [0, this.particleCount];
    const body = this.bodies[b]!;
    return [body.particleStart, body.particleStart + body.particleCount];
  }
}

/** `worst` with as many decimals as show it past `limit` (one at least): 1.0000000002 against a limit of 1.0000000001, not 1.0. */
function pastLimit(worst: number, limit: number): string {
  for (let d = 1; d <= 17; d++) {
    const t = worst.toFixed(d);
    if (Number(t) > limit) return t;
  }
  return String(worst);
}
