/**
 * SoftStore: the particles and springs of every soft body as a structure of
 * arrays (docs/STYLE.md point 2), the data SoftSystem (system.ts) steps and
 * the stages of its step read: forces.ts, integrate.ts, the colliders
 * (collide.ts, contact.ts). Those take a SoftStore, so they do not depend on
 * the step that calls them.
 *
 * Layout (Float64, like BodyStore): pos / vel are x, y, z per particle; mass,
 * invMass and owner (the soft body's index) one per particle; springs are
 * parallel arrays (ends A, B, rest length, k, damper c, and the stiffer
 * k, c of a stretched spring under stretch prevention). Body b owns the
 * particles [particleStart, particleStart + particleCount) and the springs
 * [springStart, springStart + springCount).
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { SoftModel } from './model.ts';
import type { SkinnedSurface, VolumeRun } from './skin.ts';

/** One soft body's view into the system's arrays, and its per-body data. */
export interface SoftBody {
  name: string;
  particleStart: number;
  particleCount: number;
  springStart: number;
  springCount: number;
  mass: number;
  friction: number;
  restitution: number;
  /** Bulk modulus of volume preservation (Pa), 0 when off. */
  volumeStiffness: number;
  /** Volume enclosed by the drawn surface at rest. */
  restVolume: number;
  /** Volume at the last force evaluation (only kept up to date with volume preservation on; see volumeOf). */
  volume: number;
  /** Modulus (Pa) and damping ratio of stretched springs; stretchStiffness 0 when stretch prevention is off. */
  stretchStiffness: number;
  stretchDamping: number;
  /** Modulus (Pa) of perimeter preservation, 0 when off; the outlines' loops (global particle indices) and rest perimeters. */
  perimeterStiffness: number;
  outlines: Uint32Array[];
  restPerimeters: Float64Array;
  /**
   * Modulus (Pa) of each tetrahedron's own volume (forces.ts), 0 when off
   * (SoftModel.tetWeight); the tetrahedra (4 global particle indices each,
   * none when off), their rest volumes, and 12 floats of scratch.
   */
  tetStiffness: number;
  tets: Uint32Array;
  tetRest: Float64Array;
  tetScratch: Float64Array;
  /** The drawn surface, skinned on global particle indices. */
  surface: SkinnedSurface;
  /** The model it was built from (rest positions, kinds, spacing). */
  model: SoftModel;
  /** Bound on the squared highest frequency (system.ts), for the substep choice: springs' part plus volume's, perimeter's and the tetrahedra's. */
  omega2: number;
  omega2Springs: number;
  omega2Volume: number;
  omega2Perimeter: number;
  omega2Tets: number;
  /** The material's modulus (Pa) and damping ratio the springs were made with (setMaterial changes them). */
  stiffness: number;
  damping: number;
  /** Scratch: skinned positions and volume gradient, 3 per surface vertex. */
  scratchPositions: Float64Array;
  scratchGradient: Float64Array;
  /** forces.ts volumeRun: the volume pass compiled for this body's arrays, with the arrays it was made for. */
  volumePass?: { x: Float64Array; f: Float64Array; p: Float64Array; grad: Float64Array; surface: SkinnedSurface; run: VolumeRun } | null;
}

export class SoftStore {
  particleCount = 0;
  pos = new Float64Array(0);
  vel = new Float64Array(0);
  mass = new Float64Array(0);
  /** 1 / mass, 0 for pinned particles (their pins move them). */
  invMass = new Float64Array(0);
  /** Index of the soft body each particle belongs to. */
  owner = new Uint32Array(0);

  springCount = 0;
  springA = new Uint32Array(0);
  springB = new Uint32Array(0);
  springRest = new Float64Array(0);
  springK = new Float64Array(0);
  springC = new Float64Array(0);
  /** k and c while the spring is longer than its rest length (stretch prevention); k 0 where it is off (springK, springC then apply). */
  springStretchK = new Float64Array(0);
  springStretchC = new Float64Array(0);
  /** Impulse (along the spring, on end A) that each stretched stiff spring gave in the last semi-implicit substep, 0 otherwise (forces.ts). */
  springStretchImpulse = new Float64Array(0);
  /** 1 / length of each spring at the current substep's positions (scratch of forces.ts, springImpulses). */
  springInvLength = new Float64Array(0);
  /** The velocity change the Hooke impulses of the current substep give each particle, 3 per particle (scratch of forces.ts, springImpulses). */
  springKick = new Float64Array(0);

  bodies: SoftBody[] = [];
  /** Bumped whenever masses or pins change, so caches derived from invMass know to refresh. */
  massVersion = 0;
  /** Per-spring exact-damper factors for one length of time h, half a substep (forces.ts, springImpulses). */
  damperCache: { h: number; version: number; factor: Float64Array } = { h: NaN, version: -1, factor: new Float64Array(0) };
  /**
   * forces.ts plainPasses: the plain spring passes compiled for this store's
   * arrays, with the arrays they were made for (made again when one is replaced).
   */
  springPass: {
    A: Uint32Array; B: Uint32Array; L0: Float64Array; K: Float64Array; w: Float64Array; x: Float64Array; v: Float64Array;
    kick: Float64Array; inv: Float64Array; factor: Float64Array; run: (h: number, from: number, to: number) => void;
  } | null = null;
  gravity: Vec3 = [0, -9.81, 0];
}
