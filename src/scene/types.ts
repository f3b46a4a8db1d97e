/**
 * A scene after validation (SCENE_FORMAT.md): every default filled in, every
 * reference checked, quaternions normalised. The loader (src/scene/load.ts)
 * produces it from JSON; built-in scenes (src/scene/builtins.ts) produce the
 * JSON form so they pass the same validation.
 */
import type { Vec3 } from '../geometry/mesh.ts';
import type { SolverSettings } from '../dynamics/settings.ts';
import type { JointDesc, MotorDesc } from '../dynamics/joints/types.ts';

export type Quat = [number, number, number, number];

export interface SdfSettings {
  cells: number; // default 48
  padding: number; // default 2
}

export type ShapeDesc =
  | { type: 'box'; size: Vec3; sdf: SdfSettings }
  | { type: 'sphere'; radius: number; segments: [number, number]; sdf: SdfSettings }
  | { type: 'cylinder'; radius: number; height: number; segments: number; sdf: SdfSettings }
  | { type: 'capsule'; radius: number; height: number; segments: [number, number]; sdf: SdfSettings }
  | { type: 'torus'; majorRadius: number; minorRadius: number; segments: [number, number]; sdf: SdfSettings }
  | { type: 'revolve'; profile: [number, number][]; segments: number; sdf: SdfSettings }
  | { type: 'extrude'; polygon: [number, number][]; depth: number; sdf: SdfSettings }
  | { type: 'plane'; normal: Vec3 }
  | { type: 'mesh'; path: string; resolvedPath: string; scale: number; sdf: SdfSettings };

// The engine owns its settings; the scene layer fills them from the file.
export type { SolverSettings } from '../dynamics/settings.ts';
export type { JointType, JointDesc, MotorDesc } from '../dynamics/joints/types.ts';

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
  friction: number;
  rollingFriction: number;
  spinningFriction: number;
}

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
}
