/**
 * A scene after validation (docs/SCENE_FORMAT.md): every default filled in, every
 * reference checked, quaternions normalised. The loader (src/scene/load.ts)
 * produces it from JSON; built-in scenes (src/scene/builtins.ts) produce the
 * JSON form so they pass the same validation.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { SolverSettings } from '../dynamics/settings.ts';
import type { SoftSolverSettings } from '../soft/settings.ts';
import type { JointDesc, MotorDesc } from '../dynamics/joints/types.ts';

export type Quat = [number, number, number, number];

export interface SdfSettings {
  cells: number; // default 48
  padding: number; // default 2
}

/**
 * Where a shape's mass, centre of mass and inertia come from: "mesh", the
 * exact integral over its triangles (the default), or "sdf", the seed's sum
 * over the SDF's inside cells (src/sdf/mass.ts massFromSdf).
 */
export type MassFrom = 'mesh' | 'sdf';

export type ShapeDesc =
  | { type: 'box'; size: Vec3; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'sphere'; radius: number; segments: [number, number]; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'cylinder'; radius: number; height: number; segments: number; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'capsule'; radius: number; height: number; segments: [number, number]; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'torus'; majorRadius: number; minorRadius: number; segments: [number, number]; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'revolve'; profile: [number, number][]; segments: number; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'extrude'; polygon: [number, number][]; depth: number; sdf: SdfSettings; massFrom?: MassFrom }
  | { type: 'plane'; normal: Vec3 }
  | { type: 'mesh'; path: string; resolvedPath: string; scale: number; sdf: SdfSettings; massFrom?: MassFrom };

// The engine owns its settings; the scene layer fills them from the file.
export type { SolverSettings } from '../dynamics/settings.ts';
export type { JointType, JointDesc, MotorDesc, MotorSegment } from '../dynamics/joints/types.ts';

export interface BodyDesc {
  name: string;
  shape: string;
  static: boolean;
  position: Vec3;
  orientation: Quat;
  velocity: Vec3;
  angularVelocity: Vec3;
  /** Exactly one of density / mass is set for dynamic bodies (density 1000 by default). */
  density?: number;
  mass?: number;
  restitution: number;
  /** Dynamic friction mu_d (sliding); the static one too unless staticFriction is given. */
  friction: number;
  /** Static friction mu_s (sticking), >= friction; friction when not given. */
  staticFriction: number;
  rollingFriction: number;
  spinningFriction: number;
  /**
   * The material properties this body left at the format's defaults (not
   * given by the body, its material, template or the scene's defaults): a
   * pair takes a property given for only one of its bodies from that one
   * (src/dynamics/material.ts). Absent: all five were given.
   */
  materialDefaults?: MaterialProperty[];
  /** The body's fluid drag (docs/forces.md); absent: none. */
  drag?: DragDesc;
}

/** A body's drag: F = -(linear + density cd area |v - u| / 2) (v - u), u the wind's air velocity. */
export interface DragDesc {
  /** N s/m. */
  linear: number;
  /** Drag coefficient (dimensionless). */
  cd: number;
  /** Reference area (m^2). */
  area: number;
}

/** A sinusoidal variation: amplitude sin(2 pi t / period + phase), phase in degrees. */
export interface GustDesc {
  amplitude: Vec3;
  period: number;
  phase: number;
}

/**
 * One entry of a scene's "forces" (docs/forces.md), every default filled in.
 * Windows are [from, until) in seconds (until Infinity: no end); a point is
 * in the body's shape frame, as written (like joint anchors), absent for the
 * centre of mass.
 */
export type ForceDesc =
  | { type: 'wind'; velocity: Vec3; gust?: GustDesc; bodies?: string[]; from: number; until: number }
  | { type: 'field'; force: Vec3; gust?: GustDesc; bodies?: string[]; from: number; until: number }
  | { type: 'force'; body: string; force: Vec3; point?: Vec3; frame: 'world' | 'body'; from: number; until: number }
  | { type: 'impulse'; body: string; impulse: Vec3; point?: Vec3; frame: 'world' | 'body'; at: number };

/** The four material properties a contact pair combines. */
export type MaterialProperty = 'restitution' | 'friction' | 'staticFriction' | 'rollingFriction' | 'spinningFriction';

export interface SceneDesc {
  /** The file it came from (for messages), or "<builtin:name>". */
  file: string;
  gravity: Vec3;
  dt: number;
  solver: SolverSettings;
  shapes: Record<string, ShapeDesc>;
  bodies: BodyDesc[];
  joints: JointDesc[];
  motors: MotorDesc[];
  /** Density of the fluid bodies move in (kg/m^3), for quadratic drag ("fluid"; air by default). */
  fluidDensity: number;
  /** Wind, force fields, timed forces and impulses ("forces"); empty when the file has none. */
  forces: ForceDesc[];
  /** Soft bodies (seed 001; docs/soft-bodies.md); empty when the file has none. */
  softMaterials: Record<string, SoftMaterialDesc>;
  softBodies: SoftBodyDesc[];
  softSolver: SoftSolverSettings;
}

// ---------------------------------------------------------------- soft bodies

// The soft-body core owns its solver settings; the scene layer fills them from the file.
export type { SoftIntegratorName, SoftSolverSettings } from '../soft/settings.ts';

/** A reusable soft material, every default filled in. */
export interface SoftMaterialDesc {
  /** Elastic modulus of the spring net (Pa). */
  stiffness: number;
  /** Each spring's damper as a fraction of its critical damping. */
  damping: number;
  /** Stiffness factor (0..1) of outer springs, those outside the shape. */
  outerScale: number;
  density: number;
  friction: number;
  restitution: number;
  preserveVolume: boolean;
  /** Bulk modulus of volume preservation (Pa); only used with preserveVolume. */
  volumeStiffness: number;
  /** Stretch prevention (seed 001): stiffer springs while stretched; undefined in a material that leaves it to the construction (on for "seed"). */
  preventStretch?: boolean;
  /** Modulus (Pa) and damping ratio of a stretched spring; only used with preventStretch. */
  stretchStiffness: number;
  stretchDamping: number;
  /** Perimeter preservation of the outline (seed 001); undefined in a material that leaves it to the construction (on for "seed"). */
  preservePerimeter?: boolean;
  /** Modulus (Pa) of perimeter preservation; only used with preservePerimeter. */
  perimeterStiffness: number;
}

export type SoftConstruction =
  | { method: 'lattice'; /** Cells along the shape's longest axis. */ resolution: number }
  | { method: 'seed'; /** Minimum angle between springs, degrees. */ minAngle: number };

export interface SoftPinDesc {
  /** The rigid body the particles are pinned to. */
  body: string;
  /** Where, in the body's shape frame as written (like joint anchors). */
  anchor: Vec3;
  /** Particles within this distance of the anchor are pinned; 0 pins the nearest one. */
  radius: number;
}

/** A soft body with its material resolved (material values, then the body's own). */
export interface SoftBodyDesc extends Omit<SoftMaterialDesc, 'density' | 'preventStretch' | 'preservePerimeter'> {
  /** Resolved: the material's or the body's, else on for the seed construction and off for the lattice. */
  preventStretch: boolean;
  preservePerimeter: boolean;
  name: string;
  shape: string;
  /** The softMaterials entry it started from, if any. */
  material?: string;
  /** Exactly one of density / mass is set. */
  density?: number;
  mass?: number;
  construction: SoftConstruction;
  pins: SoftPinDesc[];
  position: Vec3;
  orientation: Quat;
  velocity: Vec3;
  angularVelocity: Vec3;
}
